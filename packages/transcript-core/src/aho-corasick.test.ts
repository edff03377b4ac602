import { fc, test as property } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { AhoCorasick } from './aho-corasick.ts';

const codes = (text: string) => [...text].map((char) => char.codePointAt(0)!);

function matches(patterns: string[], text: string) {
  const automaton = new AhoCorasick(patterns.map(codes));
  const found: Array<[string, number]> = [];
  automaton.search(codes(text), (id, end) => found.push([patterns[id]!, end]));
  return found.sort((x, y) => x[1] - y[1] || x[0].localeCompare(y[0]));
}

function naive(patterns: string[], text: string) {
  const points = [...text];
  const found: Array<[string, number]> = [];
  patterns.forEach((pattern) => {
    const p = [...pattern];
    if (p.length === 0) return;
    for (let start = 0; start + p.length <= points.length; start += 1) {
      if (p.every((char, offset) => points[start + offset] === char)) {
        found.push([pattern, start + p.length - 1]);
      }
    }
  });
  return found.sort((x, y) => x[1] - y[1] || x[0].localeCompare(y[0]));
}

describe('AhoCorasick', () => {
  it('finds overlapping and nested patterns, Chinese and English', () => {
    expect(matches(['he', 'she', 'his', 'hers'], 'ushers')).toEqual([
      ['he', 3],
      ['she', 3],
      ['hers', 5],
    ]);
    expect(matches(['同学', '哪位同学', '学'], '请哪位同学回答')).toEqual([
      ['同学', 4],
      ['哪位同学', 4],
      ['学', 4],
    ]);
  });

  property.prop([
    fc.array(fc.string({ unit: fc.constantFrom(...'ab张三😀'), minLength: 1, maxLength: 4 }), {
      maxLength: 8,
    }),
    fc.string({ unit: fc.constantFrom(...'ab张三😀'), maxLength: 40 }),
  ])('reports exactly the occurrences a naive scan finds', (patterns, text) => {
    const unique = [...new Set(patterns)];
    expect(matches(unique, text)).toEqual(naive(unique, text));
  });
});
