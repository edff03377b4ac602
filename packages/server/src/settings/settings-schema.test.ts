import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type ResolvedSettings,
  SETTING_DEFINITIONS,
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
