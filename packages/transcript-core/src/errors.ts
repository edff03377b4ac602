/**
 * Stable codes of {@link TranscriptCoreError}. Match on these, never on messages.
 *
 * - `TRANSCRIPT_INVALID_ARGUMENT`: an option, query, segment or keyword list is malformed.
 * - `TRANSCRIPT_EMPTY_TEXT`: a text to write is empty after normalisation.
 * - `TRANSCRIPT_NO_ENTRY`: `replaceLast` on a transcript that has no entry.
 * - `TRANSCRIPT_CLOSED`: the store or pipeline was used after `close()`.
 * - `TRANSCRIPT_IO_FAILED`: the file system refused a read or write (the `cause` is the
 *   original Node error; the message names the path).
 * - `TRANSCRIPT_SUMMARY_EMPTY`: a fold was asked to write an empty summary.
 * - `TRANSCRIPT_HOMOPHONES_UNAVAILABLE`: homophone matching was asked for but pinyin-pro could
 *   not be loaded (missing, or a bundle where only `loadHomophoneSupport()` can load it).
 */
export type TranscriptCoreErrorCode =
  | 'TRANSCRIPT_INVALID_ARGUMENT'
  | 'TRANSCRIPT_EMPTY_TEXT'
  | 'TRANSCRIPT_NO_ENTRY'
  | 'TRANSCRIPT_CLOSED'
  | 'TRANSCRIPT_IO_FAILED'
  | 'TRANSCRIPT_SUMMARY_EMPTY'
  | 'TRANSCRIPT_HOMOPHONES_UNAVAILABLE';

const marker = Symbol.for('@class-assistant/transcript-core/error');

/**
 * The one error class this package throws. Recognise it with {@link isTranscriptCoreError}
 * (works across duplicated package copies, unlike `instanceof`).
 */
export class TranscriptCoreError extends Error {
  readonly code: TranscriptCoreErrorCode;
  readonly [marker] = true;

  constructor(code: TranscriptCoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TranscriptCoreError';
    this.code = code;
  }
}

/**
 * True when `error` is a {@link TranscriptCoreError} (from any copy of this package).
 *
 * @example
 * try { await store.replaceLast('…'); }
 * catch (error) { if (isTranscriptCoreError(error) && error.code === 'TRANSCRIPT_NO_ENTRY') … }
 */
export function isTranscriptCoreError(error: unknown): error is TranscriptCoreError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { [marker]?: unknown })[marker] === true &&
    typeof (error as { code?: unknown }).code === 'string'
  );
}

/**
 * An options argument: `undefined` (→ `{}`) or a plain object; anything else is refused with
 * `TRANSCRIPT_INVALID_ARGUMENT`, `where` naming it (e.g. `TranscriptPipeline: merge`).
 */
export function checkOptions<T extends object>(value: T | undefined, where: string): Partial<T> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TranscriptCoreError(
      'TRANSCRIPT_INVALID_ARGUMENT',
      `${where} must be an object, got ${describeValue(value)}`,
    );
  }
  return value;
}

/** A short, safe rendering of a value for an error message. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'function') return 'a function';
  return String(value);
}
