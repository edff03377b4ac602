import { describe, expect, it } from 'vitest';
import { dictionaries, setLang, t } from './i18n.ts';

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
});
