// Text normalisation and the meaningfulness filter (README, "Filters and similarity").
// Pure functions; no I/O.
import { checkOptions, describeValue, TranscriptCoreError } from './errors.ts';

/** Options of {@link isMeaningful}. */
export interface MeaningfulOptions {
  /**
   * Fewest letters or digits (code points; a CJK character counts as one) a text needs to be
   * worth a transcript line. Default 2: drops `嗯`, `a`, `3`; keeps `好的`, `OK`, `12`.
   */
  minChars?: number;
  /**
   * Hesitation sounds: a text made of nothing but these (any case or width, any
   * punctuation) is not meaningful. Default {@link DEFAULT_FILLERS}; pass `[]` to keep them.
   */
  fillers?: readonly string[];
}

/** Hesitation sounds a speech recogniser transcribes that carry no content. */
export const DEFAULT_FILLERS: readonly string[] = Object.freeze([
  '嗯',
  '啊',
  '呃',
  '额',
  '哦',
  '噢',
  '喔',
  '唔',
  '哎',
  '唉',
  '诶',
  '欸',
  '哈',
  '嘿',
  '呀',
  'um',
  'umm',
  'uh',
  'uhm',
  'uhh',
  'er',
  'erm',
  'ah',
  'ahh',
  'hm',
  'hmm',
  'hmmm',
  'mm',
  'mhm',
  'oh',
  'ooh',
  'eh',
]);

// Characters that never belong in a transcript line: controls (whitespace ones are turned into
// spaces first), zero-width spaces, direction marks and the byte-order mark. The zero-width
// (non-)joiners stay: emoji sequences and some scripts need them.
const INVISIBLE = /[\p{Cc}\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\uFEFF]/gu;
const WHITESPACE_RUN = /\s+/gu;
// Scripts written without spaces, plus CJK punctuation. Hangul is left out on purpose: Korean
// separates words with spaces.
const UNSPACED =
  '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\u3000-\\u303F\\uFF01-\\uFF0F\\uFF1A-\\uFF20\\uFF3B-\\uFF40\\uFF5B-\\uFF65';
const SPACE_BETWEEN_UNSPACED = new RegExp(`(?<=[${UNSPACED}]) (?=[${UNSPACED}])`, 'gu');
const NOT_CONTENT = /[^\p{L}\p{N}]+/gu;
// Every step of normalizeText needs whitespace or an invisible character: most lines have neither.
const NEEDS_NORMALIZING = /[\s\p{Cc}\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\uFEFF]/u;

/**
 * Normalises recogniser output into one transcript line: removes invisible characters, turns
 * every run of whitespace (newlines included) into one space, trims, and removes the spaces
 * some recognisers (e.g. Vosk's Chinese models) put between CJK words. Case, width and
 * punctuation are kept: `，` stays `，`.
 *
 * @example
 * normalizeText('  今天 我们 讲\n线性代数 ')   // '今天我们讲线性代数'
 * normalizeText('Hello   world')             // 'Hello world'
 */
export function normalizeText(text: string): string {
  if (!NEEDS_NORMALIZING.test(text)) return text;
  return text
    .replace(WHITESPACE_RUN, ' ')
    .replace(INVISIBLE, '')
    .replace(WHITESPACE_RUN, ' ')
    .trim()
    .replace(SPACE_BETWEEN_UNSPACED, '');
}

/** Number of letters and digits in `text`, counted in code points. */
export function countContentChars(text: string): number {
  return codePointLength(text.replace(NOT_CONTENT, ''));
}

/**
 * Case- and width-insensitive form used for comparing and matching (NFKC, lower case,
 * normalised spacing). Not for display: NFKC turns `，` into `,`.
 */
export function foldText(text: string): string {
  return normalizeText(text.normalize('NFKC').toLowerCase());
}

/**
 * True when `text` is worth a transcript line: after normalisation it has at least `minChars`
 * letters or digits (CJK, Latin and digits all count) and is not only hesitation sounds.
 * Punctuation-only and empty texts are never meaningful.
 *
 * @example
 * isMeaningful('。。。')        // false
 * isMeaningful('嗯嗯，啊')       // false (fillers only)
 * isMeaningful('好的')          // true
 * isMeaningful('OK')            // true
 */
