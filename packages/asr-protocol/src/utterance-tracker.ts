import type { AsrUtterance } from './response-schema.ts';

/** What one call of {@link UtteranceTracker.update} found. */
export interface UtteranceUpdate {
  /** Definite utterances seen for the first time, in the order the service listed them. */
  completed: AsrUtterance[];
  /** The latest non-definite utterance of this response, or undefined when there is none. */
  partial: AsrUtterance | undefined;
  /** Whether `partial` differs from the previous one in text or start time (a growing end time alone is no change). */
  partialChanged: boolean;
}

/** Tracks definite and partial utterances across responses; see {@link createUtteranceTracker}. */
export interface UtteranceTracker {
  /** Feeds the `utterances` of one response. */
  update(utterances: readonly AsrUtterance[]): UtteranceUpdate;
  /** The current partial (latest non-definite) utterance, if any. Kept in memory only. */
  readonly partial: AsrUtterance | undefined;
  /** Every definite utterance emitted so far, in order. */
  readonly completed: readonly AsrUtterance[];
}

function utteranceKey(utterance: AsrUtterance): string {
  return `${utterance.start_time}\u0000${utterance.end_time}\u0000${utterance.text}`;
}

function samePartial(a: AsrUtterance | undefined, b: AsrUtterance | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.text === b.text && a.start_time === b.start_time;
}

/**
 * Emits each `definite: true` utterance exactly once, identified by (start_time, end_time, text),
 * however many responses repeat it (with `result_type: 'full'` every response lists every
 * sentence again). Non-definite utterances are never emitted; the latest one is kept as the
 * current partial.
 *
 * @example
 * const tracker = createUtteranceTracker();
 * const { completed, partial } = tracker.update(response.result.utterances ?? []);
 * for (const utterance of completed) appendLine(utterance.text);
 * showPartial(partial?.text ?? '');
 */
export function createUtteranceTracker(): UtteranceTracker {
  const seen = new Set<string>();
  const completed: AsrUtterance[] = [];
  let partial: AsrUtterance | undefined;
  return {
    update(utterances) {
      const fresh: AsrUtterance[] = [];
      let latestPartial: AsrUtterance | undefined;
      for (const utterance of utterances) {
        if (utterance.definite === true) {
          const key = utteranceKey(utterance);
          if (seen.has(key)) continue;
          seen.add(key);
          fresh.push(utterance);
          completed.push(utterance);
        } else {
          latestPartial = utterance;
        }
      }
      const partialChanged = !samePartial(partial, latestPartial);
      partial = latestPartial;
      return { completed: fresh, partial, partialChanged };
    },
    get partial() {
      return partial;
    },
    get completed() {
      return completed;
    },
  };
}
