import { describe, expect, it } from 'vitest';
import { indexTerms, parseQuery, phraseOf } from './search-terms.ts';

describe('indexTerms', () => {
  it('gives each CJK character the pair it starts, and the last one alone', () => {
    expect(indexTerms('今天讲矩阵的秩')).toBe('今天 天讲 讲矩 矩阵 阵的 的秩 秩');
  });

  it('keeps words whole, lower case and NFKC-normalised (full-width letters, digits)', () => {
    expect(indexTerms('Eigenvalue（特征值）ＡＢＣ 第３章')).toBe(
      'eigenvalue 特征 征值 值 abc 第 3 章',
    );
  });

  it('splits at punctuation and between scripts, and handles kana, Hangul and astral Han', () => {
    expect(indexTerms('O(n)，AI时代；カタカナ 한국어 𠀀𠀁')).toBe(
      'o n ai 时代 代 カタ タカ カナ ナ 한국 국어 어 𠀀𠀁 𠀁',
    );
  });

  it('is empty for a text without letters or digits', () => {
    expect(indexTerms('。！？ —— ...')).toBe('');
  });
});

describe('parseQuery', () => {
  const phrases = (query: string) => parseQuery(query).map(phraseOf);

  it('turns two or more CJK characters into a phrase of pairs without the last character', () => {
    expect(phrases('矩阵')).toEqual(['"矩阵"']);
    expect(phrases('特征值')).toEqual(['"特征 征值"']);
    expect(phrases('矩阵的特征值')).toEqual(['"矩阵 阵的 的特 特征 征值"']);
  });

  it('searches one CJK character and words by prefix', () => {
    expect(phrases('秩 Eigen')).toEqual(['"秩"*', '"eigen"*']);
  });

  it('keeps CJK and words typed together as one phrase', () => {
    expect(parseQuery('AI时代')[0]).toMatchObject({
      kind: 'mixed',
      terms: ['ai', '时代'],
      prefix: false,
    });
    expect(phrases('时代AI')).toEqual(['"时代 代 ai"*']);
  });

  it('never lets quotes or FTS5 operators through, and drops parts without letters', () => {
    expect(phrases('"矩阵" OR NEAR(秩) * -')).toEqual(['"矩阵"', '"or"*', '"near 秩"*']);
    expect(parseQuery('。。。 !!')).toEqual([]);
  });

  it('says what each part is', () => {
    expect(parseQuery('矩阵 rank 第3章').map((part) => part.kind)).toEqual([
      'cjk',
      'word',
      'mixed',
    ]);
  });
});
