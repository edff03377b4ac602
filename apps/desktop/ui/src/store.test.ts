import { describe, expect, it } from 'vitest';
import { MAX_LINES, upsertLine } from './store.ts';
import { isFramed, outerSizeFor, WINDOW_SIZES } from './window.ts';

describe('upsertLine', () => {
  it('appends, replaces an updated line in place and keeps the order', () => {
    let lines = upsertLine([], { index: 0, timestamp: '10:00:00', text: '好' });
    lines = upsertLine(lines, { index: 1, timestamp: '10:00:01', text: '同学们' });
    lines = upsertLine(lines, { index: 1, timestamp: '10:00:01', text: '同学们好' });
    lines = upsertLine(lines, { index: 0, timestamp: '10:00:00', text: '好的' });
    expect(lines.map((line) => [line.index, line.text])).toEqual([
      [0, '好的'],
      [1, '同学们好'],
    ]);
  });

  it('keeps only the newest lines', () => {
    let lines = upsertLine([], { index: 0, timestamp: '', text: '0' });
    for (let index = 1; index <= MAX_LINES + 5; index++) {
      lines = upsertLine(lines, { index, timestamp: '', text: String(index) });
    }
    expect(lines).toHaveLength(MAX_LINES);
    expect(lines[0]?.index).toBe(6);
  });
});

describe('window sizes', () => {
  it('are the seed sizes, and the frame is added to reach them', () => {
    expect(WINDOW_SIZES.bar).toEqual({ width: 320, height: 80 });
    expect(WINDOW_SIZES.panel).toEqual({ width: 480, height: 520 });
    // A Chromium app window on Linux: 56 px of title bar.
    expect(
      outerSizeFor(WINDOW_SIZES.bar, {
        outerWidth: 320,
        outerHeight: 100,
        innerWidth: 320,
        innerHeight: 44,
      }),
    ).toEqual({ width: 320, height: 136 });
  });

  it('draws the app framed only in a much larger ordinary tab', () => {
    expect(isFramed({ width: 1280, height: 800 }, WINDOW_SIZES.bar)).toBe(true);
    expect(isFramed({ width: 320, height: 80 }, WINDOW_SIZES.bar)).toBe(false);
    expect(isFramed({ width: 500, height: 540 }, WINDOW_SIZES.panel)).toBe(false);
  });
});