export function isMeaningful(text: string, options: MeaningfulOptions = {}): boolean {
  return isMeaningfulWith(text, resolveMeaningfulOptions(options, 'isMeaningful: options'));
}

/** {@link MeaningfulOptions} checked, with the filler words folded and longest first. */
export interface ResolvedMeaningfulOptions {
  readonly minChars: number;
  readonly fillerWords: readonly string[];
}

/**
 * Checks and resolves {@link MeaningfulOptions} once, so a malformed value fails where it is
 * given rather than on some later text. `where` prefixes the field names in messages.
 *
 * @throws TranscriptCoreError `TRANSCRIPT_INVALID_ARGUMENT` naming the field.
 */
export function resolveMeaningfulOptions(
  options: MeaningfulOptions | undefined,
  where: string,
): ResolvedMeaningfulOptions {
  const given = checkOptions(options, where);
  const minChars = given.minChars ?? 2;
  if (typeof minChars !== 'number' || !Number.isFinite(minChars) || minChars < 0) {
    throw invalidOption(`${where}.minChars must be a number ≥ 0, got ${describeValue(minChars)}`);
  }
  const fillers: unknown = given.fillers ?? DEFAULT_FILLERS;
  if (!Array.isArray(fillers)) {
    throw invalidOption(
      `${where}.fillers must be an array of strings, got ${describeValue(fillers)}`,
    );
  }
  fillers.forEach((filler: unknown, index) => {
    if (typeof filler !== 'string') {
      throw invalidOption(
        `${where}.fillers[${index}] must be a string, got ${describeValue(filler)}`,
      );
    }
  });
  const fillerWords = [
    ...new Set((fillers as string[]).map((filler) => foldText(filler)).filter(Boolean)),
  ].sort((a, b) => b.length - a.length);
  return { minChars, fillerWords };
}

/** {@link isMeaningful} with options already resolved by {@link resolveMeaningfulOptions}. */
function isMeaningfulWith(text: string, options: ResolvedMeaningfulOptions): boolean {
  return isFoldedMeaningful(foldText(text), options);
}

/** {@link isMeaningfulWith} for a text already folded with {@link foldText}. */
export function isFoldedMeaningful(folded: string, options: ResolvedMeaningfulOptions): boolean {
  const content = folded.replace(NOT_CONTENT, '');
  if (codePointLength(content) < Math.max(1, options.minChars)) return false;
  return !isFillersOnly(content, options.fillerWords);
}

/** Number of code points of `text` (a surrogate pair counts once). */
export function codePointLength(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
    count += 1;
  }
  return count;
}

// Greedy longest-first segmentation of the content characters into filler words.
function isFillersOnly(content: string, words: readonly string[]): boolean {
  if (words.length === 0) return false;
  let position = 0;
  outer: while (position < content.length) {
    for (const word of words) {
      if (content.startsWith(word, position)) {
        position += word.length;
        continue outer;
      }
    }
    return false;
  }
  return true;
}

function invalidOption(message: string): TranscriptCoreError {
  return new TranscriptCoreError('TRANSCRIPT_INVALID_ARGUMENT', message);
}

// Trailing characters ignored when comparing entries (。？！；!?;，,、 and spaces, as the original;
// after NFKC the full-width ones are already ASCII, the ideographic ones are listed here).
const TRAILING_IGNORED = /[。？！；!?;，,、\s]+$/u;

/**
 * The key two entries are compared by: {@link foldText}, then trailing sentence punctuation
 * and spaces removed.
 */
export function comparisonKey(text: string): string {
  return foldedComparisonKey(foldText(text));
}

/** {@link comparisonKey} of a text already folded with {@link foldText}. */
export function foldedComparisonKey(folded: string): string {
  return folded.replace(TRAILING_IGNORED, '');
}

const SENTENCE_END = /[。？！；!?;.…][」』”"’'）)\]]*$/u;

/**
 * True when `text` ends like a finished sentence or clause (。？！；.?!; …), optionally followed
 * by closing quotes or brackets.
 */
export function endsSentence(text: string): boolean {
  return SENTENCE_END.test(text.trimEnd());
}
