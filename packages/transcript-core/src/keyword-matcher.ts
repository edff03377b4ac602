// Keyword matching over one transcript line (README, "Keywords"): linear in the line length
// whatever the number of keywords (Aho–Corasick), case- and width-insensitive (NFKC), English
// keywords on word boundaries, optional homophone tolerance for Chinese keywords (pinyin-pro).
import { AhoCorasick } from './aho-corasick.ts';
import { checkOptions, TranscriptCoreError } from './errors.ts';
import { type PinyinPro, pinyinPro } from './homophone-support.ts';
import type { Keyword, KeywordLevel } from './keyword-file.ts';
import { foldText } from './text.ts';

/**
 * Homophone tolerance for Chinese keywords of two or more characters:
 * - `off` (default): characters must match.
 * - `pinyin`: same-sounding characters match (same toneless pinyin, any reading of a
 *   polyphonic character): the keyword 张三 also matches 章三 or 张叁.
 * - `fuzzy-pinyin`: also the confusions common in southern accents and recognisers: zh/z,
 *   ch/c, sh/s, n/l, f/h initials and ang/an, eng/en, ing/in finals: 张三 also matches 张珊.
 */
export type HomophoneMode = 'off' | 'pinyin' | 'fuzzy-pinyin';

/** Options of {@link createKeywordMatcher}. */
export interface KeywordMatcherOptions {
  /** Homophone tolerance; default `off`. */
  homophones?: HomophoneMode;
}

/**
 * A keyword as {@link createKeywordMatcher} takes it: a {@link Keyword}, optionally marked as the
 * listener's own or as matched by its characters only.
 */
export interface MatcherKeyword extends Keyword {
  /**
   * The keyword names the listener (their name, their student number): its matches are
   * `personal`, and an alert holding one is meant for them.
   */
  personal?: boolean;
  /**
   * `false`: matched by its characters only, whatever the matcher's homophone mode. For words
   * whose sound is everyday speech, like numbers (四十 sounds like 是什…, 意思是).
   */
  homophones?: boolean;
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
  /** The keyword was given as `personal` (the listener's own name or number). */
  personal: boolean;
}

/** A compiled keyword list. Immutable; build a new one to reload. */
export interface KeywordMatcher {
  /** The keywords, de-duplicated; `personal: true` on the listener's own. */
  readonly keywords: readonly (Keyword & { personal?: true })[];
  readonly homophones: HomophoneMode;
  /**
   * The keywords found in `line`, in keyword-list order (alert level first). Runs in time
   * linear in the line length plus the number of matches.
   */
  match(line: string): KeywordMatch[];
}

/**
 * Compiles keywords into a {@link KeywordMatcher}. Plain strings are `alert` keywords. A keyword
 * listed twice keeps the higher level, is personal when either is, and matches by sound unless
 * both say `homophones: false`.
 *
 * @example
 * const matcher = createKeywordMatcher([{ text: '张三', level: 'alert' }, { text: 'Exam', level: 'attention' }],
 *   { homophones: 'pinyin' });
 * matcher.match('章三你来回答，the EXAM is next week');
 * // [{ keyword: '张三', level: 'alert', homophone: true, matchedText: '章三', count: 1, personal: false },
 * //  { keyword: 'Exam', level: 'attention', homophone: false, matchedText: 'exam', count: 1, personal: false }]
 */
