import { describe, expect, it } from 'vitest';
import { parseNumberedAnswer } from './caption-answer.ts';

describe('parseNumberedAnswer', () => {
  it('reads numbered lines, the last one still coming while the answer streams', () => {
    expect(parseNumberedAnswer('1. Hello\n2. Wor', 3, false)).toEqual([
      { text: 'Hello', complete: true },
      { text: 'Wor', complete: false },
      undefined,
    ]);
    expect(parseNumberedAnswer('1. Hello\n2. World\n', 2, false)).toEqual([
      { text: 'Hello', complete: true },
      { text: 'World', complete: true },
    ]);
  });

  it('takes other numbering marks, joins continuation lines, ignores numbers beyond the lines sent', () => {
    expect(parseNumberedAnswer('1、你好\n2) 世界\n  继续\n7. 多余', 2, true)).toEqual([
      { text: '你好', complete: true },
      { text: '世界 继续', complete: true },
    ]);
  });

  it('takes a bare answer for a single line', () => {
    expect(parseNumberedAnswer('Stacks are LIFO.', 1, true)).toEqual([
      { text: 'Stacks are LIFO.', complete: true },
    ]);
  });
});
