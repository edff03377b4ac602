import { describe, expect, it } from 'vitest';
import { citedLines, minutes, pageRanges } from './sources.ts';

describe('answer sources in words', () => {
  it('reads a span in minutes', () => {
    expect(minutes('18:37:05')).toBe('18:37');
    expect(minutes('9:05:59')).toBe('09:05');
    expect(minutes('')).toBe('');
  });

  it('joins page numbers into ranges in each language', () => {
    expect(pageRanges([3, 4, 5, 8], 'zh')).toBe('3–5、8');
    expect(pageRanges([8, 3, 4, 4, 5], 'en')).toBe('3–5, 8');
    expect(pageRanges([1], 'en')).toBe('1');
    expect(pageRanges([], 'zh')).toBe('');
  });

  it('puts the cited lines first in the model’s order, skipping unknown ids', () => {
    const line = (id: number) => ({ id, timestamp: `10:00:0${id}`, text: `line ${id}` });
    const sources = {
      from: '10:00:01',
      to: '10:00:04',
      lines: [line(1), line(2), line(3), line(4)],
      material: '',
      pages: [],
      cited: [3, 9, 1],
    };
    expect(citedLines(sources).map((cited) => cited.id)).toEqual([3, 1]);
  });
});
