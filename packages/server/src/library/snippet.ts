// Where a query matched in a text: the ranges to mark, a relevance score, the snippet shown in
// search results. Pure functions over strings; the index finds the texts, these explain them.
import { isWordCode, normalizeForSearch, type QueryPart } from './search-terms.ts';

/** A text normalised as the index sees it, with the position in the original of each unit. */
interface MappedText {
  normalized: string;
  /** `origin[i]`: offset in the original text of normalised code unit `i` (one extra: the end). */
  origin: number[];
}

function mapText(text: string): MappedText {
  let normalized = '';
  const origin: number[] = [];
  for (let index = 0; index < text.length; ) {
    const code = text.codePointAt(index)!;
    const width = code > 0xffff ? 2 : 1;
    const piece = normalizeForSearch(String.fromCodePoint(code));
    for (let unit = 0; unit < piece.length; unit += 1) origin.push(index);
    normalized += piece;
    index += width;
  }
  origin.push(text.length);
  return { normalized, origin };
}

/** Start offsets of `needle` in `haystack`; words only where a word starts. */
function occurrences(haystack: string, needle: string, wordStart: boolean): number[] {
  const found: number[] = [];
  if (needle === '') return found;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    if (wordStart && at > 0) {
      const before = haystack.codePointAt(at - 1)!;
      const previous =
        before >= 0xdc00 && before <= 0xdfff && at > 1 ? haystack.codePointAt(at - 2)! : before;
      if (isWordCode(previous)) continue;
    }
    found.push(at);
  }
  return found;
}

/** The matches of a query in one text. */
export interface TextMatches {
  /** Ranges `[start, end)` in the original text, sorted, not overlapping. */
  ranges: Array<[number, number]>;
  /** How often each part of the query occurs (by its first run). */
  counts: number[];
}

/**
 * Finds every run of every query part in `text` (CJK runs anywhere, words where a word starts)
 * and returns the ranges to mark in the original text.
 *
 * @example
 * findMatches('今天讲矩阵的秩', parseQuery('矩阵')).ranges // [[3, 5]]
 */
export function findMatches(text: string, parts: readonly QueryPart[]): TextMatches {
  const { normalized, origin } = mapText(text);
  const raw: Array<[number, number]> = [];
  const counts = parts.map((part) => {
    let count = 0;
    part.runs.forEach((run, position) => {
      const starts = occurrences(normalized, run.text, !run.cjk);
      if (position === 0) count = starts.length;
      for (const start of starts) {
        raw.push([origin[start]!, origin[start + run.text.length] ?? text.length]);
      }
    });
    return count;
  });
  raw.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const ranges: Array<[number, number]> = [];
  for (const range of raw) {
    const last = ranges[ranges.length - 1];
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else ranges.push([...range]);
  }
  return { ranges, counts };
}

/**
 * How often each part occurs in `normalized` (a text through `normalizeForSearch`): CJK parts
 * as substrings, words where a word starts — exactly what the index's phrase queries match for
 * such parts. Mixed parts (CJK and words in one part) count their first run.
 */
export function countMatches(normalized: string, parts: readonly QueryPart[]): number[] {
  return parts.map((part) => {
    if (part.kind === 'cjk') return occurrences(normalized, part.text, false).length;
    const first = part.runs[0]!;
    return occurrences(normalized, first.text, !first.cjk).length;
  });
}

// BM25's term-frequency saturation and length normalisation (k1 = 1.2, b = 0.75).
const K1 = 1.2;
const B = 0.75;

/**
 * Relevance of a text that matched: for each part, its occurrences saturated as in BM25 and
 * weighed by the text's length against a typical one. Every candidate contains every part, so
 * the parts' rarity weighs the same for all and is left out.
 */
export function relevance(
  counts: readonly number[],
  length: number,
  typicalLength: number,
): number {
  const norm = K1 * (1 - B + (B * length) / typicalLength);
  let score = 0;
  for (const count of counts) {
    const tf = Math.max(count, 1);
    score += (tf * (K1 + 1)) / (tf + norm);
  }
  return score;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (char) => ESCAPES[char]!);

/** Marker of a match in a snippet: the text is HTML-escaped, matches are in `<mark>…</mark>`. */
export const MARK_OPEN = '<mark>';
export const MARK_CLOSE = '</mark>';

/**
 * The snippet of a search hit: the text (or, when longer than `width` characters, a window
 * around its first match with `…` where it was cut), HTML-escaped, matches in `<mark>`.
 *
 * @example
 * snippet('今天讲矩阵的秩', [[3, 5]]) // '今天讲<mark>矩阵</mark>的秩'
 */
export function snippet(
  text: string,
  ranges: ReadonlyArray<[number, number]>,
  width = 120,
): string {
  const clean = text.replace(/\s+/g, ' ');
  // Whitespace runs shrink: map ranges onto the cleaned text by replaying the replacement.
  const shift: number[] = [];
  let cleanIndex = 0;
  for (let index = 0; index < text.length; index += 1) {
    shift.push(cleanIndex);
    const isSpace = /\s/.test(text[index]!);
    if (!isSpace || index === 0 || !/\s/.test(text[index - 1]!)) cleanIndex += 1;
  }
  shift.push(cleanIndex);
  const marks = ranges.map(([start, end]) => [shift[start]!, shift[end]!] as const);
  let from = 0;
  let to = clean.length;
  if (clean.length > width) {
    const first = marks[0]?.[0] ?? 0;
    from = Math.max(0, Math.min(first - Math.floor(width / 4), clean.length - width));
    to = Math.min(clean.length, from + width);
    // Never cut a surrogate pair.
    if (from > 0 && /[\udc00-\udfff]/.test(clean[from]!)) from -= 1;
    if (to < clean.length && /[\udc00-\udfff]/.test(clean[to]!)) to += 1;
  }
  let result = from > 0 ? '…' : '';
  let position = from;
  for (const [start, end] of marks) {
    if (end <= from || start >= to) continue;
    const markStart = Math.max(start, from);
    const markEnd = Math.min(end, to);
    result += escapeHtml(clean.slice(position, markStart));
    result += MARK_OPEN + escapeHtml(clean.slice(markStart, markEnd)) + MARK_CLOSE;
    position = markEnd;
  }
  result += escapeHtml(clean.slice(position, to));
  if (to < clean.length) result += '…';
  return result.trim();
}