export function createKeywordMatcher(
  keywords: readonly (MatcherKeyword | string)[],
  options: KeywordMatcherOptions = {},
): KeywordMatcher {
  const homophones = checkOptions(options, 'createKeywordMatcher: options').homophones ?? 'off';
  if (homophones !== 'off' && homophones !== 'pinyin' && homophones !== 'fuzzy-pinyin') {
    throw new TranscriptCoreError(
      'TRANSCRIPT_INVALID_ARGUMENT',
      `createKeywordMatcher: homophones must be "off", "pinyin" or "fuzzy-pinyin", got ${JSON.stringify(homophones)}`,
    );
  }
  const list = compileKeywords(keywords);
  const exact = new AhoCorasick(list.map((keyword) => codePoints(keyword.folded)));
  const sounds = homophones === 'off' ? null : new SoundIndex(list, homophones === 'fuzzy-pinyin');
  const frozen = Object.freeze(
    list.map(({ text, level, personal }) =>
      Object.freeze(personal ? { text, level, personal: true as const } : { text, level }),
    ),
  );

  return Object.freeze({
    keywords: frozen,
    homophones,
    match(line: string): KeywordMatch[] {
      const folded = [...foldText(line)];
      const symbols = folded.map((char) => char.codePointAt(0)!);
      // Only keywords that occur are touched: the work is linear in the line and the matches,
      // never in the number of keywords.
      const found = new Map<number, { count: number; text: string }>();
      exact.search(symbols, (id, end) => {
        const keyword = list[id]!;
        const start = end - keyword.length + 1;
        if (keyword.boundedStart && isWordChar(folded[start - 1])) return;
        if (keyword.boundedEnd && isWordChar(folded[end + 1])) return;
        const hit = found.get(id);
        if (hit) hit.count += 1;
        else found.set(id, { count: 1, text: folded.slice(start, end + 1).join('') });
      });
      const heard = sounds?.count(folded);
      const ids = new Set([...found.keys(), ...(heard?.keys() ?? [])]);
      const result: Array<KeywordMatch & { id: number }> = [];
      for (const id of ids) {
        const keyword = list[id]!;
        const exactHit = found.get(id);
        const soundHit = heard?.get(id);
        result.push({
          id,
          keyword: keyword.text,
          level: keyword.level,
          count: Math.max(exactHit?.count ?? 0, soundHit?.count ?? 0),
          homophone: exactHit === undefined,
          matchedText: exactHit?.text ?? soundHit!.text,
          personal: keyword.personal,
        });
      }
      result.sort((a, b) => levelRank(a.level) - levelRank(b.level) || a.id - b.id);
      return result.map(({ id: _id, ...match }) => match);
    },
  });
}

interface CompiledKeyword extends Keyword {
  personal: boolean;
  /** Matched by sound too (when the matcher's mode allows). */
  bySound: boolean;
  folded: string;
  /** Code points of `folded`. */
  length: number;
  /** Latin-like first/last character: the match must not continue a word there. */
  boundedStart: boolean;
  boundedEnd: boolean;
}

const levelRank = (level: KeywordLevel) => (level === 'alert' ? 0 : 1);
const codePoints = (text: string) => [...text].map((char) => char.codePointAt(0)!);
// Characters of scripts written with spaces between words (Latin, Greek, Cyrillic, Hangul…)
// and digits; CJK characters are excluded, so 'Tom' matches in 'Tom你来' but not 'tomorrow'.
const isWordChar = (char: string | undefined) =>
  char !== undefined && /[\p{L}\p{N}]/u.test(char) && !HAN_OR_KANA.test(char);
const HAN_OR_KANA = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HAN = /^\p{Script=Han}$/u;

function compileKeywords(keywords: readonly (MatcherKeyword | string)[]): CompiledKeyword[] {
  if (!Array.isArray(keywords)) {
    throw new TranscriptCoreError(
      'TRANSCRIPT_INVALID_ARGUMENT',
      'createKeywordMatcher: keywords must be an array of strings or { text, level } objects',
    );
  }
  const byFolded = new Map<string, CompiledKeyword>();
  keywords.forEach((item, index) => {
    const keyword: MatcherKeyword =
      typeof item === 'string' ? { text: item, level: 'alert' as const } : item;
    if (
      typeof keyword?.text !== 'string' ||
      (keyword.level !== 'alert' && keyword.level !== 'attention') ||
      (keyword.personal !== undefined && typeof keyword.personal !== 'boolean') ||
      (keyword.homophones !== undefined && typeof keyword.homophones !== 'boolean')
    ) {
      throw new TranscriptCoreError(
        'TRANSCRIPT_INVALID_ARGUMENT',
        `createKeywordMatcher: keywords[${index}] must be a string or { text: string, level: "alert" | "attention", personal?: boolean, homophones?: boolean }, got ${JSON.stringify(item)}`,
      );
    }
    const folded = foldText(keyword.text);
    if (folded === '') return;
    const personal = keyword.personal === true;
    const bySound = keyword.homophones !== false;
    const earlier = byFolded.get(folded);
    if (earlier) {
      if (keyword.level === 'alert') earlier.level = 'alert';
      earlier.personal ||= personal;
      earlier.bySound ||= bySound;
      return;
    }
    const chars = [...folded];
    byFolded.set(folded, {
      text: keyword.text.trim(),
      level: keyword.level,
      personal,
      bySound,
      folded,
      length: chars.length,
      boundedStart: isWordChar(chars[0]),
      boundedEnd: isWordChar(chars[chars.length - 1]),
    });
  });
  return [...byFolded.values()];
}

