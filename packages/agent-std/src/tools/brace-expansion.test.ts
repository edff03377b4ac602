// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell parameter expansions (${…}), on purpose.
import { describe, expect, test } from 'vitest';
import {
  expandBraces,
  expandCommandWords,
  MAX_EXPANDED_WORDS,
  MAX_EXPANSION_CHARACTERS,
} from './brace-expansion.ts';

const expand = (word: string) =>
  expandBraces(word, { left: MAX_EXPANDED_WORDS, characters: MAX_EXPANSION_CHARACTERS });

describe('brace expansion', () => {
  test('lists, with a prefix and a suffix, nested, left to right', () => {
    expect(expand('a{b,c}d')).toEqual(['abd', 'acd']);
    expect(expand('{a,b}{1,2}')).toEqual(['a1', 'a2', 'b1', 'b2']);
    expect(expand('x{a,{b,c}}')).toEqual(['xa', 'xb', 'xc']);
    expect(expand('{,a}')).toEqual(['', 'a']);
  });

  test('sequences of numbers and letters, with a step, in either direction', () => {
    expect(expand('{1..3}')).toEqual(['1', '2', '3']);
    expect(expand('{3..1}')).toEqual(['3', '2', '1']);
    expect(expand('{0..10..5}')).toEqual(['0', '5', '10']);
    expect(expand('{a..c}')).toEqual(['a', 'b', 'c']);
    expect(expand('{r..r}m')).toEqual(['rm']);
    expect(expand('{-1..1}')).toEqual(['-1', '0', '1']);
  });

  test('what is not a brace expression stays as written', () => {
    for (const word of ['{a}', '{}', '${x:-a,b}', '{a..}', '{1..a}', '\\{a,b}', 'a{b', 'a}b']) {
      expect(expand(word), word).toEqual([word]);
    }
  });

  test('the words of a command are expanded together; changed words are no longer plain', () => {
    expect(expandCommandWords(['{rm,-rf,~}', 'x'], [true, true])).toEqual({
      words: ['rm', '-rf', '~', 'x'],
      plain: [false, false, false, true],
      complete: true,
    });
  });

  test('the expansion stops at the word limit and says it was cut short', () => {
    const big = expandCommandWords(['{a,b}'.repeat(13)], [true]);
    expect(big.words).toHaveLength(MAX_EXPANDED_WORDS);
    expect(big.complete).toBe(false);
    const sequence = expandCommandWords(['{1..100000}'], [true]);
    expect(sequence.complete).toBe(false);
    expect(sequence.words.length).toBeLessThanOrEqual(MAX_EXPANDED_WORDS);
  });

  test('thousands of groups cost a bounded amount of work and never overflow the stack', () => {
    const many = `echo ${'{'.repeat(5000)}${'}'.repeat(5000)}`;
    expect(expandCommandWords([many], [true]).words).toEqual([many]);
    const wide = expandCommandWords(['{a,b}'.repeat(20_000)], [true]);
    expect(wide.complete).toBe(false);
  });
});
