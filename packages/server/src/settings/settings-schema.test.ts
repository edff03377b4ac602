import { describe, expect, expectTypeOf, it } from 'vitest';
import { textIn } from '../language.ts';
import {
  ASR_MODE_ALIASES,
  type ResolvedSettings,
  SETTING_DEFINITIONS,
  SETTING_GROUPS,
  type SettingDefinition,
  settingDefinition,
} from './settings-schema.ts';

describe('the setting definitions', () => {
  it('give each key one field, and read every default into a value of that field', () => {
    const fields = SETTING_DEFINITIONS.map((definition) => definition.field);
    expect(new Set(fields).size).toBe(fields.length);
    const values = Object.fromEntries(
      SETTING_DEFINITIONS.map((definition) => [definition.key, definition.defaultValue]),
    );
    for (const definition of SETTING_DEFINITIONS) {
      expect(settingDefinition(definition.key)).toBe(definition);
      if (definition.defaultValue !== '') {
        expect(definition.check(definition.defaultValue), definition.key).toEqual({ ok: true });
      }
      expect(definition.parse(definition.defaultValue, values), definition.key).not.toBeUndefined();
    }
  });

  it('name every key and every value of a key with a fixed set of values in both languages', () => {
    const groups = new Set(SETTING_GROUPS.map((group) => group.id));
    for (const group of SETTING_GROUPS) {
      expect(group.label.zh, group.id).not.toBe('');
      expect(group.label.en, group.id).not.toBe('');
    }
    for (const item of SETTING_DEFINITIONS) {
      const definition: SettingDefinition = item;
      expect(groups.has(definition.group), definition.key).toBe(true);
      expect(definition.label.zh.trim(), definition.key).not.toBe('');
      expect(definition.label.en.trim(), definition.key).not.toBe('');
      const refusal = definition.check('no-such-value');
      const english = refusal.ok ? '' : textIn(refusal.message, 'en');
      if (!definition.choices) {
        // Free text or a number: no fixed set of values the form would have to list.
        expect(english, definition.key).not.toMatch(/must be one of/);
        continue;
      }
      expect(refusal.ok, definition.key).toBe(false);
      for (const choice of definition.choices) {
        expect(definition.check(choice.value), `${definition.key}=${choice.value}`).toEqual({
          ok: true,
        });
        expect(choice.label.zh.trim(), `${definition.key}=${choice.value}`).not.toBe('');
        expect(choice.label.en.trim(), `${definition.key}=${choice.value}`).not.toBe('');
        // Every value the check accepts is listed (the refusal names them all).
        expect(english, definition.key).toContain(choice.value);
      }
      // ...and no value is accepted that the form does not offer, but aliases of the choices.
      const listed = english.match(/must be one of (.*), got/)?.[1]?.split(', ') ?? [];
      const offered = definition.choices.map((choice) => choice.value);
      const aliases = definition.key === 'ASR_MODE' ? Object.keys(ASR_MODE_ALIASES) : [];
      expect(listed.sort(), definition.key).toEqual([...offered, ...aliases].sort());
    }
  });

  it('describe every key in Chinese and in English, naming the same keys, commands and addresses', () => {
    // CJK punctuation and full-width forms (，：；（）、。): at home in Chinese, a typo in English.
    const fullWidth = /[\u3000-\u303f\uff00-\uffef]/;
    // What a student may copy into the file stays as it is in both: keys, commands, addresses.
    const verbatim = /[A-Z][A-Z0-9]*_[A-Z0-9_]+|`[^`]+`|[a-z]+:\/\/[^\s,;)]+/g;
    for (const item of SETTING_DEFINITIONS) {
      const definition: SettingDefinition = item;
      const { key, description: en, descriptionZh: zh } = definition;
      expect(zh, key).toMatch(/\p{Script=Han}/u);
      expect(zh, key).not.toBe(en);
      expect(en.trim(), key).not.toBe('');
      expect(en, key).not.toMatch(fullWidth);
      for (const word of en.match(verbatim) ?? []) expect(zh, key).toContain(word);
    }
  });

  it('refuse a link-local or metadata MODELS_BASE_URL and keep a mirror on the school network', () => {
    const check = settingDefinition('MODELS_BASE_URL')!.check;
    for (const url of ['http://169.254.169.254/vosk', 'http://metadata.google.internal/vosk']) {
      expect(check(url), url).toMatchObject({
        ok: false,
        message: { en: expect.stringContaining('link-local or cloud-metadata') },
      });
    }
    for (const url of ['http://192.168.1.20/vosk', 'http://127.0.0.1:9000/m', 'https://m.edu/v']) {
      expect(check(url), url).toEqual({ ok: true });
    }
  });

  it('take the student’s name up to 40 characters and the last 1 to 6 digits of their number', () => {
    const name = settingDefinition('STUDENT_NAME')!;
    const digits = settingDefinition('STUDENT_NUMBER_DIGITS')!;
    expect(name.check(` ${'王'.repeat(40)} `)).toEqual({ ok: true });
    expect(name.check('王'.repeat(41))).toMatchObject({
      ok: false,
      message: { zh: '最多 40 个字符，当前有 41 个', en: 'must be at most 40 characters, got 41' },
    });
    expect(name.parse('  Wang   Xiaoming ', {})).toBe('Wang Xiaoming');
    for (const value of ['7', '07', '123456', ' 23 ']) {
      expect(digits.check(value), value).toEqual({ ok: true });
    }
    for (const value of ['1234567', '２３', '2 3', 'abc', '-1']) {
      expect(digits.check(value), value).toMatchObject({
        ok: false,
        message: { en: expect.stringContaining(`must be 1 to 6 digits (0-9`) },
      });
    }
    expect(digits.parse(' 07 ', {})).toBe('07');
  });

  it('parse into the types the server uses, and fall back where a key borrows another', () => {
    const values = { LLM_BASE_URL: 'https://llm.example/v1', LLM_API_KEY: 'sk-llm' };
    const read = (key: string, value: string) => settingDefinition(key)!.parse(value, values);
    expect(read('LLM_TIMEOUT', '2.5')).toBe(2500);
    expect(read('UPLOAD_MAX_MB', '2')).toBe(2 * 1024 * 1024);
    expect(read('MOCK_LOOP', 'false')).toBe(false);
    expect(read('CORS_ORIGINS', 'http://a.test/, http://b.test:5173')).toEqual([
      'http://a.test',
      'http://b.test:5173',
    ]);
    expect(settingDefinition('CLOUD_ASR_BASE_URL')!.fallback).toBe('LLM_BASE_URL');
    expect(settingDefinition('CLOUD_ASR_API_KEY')!.fallback).toBe('LLM_API_KEY');
    expect(read('CLOUD_ASR_API_KEY', 'sk-cloud')).toBe('sk-cloud');
  });

  it('derive the type of the resolved settings', () => {
    expectTypeOf<ResolvedSettings['asrMode']>().toEqualTypeOf<
      'local' | 'stream' | 'cloud' | 'mock' | 'dashscope'
    >();
    expectTypeOf<ResolvedSettings['llmTimeoutMs']>().toEqualTypeOf<number>();
    expectTypeOf<ResolvedSettings['corsOrigins']>().toEqualTypeOf<string[]>();
    expectTypeOf<ResolvedSettings['vadDynamicEnergy']>().toEqualTypeOf<boolean>();
    expectTypeOf<ResolvedSettings['keywordHomophones']>().toEqualTypeOf<
      'off' | 'pinyin' | 'fuzzy-pinyin'
    >();
    expectTypeOf<ResolvedSettings>().not.toHaveProperty('nothing');
  });
});
