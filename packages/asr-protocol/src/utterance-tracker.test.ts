import { describe, expect, it } from 'vitest';
import type { AsrUtterance } from './response-schema.ts';
import { createUtteranceTracker } from './utterance-tracker.ts';

const u = (
  text: string,
  start_time: number,
  end_time: number,
  definite: boolean,
): AsrUtterance => ({
  text,
  start_time,
  end_time,
  definite,
});

describe('createUtteranceTracker', () => {
  it('emits each definite utterance once across full-result responses', () => {
    const tracker = createUtteranceTracker();
    expect(tracker.update([u('Good', 0, 400, false)])).toMatchObject({
      completed: [],
      partial: { text: 'Good' },
      partialChanged: true,
    });
    expect(tracker.update([u('Good morning', 0, 800, false)]).partial?.text).toBe('Good morning');
    const third = tracker.update([u('Good morning.', 0, 900, true), u('Today', 1200, 1500, false)]);
    expect(third.completed.map((item) => item.text)).toEqual(['Good morning.']);
    expect(third.partial?.text).toBe('Today');
    // The service repeats earlier sentences in every response (result_type full).
    const fourth = tracker.update([
      u('Good morning.', 0, 900, true),
      u('Today we', 1200, 1800, false),
    ]);
    expect(fourth.completed).toEqual([]);
    const fifth = tracker.update([
      u('Good morning.', 0, 900, true),
      u('Today we learn.', 1200, 2000, true),
    ]);
    expect(fifth.completed.map((item) => item.text)).toEqual(['Today we learn.']);
    expect(fifth.partial).toBeUndefined();
    expect(fifth.partialChanged).toBe(true);
    expect(tracker.completed.map((item) => item.text)).toEqual([
      'Good morning.',
      'Today we learn.',
    ]);
  });

  it('identifies utterances by (start_time, end_time, text)', () => {
    const tracker = createUtteranceTracker();
    tracker.update([u('Yes.', 0, 500, true)]);
    expect(tracker.update([u('Yes.', 0, 500, true)]).completed).toHaveLength(0);
    expect(tracker.update([u('Yes.', 0, 600, true)]).completed).toHaveLength(1);
    expect(tracker.update([u('Yes!', 0, 600, true)]).completed).toHaveLength(1);
    expect(tracker.update([u('Yes.', 100, 600, true)]).completed).toHaveLength(1);
  });

  it('does not report a partial change when only its end time grows', () => {
    const tracker = createUtteranceTracker();
    tracker.update([u('Good', 0, 400, false)]);
    expect(tracker.update([u('Good', 0, 600, false)]).partialChanged).toBe(false);
    expect(tracker.update([u('Good day', 0, 800, false)]).partialChanged).toBe(true);
    expect(tracker.update([]).partialChanged).toBe(true);
    expect(tracker.partial).toBeUndefined();
  });

  it('treats a missing definite flag as not definite', () => {
    const tracker = createUtteranceTracker();
    const update = tracker.update([{ text: 'x', start_time: 0, end_time: 1 }]);
    expect(update.completed).toEqual([]);
    expect(update.partial?.text).toBe('x');
  });
});
