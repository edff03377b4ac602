import { describe, expect, it } from 'vitest';
import { MAX_LINES, upsertLine } from './store.ts';
import { isFramed, outerSizeFor, WINDOW_SIZES } from './window.ts';

/** A line without page, translation or audio. */
const line = (fields: { id: number; index: number; timestamp: string; text: string }) => ({
  ...fields,
  page: null,
  translation: null,
  audio_ms: null,
});

describe('upsertLine', () => {
  it('appends, replaces an updated line in place by id and keeps the order', () => {
    let lines = upsertLine([], line({ id: 1, index: 0, timestamp: '10:00:00', text: '好' }));
    lines = upsertLine(lines, line({ id: 2, index: 1, timestamp: '10:00:01', text: '同学们' }));
    lines = upsertLine(lines, line({ id: 2, index: 1, timestamp: '10:00:01', text: '同学们好' }));
    lines = upsertLine(lines, line({ id: 1, index: 0, timestamp: '10:00:00', text: '好的' }));
    expect(lines.map((line) => [line.id, line.text])).toEqual([
      [1, '好的'],
      [2, '同学们好'],
    ]);
    // After a fold the file positions restart, the ids do not: the line is still found.
    lines = upsertLine(lines, line({ id: 2, index: 0, timestamp: '10:00:01', text: '同学们好！' }));
    expect(lines.map((line) => line.text)).toEqual(['好的', '同学们好！']);
  });

  it('keeps only the newest lines', () => {
    let lines = upsertLine([], line({ id: 1, index: 0, timestamp: '', text: '1' }));
    for (let id = 2; id <= MAX_LINES + 6; id++) {
      lines = upsertLine(lines, line({ id, index: id - 1, timestamp: '', text: String(id) }));
    }
    expect(lines).toHaveLength(MAX_LINES);
    expect(lines[0]?.id).toBe(7);
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