// Pinyin of a string, one reading per code point ('' for non-Chinese), in context. Only the
// runs of Han characters are converted (much faster than converting the whole line).
const HAN_RUN = /\p{Script=Han}+/gu;
const SYLLABLE = /^[a-z]+$/u;
function contextualPinyin({ pinyin }: PinyinPro, chars: readonly string[]): string[] {
  const readings = new Array<string>(chars.length).fill('');
  const text = chars.join('');
  // Code-point index of each UTF-16 offset where a run starts.
  let position = 0;
  let offset = 0;
  for (const run of text.matchAll(HAN_RUN)) {
    while (offset < run.index) {
      offset += chars[position]!.length;
      position += 1;
    }
    const runChars = [...run[0]];
    let syllables = pinyin(run[0], { type: 'array', toneType: 'none', v: true });
    if (syllables.length !== runChars.length) {
      // Defensive: realign through the per-character form if the library grouped characters.
      syllables = pinyin(run[0], { type: 'all', toneType: 'none', v: true }).flatMap((item) =>
        [...item.origin].map((_, index) => (index === 0 ? item.pinyin : '')),
      );
    }
    runChars.forEach((_, index) => {
      const syllable = syllables[index] ?? '';
      readings[position + index] = SYLLABLE.test(syllable) ? syllable : '';
    });
  }
  return readings;
}

// All toneless readings of one character (polyphones), ü written v.
function allReadings({ pinyin }: PinyinPro, char: string): string[] {
  const [item] = pinyin(char, { type: 'all', toneType: 'none', v: true, multiple: true });
  const readings = new Set<string>();
  if (item?.pinyin) readings.add(item.pinyin);
  for (const reading of item?.polyphonic ?? []) {
    const plain = reading
      .replace(/[üǖǘǚǜ]/gu, 'v')
      .normalize('NFD')
      .replace(/\p{M}/gu, '');
    if (SYLLABLE.test(plain)) readings.add(plain);
  }
  return [...readings];
}

// Folds syllables that southern accents and recognisers confuse onto one form.
function fuzzySyllable(syllable: string): string {
  return syllable
    .replace(/^([zcs])h/u, '$1')
    .replace(/^n(?=[a-z])/u, 'l')
    .replace(/^f/u, 'h')
    .replace(/([aei])ng$/u, '$1n');
}

const MAX_VARIANTS = 32;

// Homophone index: Chinese keywords as sequences of syllable ids, every polyphone reading
// combination (up to MAX_VARIANTS, else the contextual reading only), in one automaton.
//
// Converting a line to pinyin in context is most of the cost of matching it, so it is only done
// when the line could hold a keyword's sound: when two neighbouring Han characters can be read
// (by any of the readings pinyin-pro lists for them) as two neighbouring syllables of a keyword.
// The contextual reading of a character is one of its listed readings — except in a handful of
// classical dictionary words (阿房宫 reads 房 as páng), which therefore do not match a keyword by
// that reading.
class SoundIndex {
  readonly #pinyin: PinyinPro;
  readonly #syllables = new Map<string, number>();
  readonly #automaton: AhoCorasick;
  readonly #owner: number[] = [];
  readonly #fuzzy: boolean;
  /** `first * #pairBase + second` for each pair of syllables adjacent in a keyword. */
  readonly #pairs = new Set<number>();
  readonly #pairBase: number;
  /** Per Han character seen: the ids of the keyword syllables it can be read as. */
  readonly #readable = new Map<string, readonly number[]>();

