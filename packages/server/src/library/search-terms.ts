// How library texts are cut into index terms, and how a search box query becomes an FTS5 query.
//
// Chinese has no spaces, so words cannot be found by splitting on them. Every CJK character
// (Han, kana, Hangul) becomes one term: the pair it starts (`矩阵` for 矩 in 矩阵的秩), or the
// character alone when it ends its run of CJK text. Any CJK substring of two or more characters
// is then a phrase of consecutive pair terms, and one character is a prefix query — so 1-, 2-
// and n-character Chinese queries all use the index. Letters and digits of other scripts form
// words (one term each) that match by prefix, as a search box is expected to.
//
// The index stores these terms separated by spaces under FTS5's `ascii` tokenizer (spaces
// separate, every other byte belongs to a term), so the database never re-tokenizes and the
// same function cuts texts and queries.

/** One run of a text: CJK characters or a word. */
interface Run {
  cjk: boolean;
  chars: string[];
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const WORD = /[\p{L}\p{N}]/u;
const SEPARATOR = 0;
const WORD_CHAR = 1;
const CJK_CHAR = 2;

/**
 * Separator, word character or CJK character (written without spaces: Han ideographs, Japanese
 * kana, Hangul) of a code point. ASCII and the common CJK blocks are decided by range; the rest
 * by Unicode properties.
 */
function classify(code: number): number {
  if (code < 0x80) {
    return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) ? WORD_CHAR : SEPARATOR;
  }
  if (code >= 0x4e00 && code <= 0x9fff) return CJK_CHAR;
  if (code >= 0x3000 && code <= 0x303f) {
    return code === 0x3005 || code === 0x3007 ? CJK_CHAR : SEPARATOR;
  }
  if (code >= 0xff00 && code <= 0xffef) return SEPARATOR; // left by NFKC: full-width punctuation
  const char = String.fromCodePoint(code);
  if (CJK.test(char)) return CJK_CHAR;
  return WORD.test(char) ? WORD_CHAR : SEPARATOR;
}

function normalize(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

function runsOf(text: string): Run[] {
  const runs: Run[] = [];
  let current: Run | null = null;
  for (const char of normalize(text)) {
    const kind = classify(char.codePointAt(0)!);
    if (kind === SEPARATOR) {
      current = null;
      continue;
    }
    const cjk = kind === CJK_CHAR;
    if (!current || current.cjk !== cjk) {
      current = { cjk, chars: [] };
      runs.push(current);
    }
    current.chars.push(char);
  }
  return runs;
}

function termsOfRun(run: Run): string[] {
  if (!run.cjk) return [run.chars.join('')];
  return run.chars.map((char, index) => char + (run.chars[index + 1] ?? ''));
}

/**
 * The index terms of a text, separated by spaces (see the top of this file).
 *
 * @example
 * indexTerms('今天讲矩阵的秩 (rank)') // '今天 天讲 讲矩 矩阵 阵的 的秩 秩 rank'
 */
export function indexTerms(text: string): string {
  // One pass over UTF-16 code units, slicing terms out of the normalised text: this cuts every
  // line of every class, so it allocates no string per character.
  const normalized = normalize(text);
  const terms: string[] = [];
  let wordStart = -1;
  let cjkStart = -1; // start of the previous CJK character
  let index = 0;
  while (index < normalized.length) {
    const code = normalized.codePointAt(index)!;
    const width = code > 0xffff ? 2 : 1;
    const kind = classify(code);
    if (kind !== WORD_CHAR && wordStart !== -1) {
      terms.push(normalized.slice(wordStart, index));
      wordStart = -1;
    }
    if (kind === CJK_CHAR) {
      if (cjkStart !== -1) terms.push(normalized.slice(cjkStart, index + width));
      cjkStart = index;
    } else {
      if (cjkStart !== -1) terms.push(normalized.slice(cjkStart, index));
      cjkStart = -1;
      if (kind === WORD_CHAR && wordStart === -1) wordStart = index;
    }
    index += width;
  }
  if (wordStart !== -1) terms.push(normalized.slice(wordStart));
  if (cjkStart !== -1) terms.push(normalized.slice(cjkStart));
  return terms.join(' ');
}

/** One space-separated part of a search query; every part of a query must match. */
export interface QueryPart {
  /** The part, normalised (NFKC, lower case). */
  text: string;
  /** `cjk`: CJK characters only; `word`: one word; `mixed`: anything else. */
  kind: 'cjk' | 'word' | 'mixed';
  /** Its index terms as a phrase: consecutive, in order. */
  terms: string[];
  /** The last term matches by prefix (a word being typed, a single CJK character). */
  prefix: boolean;
  /** Its runs of CJK characters and words, for marking matches in a text. */
  runs: Array<{ cjk: boolean; text: string }>;
}

/**
 * Cuts a search box query into parts (separated by spaces; all must match). Each part is a
 * phrase of its terms: CJK characters as consecutive pairs, words by prefix (`mat` finds
 * `matrix`). Quotes and FTS5 operators typed by the user are plain text. Parts without a
 * letter or digit are dropped.
 *
 * @example
 * parseQuery('矩阵 rank').map((part) => part.terms) // [['矩阵'], ['rank']]
 */
export function parseQuery(query: string): QueryPart[] {
  const parts: QueryPart[] = [];
  for (const text of normalize(query).split(/\s+/u)) {
    const runs = runsOf(text);
    if (runs.length === 0) continue;
    const terms = runs.flatMap(termsOfRun);
    const last = runs[runs.length - 1]!;
    let prefix = true;
    // A part ending in two or more CJK characters: its last pair already holds the last
    // character, and whatever follows it in a text does not matter.
    if (last.cjk && last.chars.length >= 2) {
      terms.pop();
      prefix = false;
    }
    const kind = runs.length > 1 ? 'mixed' : runs[0]!.cjk ? 'cjk' : ('word' as const);
    parts.push({
      text,
      kind,
      terms,
      prefix,
      runs: runs.map((run) => ({ cjk: run.cjk, text: run.chars.join('') })),
    });
  }
  return parts;
}

/** The FTS5 phrase of a part (`"t1 t2"`, with `*` for a prefix). */
export function phraseOf(part: QueryPart): string {
  return `"${part.terms.join(' ')}"${part.prefix ? '*' : ''}`;
}

/** Text normalised as the index sees it: NFKC, lower case. */
export function normalizeForSearch(text: string): string {
  return normalize(text);
}

/** True when the code point belongs to a word (letters and digits of non-CJK scripts). */
export function isWordCode(code: number): boolean {
  return classify(code) === WORD_CHAR;
}
