// Keyword matching over one transcript line (issue 3 "Keywords"): linear in the line length
// whatever the number of keywords (Aho–Corasick), case- and width-insensitive (NFKC), English
// keywords on word boundaries, optional homophone tolerance for Chinese keywords (pinyin-pro).
import type { Keyword, KeywordLevel } from './keyword-file.ts';

/**
 * Homophone tolerance for Chinese keywords of two or more characters:
 * - `off` (default): characters must match.
 * - `pinyin`: same-sounding characters match (same toneless pinyin: 张珊 hears 张山).
 * - `fuzzy-pinyin`: also the common confusions of southern accents and recognisers:
 *   zh/z, ch/c, sh/s, n/l, h/f initials and ang/an, eng/en, ing/in finals (张三 hears 章珊).
 */
export type HomophoneMode = 'off' | 'pinyin' | 'fuzzy-pinyin';

/** Options of {@link createKeywordMatcher}. */
export interface KeywordMatcherOptions {
  /** Homophone tolerance; default `off`. */
  homophones?: HomophoneMode;
}

/** One keyword found in a line. */
export interface KeywordMatch {
  /** The keyword as listed. */
  keyword: string;
  level: KeywordLevel;
  /** How many times it occurs in the line (overlapping occurrences count). */
  count: number;
  /** True when only found through homophone tolerance (no exact occurrence). */
  homophone: boolean;
  /** What the line says there, e.g. `张珊` for the keyword `张三` (first occurrence). */
  matchedText: string;
}

/** A compiled keyword list. Immutable; build a new one to reload. */
export interface KeywordMatcher {
  readonly keywords: readonly Keyword[];
  readonly homophones: HomophoneMode;
  /**
   * The keywords found in `line`, in keyword-list order (alert level first). Runs in time
   * linear in the line length plus the number of matches.
   */
  match(line: string): KeywordMatch[];
}

/**
 * Compiles keywords into a {@link KeywordMatcher}. Plain strings are `alert` keywords.
 *
 * @example
 * const matcher = createKeywordMatcher([{ text: '张三', level: 'alert' }, { text: 'Exam', level: 'attention' }],
 *   { homophones: 'pinyin' });
 * matcher.match('张珊你来回答，the EXAM is next week');
 * // [{ keyword: '张三', level: 'alert', homophone: true, matchedText: '张珊', count: 1 },
 * //  { keyword: 'Exam', level: 'attention', homophone: false, matchedText: 'exam', count: 1 }]
 */
export function createKeywordMatcher(
  keywords: readonly (Keyword | string)[],
  options: KeywordMatcherOptions = {},
): KeywordMatcher {
  void keywords;
  void options;
  throw new Error('createKeywordMatcher: not implemented yet');
}
