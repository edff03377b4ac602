import { describe, expect, it } from 'vitest';
import { localized, preferredLanguage, textIn } from './language.ts';

describe('preferredLanguage', () => {
  it.each([
    [undefined, 'zh'],
    ['', 'zh'],
    ['*', 'zh'],
    ['fr-FR,fr;q=0.9', 'zh'],
    ['zh-CN,zh;q=0.9,en;q=0.8', 'zh'],
    ['en-US,en;q=0.9', 'en'],
    ['en', 'en'],
    ['fr, en;q=0.5, zh;q=0.4', 'en'],
    ['zh;q=0.3, en;q=0.7', 'en'],
    ['en;q=0, zh-TW', 'zh'],
    ['EN-gb', 'en'],
    ['en, zh', 'en'],
    ['zh, en', 'zh'],
  ])('%j -> %s', (header, language) => {
    expect(preferredLanguage(header)).toBe(language);
  });

  it('reads a header sent several times', () => {
    expect(preferredLanguage(['fr', 'en-US'])).toBe('en');
  });
});

describe('textIn', () => {
  it('picks the language of a localized message and keeps a plain text as it is', () => {
    const message = localized('设置已保存。', 'Settings saved.');
    expect(textIn(message, 'zh')).toBe('设置已保存。');
    expect(textIn(message, 'en')).toBe('Settings saved.');
    expect(textIn('HTTP 401', 'zh')).toBe('HTTP 401');
  });
});
