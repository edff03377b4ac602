// The time a transcript line is stamped with: the wall clock of a live class, or the position in
// the recording of a class transcribed from a file.
import { describeValue, TranscriptCoreError } from './errors.ts';
import { formatClockTime } from './transcript-format.ts';

/**
 * When a line was said:
 * - a `Date`: the local clock time (a live class);
 * - `{ positionMs }`: the position in a recording, in ms from its start (floored to the second;
 *   hours go past 24, e.g. `25:03:10`);
 * - a string `HH:MM:SS` (or `H:MM:SS`): that time as written.
 */
export type EntryTime = Date | { positionMs: number } | string;

/** Positions must fit the line format's two-digit hours. */
const MAX_POSITION_MS = 100 * 3600_000;
const TIME_TEXT = /^(\d{1,2}):([0-5]\d):([0-5]\d)$/u;

const pad = (value: number) => String(value).padStart(2, '0');

/**
 * A position in a recording as `HH:MM:SS` (floored to the second), e.g. 2_533_900 → `00:42:13`.
 *
 * @throws TranscriptCoreError `TRANSCRIPT_INVALID_ARGUMENT` unless 0 ≤ positionMs < 100 h.
 */
export function formatPosition(positionMs: number): string {
  if (
    typeof positionMs !== 'number' ||
    !Number.isFinite(positionMs) ||
    positionMs < 0 ||
    positionMs >= MAX_POSITION_MS
  ) {
    throw new TranscriptCoreError(
      'TRANSCRIPT_INVALID_ARGUMENT',
      `formatPosition: a position is a number of ms from 0 to under 100 hours, got ${describeValue(positionMs)}`,
    );
  }
  const seconds = Math.floor(positionMs / 1000);
  return `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
}

/**
 * The `HH:MM:SS` text of an {@link EntryTime}; `where` names the argument in the error.
 *
 * @throws TranscriptCoreError `TRANSCRIPT_INVALID_ARGUMENT` for an invalid Date, a position out
 *   of range or a string that is not `HH:MM:SS`.
 */
export function entryTimeText(time: EntryTime, where: string): string {
  if (time instanceof Date) {
    if (Number.isNaN(time.getTime())) throw invalid(`${where} is an invalid Date`);
    return formatClockTime(time);
  }
  if (typeof time === 'string') {
    const match = TIME_TEXT.exec(time);
    if (!match) {
      throw invalid(
        `${where} must be a time HH:MM:SS (e.g. "00:42:13"), got ${describeValue(time)}`,
      );
    }
    return `${match[1]!.padStart(2, '0')}:${match[2]}:${match[3]}`;
  }
  if (typeof time === 'object' && time !== null && !Array.isArray(time) && 'positionMs' in time) {
    try {
      return formatPosition(time.positionMs);
    } catch {
      throw invalid(
        `${where}.positionMs must be a number of ms from 0 to under 100 hours, got ${describeValue(time.positionMs)}`,
      );
    }
  }
  throw invalid(
    `${where} must be a Date, { positionMs } or an "HH:MM:SS" string, got ${describeValue(time)}`,
  );
}

function invalid(message: string): TranscriptCoreError {
  return new TranscriptCoreError('TRANSCRIPT_INVALID_ARGUMENT', message);
}
