import { describe, expect, it } from 'vitest';
import { parseQuery } from './search-terms.ts';
import { countMatches, findMatches, relevance, snippet } from './snippet.ts';

describe('findMatches', () => {
  it('marks CJK parts anywhere and words where a word starts, in the original text', () => {
    const text = 'Ｒａｎｋ和矩阵的秩：rank(A)，franking 不算';
    const { ranges, counts } = findMatches(text, parseQuery('rank 矩阵'));
    expect(ranges.map(([start, end]) => text.slice(start, end))).toEqual([
      'Ｒａｎｋ',
      '矩阵',
      'rank',
    ]);
    expect(counts).toEqual([2, 1]);
  });

  it('merges overlapping matches', () => {
    const text = '特征值和特征向量';
    expect(findMatches(text, parseQuery('特征 特征值')).ranges).toEqual([
      [0, 3],
      [4, 6],
    ]);
  });
});

describe('countMatches', () => {
  it('counts what the index matches: substrings for CJK, word starts for words', () => {
    expect(countMatches('矩阵乘矩阵 marks remark', parseQuery('矩阵 mark'))).toEqual([2, 1]);
    expect(countMatches('没有', parseQuery('矩阵'))).toEqual([0]);
  });
});

describe('relevance', () => {
  it('prefers more occurrences and shorter texts', () => {
    expect(relevance([2], 40, 40)).toBeGreaterThan(relevance([1], 40, 40));
    expect(relevance([1], 20, 40)).toBeGreaterThan(relevance([1], 80, 40));
  });
});

describe('snippet', () => {
  it('marks matches and escapes HTML', () => {
    expect(snippet('a<b> 矩阵 & "x"', [[5, 7]])).toBe(
      'a&lt;b&gt; <mark>矩阵</mark> &amp; &quot;x&quot;',
    );
  });

  it('cuts a long text around its first match with ellipses', () => {
    const text = `${'甲'.repeat(200)}矩阵${'乙'.repeat(200)}`;
    const result = snippet(text, [[200, 202]], 40);
    expect(result.startsWith('…')).toBe(true);
    expect(result.endsWith('…')).toBe(true);
    expect(result).toContain('<mark>矩阵</mark>');
    expect(result.replace(/<\/?mark>|…/g, '').length).toBe(40);
  });

  it('folds runs of whitespace without moving the marks', () => {
    expect(snippet('第一行\n\n  矩阵', [[7, 9]])).toBe('第一行 <mark>矩阵</mark>');
  });
});
