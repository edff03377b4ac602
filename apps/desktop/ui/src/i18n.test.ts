import { describe, expect, it } from 'vitest';
import { dictionaries, joinList, setLang, startLang, t } from './i18n.ts';

const placeholders = (text: string) =>
  [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

describe('i18n', () => {
  it('has every text in Chinese and English with the same placeholders', () => {
    const zh = dictionaries.zh;
    const en = dictionaries.en;
    expect(Object.keys(en).sort()).toEqual(Object.keys(zh).sort());
    for (const key of Object.keys(zh) as Array<keyof typeof zh>) {
      expect(en[key].trim(), key).not.toBe('');
      expect(placeholders(en[key]), key).toEqual(placeholders(zh[key]));
    }
  });

  it('is Chinese by default and fills placeholders', () => {
    expect(t('uploading', { percent: 40 })).toBe('上传中 40%');
    setLang('en');
    expect(t('uploading', { percent: 40 })).toBe('Uploading 40%');
    expect(t('notesWritten')).toBe('Notes saved: {filename}');
    setLang('zh');
  });

  it('writes English with ASCII punctuation, never the full-width marks of Chinese', () => {
    const fullWidth = /[：，。（）！？、；“”]/;
    const offending = Object.entries(dictionaries.en).filter(([, text]) => fullWidth.test(text));
    expect(offending).toEqual([]);
    setLang('en');
    expect(t('labelValue', { label: t('soundTest'), value: t('alertRollCall') })).toBe(
      'Play: Roll call in class',
    );
    expect(joinList(['roll call', 'answer'])).toBe('roll call, answer');
    setLang('zh');
    expect(t('labelValue', { label: t('soundTest'), value: t('alertRollCall') })).toBe(
      '试听：老师在点名',
    );
    expect(joinList(['点名', '回答'])).toBe('点名、回答');
  });

  it('starts in the language picked, else the browser’s first Chinese or English one', () => {
    expect(startLang('', ['en-US', 'en'])).toBe('en');
    expect(startLang('', ['zh-CN', 'zh'])).toBe('zh');
    expect(startLang('', ['fr-FR', 'en-GB', 'zh-TW'])).toBe('en');
    expect(startLang('', ['zh-Hant-TW', 'en-US'])).toBe('zh');
    expect(startLang('', ['fr-FR'])).toBe('zh');
    expect(startLang('', [])).toBe('zh');
    // The student's pick wins over the browser.
    expect(startLang('zh', ['en-US'])).toBe('zh');
    expect(startLang('en', ['zh-CN'])).toBe('en');
  });
});
