import { describe, expect, it } from 'vitest';
import { heardLine } from './playback.ts';

describe('heardLine', () => {
  const lines = [
    { id: 1, audio_ms: 500 },
    { id: 2, audio_ms: 3500 },
    { id: 3, audio_ms: null },
    { id: 4, audio_ms: 6500 },
  ];

  it('is the last line whose speech started at or before the position', () => {
    expect(heardLine(lines, 500)).toBe(1);
    expect(heardLine(lines, 3499)).toBe(1);
    expect(heardLine(lines, 3500)).toBe(2);
    expect(heardLine(lines, 6000)).toBe(2);
    expect(heardLine(lines, 90_000)).toBe(4);
  });

  it('is null before the first line and without lines that have audio', () => {
    expect(heardLine(lines, 100)).toBeNull();
    expect(heardLine([{ id: 1, audio_ms: null }], 5000)).toBeNull();
    expect(heardLine([], 5000)).toBeNull();
  });

  it('goes by where the speech starts, not by the order of the ids', () => {
    // A line corrected later keeps its id; its start decides.
    expect(
      heardLine(
        [
          { id: 7, audio_ms: 9000 },
          { id: 8, audio_ms: 4000 },
        ],
        9500,
      ),
    ).toBe(7);
  });
});
