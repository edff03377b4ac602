import { describe, expect, it } from 'vitest';
import { entryTimeText, formatPosition } from './entry-time.ts';

describe('formatPosition', () => {
  it('writes a position in a recording as HH:MM:SS, floored to the second', () => {
    expect(formatPosition(0)).toBe('00:00:00');
    expect(formatPosition(1999)).toBe('00:00:01');
    expect(formatPosition(42 * 60_000 + 13_900)).toBe('00:42:13');
    expect(formatPosition((62 * 60 + 13) * 1000)).toBe('01:02:13');
  });

  it('keeps counting hours past a day', () => {
    expect(formatPosition((25 * 3600 + 3 * 60 + 10) * 1000 + 400)).toBe('25:03:10');
    expect(formatPosition(100 * 3600_000 - 1)).toBe('99:59:59');
  });

  it('refuses what is no position, naming it', () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, 100 * 3600_000, '12' as never]) {
      expect(() => formatPosition(bad)).toThrow(/from 0 to under 100 hours/);
    }
  });
});

describe('entryTimeText', () => {
  it('takes a Date as its local clock time, a position, or HH:MM:SS as written', () => {
    expect(entryTimeText(new Date(2026, 8, 21, 9, 59, 58), 'time')).toBe('09:59:58');
    expect(entryTimeText({ positionMs: 2_533_900 }, 'time')).toBe('00:42:13');
    expect(entryTimeText('00:42:13', 'time')).toBe('00:42:13');
    expect(entryTimeText('7:05:09', 'time')).toBe('07:05:09');
  });

  it('refuses a malformed time with a message naming the argument and the value', () => {
    expect(() => entryTimeText(new Date(Number.NaN), 'append: options.time')).toThrow(
      'append: options.time is an invalid Date',
    );
    expect(() => entryTimeText('42:13', 'append: options.time')).toThrow(
      'append: options.time must be a time HH:MM:SS (e.g. "00:42:13"), got "42:13"',
    );
    expect(() => entryTimeText('00:61:00', 'time')).toThrow(/HH:MM:SS/);
    expect(() => entryTimeText({ positionMs: -5 }, 'pushSegment: time')).toThrow(
      'pushSegment: time.positionMs must be a number of ms from 0 to under 100 hours, got -5',
    );
    expect(() => entryTimeText(12_000 as never, 'time')).toThrow(
      'time must be a Date, { positionMs } or an "HH:MM:SS" string, got 12000',
    );
    expect(() => entryTimeText({ seconds: 3 } as never, 'time')).toThrow(/got an object/);
  });
});