  constructor(keywords: readonly CompiledKeyword[], fuzzy: boolean) {
    this.#pinyin = pinyinPro();
    this.#fuzzy = fuzzy;
    const patterns: number[][] = [];
    keywords.forEach((keyword, id) => {
      const chars = [...keyword.folded];
      if (!keyword.bySound || chars.length < 2 || !chars.every((char) => HAN.test(char))) return;
      const context = contextualPinyin(this.#pinyin, chars);
      let variants: string[][] = [[]];
      for (const [index, char] of chars.entries()) {
        const readings = [
          ...new Set([context[index]!, ...allReadings(this.#pinyin, char)].filter(Boolean)),
        ];
        variants = variants.flatMap((prefix) => readings.map((reading) => [...prefix, reading]));
        if (variants.length > MAX_VARIANTS) {
          variants = [context];
          break;
        }
      }
      const seen = new Set<string>();
      for (const variant of variants) {
        const ids = variant.map((syllable) => this.#id(syllable, true)!);
        const key = ids.join(',');
        if (seen.has(key)) continue;
        seen.add(key);
        patterns.push(ids);
        this.#owner.push(id);
      }
    });
    this.#automaton = new AhoCorasick(patterns);
    this.#pairBase = this.#syllables.size;
    for (const pattern of patterns) {
      for (let index = 1; index < pattern.length; index += 1) {
        this.#pairs.add(pattern[index - 1]! * this.#pairBase + pattern[index]!);
      }
    }
  }

  #id(syllable: string, create: boolean): number | undefined {
    const key = this.#fuzzy ? fuzzySyllable(syllable) : syllable;
    let id = this.#syllables.get(key);
    if (id === undefined && create) {
      id = this.#syllables.size;
      this.#syllables.set(key, id);
    }
    return id;
  }

  /** Occurrences per keyword id (variants of one keyword ending at one place count once). */
  count(chars: readonly string[]): Map<number, { count: number; text: string }> {
    const found = new Map<number, { count: number; text: string; lastEnd: number }>();
    if (this.#owner.length === 0 || !this.#mayMatch(chars)) return found;
    // A syllable no keyword uses can never be part of a match: -1 resets the automaton.
    const symbols = contextualPinyin(this.#pinyin, chars).map((reading) =>
      reading === '' ? -1 : (this.#id(reading, false) ?? -1),
    );
    this.#automaton.search(symbols, (pattern, end) => {
      const id = this.#owner[pattern]!;
      const length = this.#automaton.patternLength(pattern);
      const entry = found.get(id);
      if (entry) {
        if (entry.lastEnd !== end) {
          entry.count += 1;
          entry.lastEnd = end;
        }
      } else {
        found.set(id, {
          count: 1,
          text: chars.slice(end - length + 1, end + 1).join(''),
          lastEnd: end,
        });
      }
    });
    return found;
  }

  // Whether two neighbouring characters can be read as two neighbouring keyword syllables.
  #mayMatch(chars: readonly string[]): boolean {
    this.#learn(chars);
    let previous = NO_SYLLABLES;
    for (const char of chars) {
      const current = this.#readable.get(char) ?? NO_SYLLABLES;
      for (const first of previous) {
        for (const second of current) {
          if (this.#pairs.has(first * this.#pairBase + second)) return true;
        }
      }
      previous = current;
    }
    return false;
  }

  // Looks up the readings of the Han characters not seen before, all in one call (other
  // characters are remembered as having none).
  #learn(chars: readonly string[]): void {
    let unseen = '';
    for (const char of chars) {
      if (this.#readable.has(char)) continue;
      if (HAN.test(char)) {
        if (!unseen.includes(char)) unseen += char;
      } else {
        this.#readable.set(char, NO_SYLLABLES);
      }
    }
    if (unseen === '') return;
    const lists = this.#pinyin.polyphonic(unseen, { type: 'array', toneType: 'none', v: true });
    [...unseen].forEach((char, index) => {
      const ids = new Set<number>();
      for (const reading of lists[index] ?? []) {
        const id = SYLLABLE.test(reading) ? this.#id(reading, false) : undefined;
        if (id !== undefined) ids.add(id);
      }
      this.#readable.set(char, ids.size > 0 ? [...ids] : NO_SYLLABLES);
    });
  }
}

const NO_SYLLABLES: readonly number[] = [];
