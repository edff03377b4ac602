import { describe, expect, it } from 'vitest';
import { estimateTokens } from './tokens.ts';

describe('estimateTokens', () => {
  it.each([
    ['', 0],
    ['   ', 0],
    ['光合作用', 4],
    ['こんにちは', 5],
    ['한국어', 3],
    ['cell', 1],
    ['photosynthesis', 4],
    ['photosynthesis in plants', 7],
    ['Hello, world!', 6],
    ['DNA复制', 3],
    ['e\u0301te\u0301', 2],
    ['2024', 1],
  ])('%j -> %i', (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });

  it('never counts fewer tokens than words', () => {
    const text = 'the quick brown fox jumps over the lazy dog';
    expect(estimateTokens(text)).toBeGreaterThanOrEqual(text.split(' ').length);
  });
});
