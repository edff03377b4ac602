import { describe, expect, it } from 'vitest';
import { clockTime } from './clock-time.ts';

describe('clockTime', () => {
  it('reads as minutes and seconds under an hour, with hours after', () => {
    expect(clockTime(0)).toBe('0:00');
    expect(clockTime(3_999)).toBe('0:03');
    expect(clockTime(723_000)).toBe('12:03');
    expect(clockTime(2_890_000)).toBe('48:10');
    expect(clockTime(3_733_000)).toBe('1:02:13');
  });

  it('never goes below zero', () => {
    expect(clockTime(-20)).toBe('0:00');
  });
});
