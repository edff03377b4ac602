// The near-duplicate filter: drops repeated sentences and similar corrections of a recent entry.
// Defaults are those of the product this one replaces; every threshold is an option.
import { checkOptions, describeValue, TranscriptCoreError } from './errors.ts';
import {
  type CountedSequence,
  countSequence,
  type PreparedSequence,
  preparedQuickRatio,
  preparedRatio,
  prepareSequence,
} from './similarity.ts';
import { codePointLength, comparisonKey, foldedComparisonKey } from './text.ts';

/** Options of {@link isNearDuplicate} / {@link findNearDuplicate}. */
export interface NearDuplicateOptions {
  /** How many of the most recent entries to compare with. Default 8. */
  window?: number;
  /** Containment counts when shorter / longer length ≥ this. Default 0.8. */
  containmentRatio?: number;
  /** Containment needs both texts at least this long (code points). Default 4. */
  containmentMinChars?: number;
  /** `similarityRatio(text, entry)` at or above this is a duplicate. Default 0.88. */
  similarityThreshold?: number;
  /** Similarity needs both texts at least this long (code points). Default 6. */
  similarityMinChars?: number;
}

/** Why {@link findNearDuplicate} judged a text a duplicate, and of which entry. */
export interface NearDuplicateMatch {
  /** The earlier entry the text duplicates, as given. */
  entry: string;
  /** Its index in the `recentEntries` array passed in. */
  index: number;
  /** `equal`, `contained` (one contains the other) or `similar` (difflib ratio). */
  kind: 'equal' | 'contained' | 'similar';
  /** difflib ratio of the compared forms (1 for `equal`). */
  ratio: number;
}

/** {@link NearDuplicateOptions} checked, every default filled in. */
export interface ResolvedOptions {
  window: number;
  containmentRatio: number;
  containmentMinChars: number;
  similarityThreshold: number;
  similarityMinChars: number;
}

/** Checks and fills in {@link NearDuplicateOptions}; throws on a malformed value. */
export function resolveNearDuplicateOptions(
  options: NearDuplicateOptions | undefined,
  where = 'nearDuplicate',
): ResolvedOptions {
  options = checkOptions(options, `${where} options`);
  const resolved: ResolvedOptions = {
    window: options.window ?? 8,
    containmentRatio: options.containmentRatio ?? 0.8,
    containmentMinChars: options.containmentMinChars ?? 4,
    similarityThreshold: options.similarityThreshold ?? 0.88,
    similarityMinChars: options.similarityMinChars ?? 6,
  };
  for (const [name, value] of Object.entries(resolved)) {
    const isRatio = name === 'containmentRatio' || name === 'similarityThreshold';
    const valid = isRatio
      ? Number.isFinite(value) && value >= 0 && value <= 1
      : Number.isInteger(value) && value >= 0;
    if (!valid) {
      throw new TranscriptCoreError(
        'TRANSCRIPT_INVALID_ARGUMENT',
        `nearDuplicate.${name} must be ${isRatio ? 'a number in [0, 1]' : 'an integer ≥ 0'}, got ${String(value)}`,
      );
    }
  }
  return resolved;
}

/**
 * Finds the recent entry `text` repeats, or `null`. Compared are the last `window` entries
 * (default 8), newest first, after {@link normalizeText}, NFKC, lower-casing and removing
 * trailing `。？！；!?;，,、` and spaces. A text is a near-duplicate of an entry when:
 * they are equal; or one contains the other, both have ≥ 4 code points and shorter / longer
 * ≥ 0.8; or both have ≥ 6 code points and `similarityRatio(text, entry)` ≥ 0.88.
 *
 * @example
 * findNearDuplicate('今天我们来讲线性代数。', ['今天我们讲线性代数'])
 * // { entry: '今天我们讲线性代数', index: 0, kind: 'similar', ratio: 0.947… }
 */
export function findNearDuplicate(
  text: string,
  recentEntries: readonly string[],
  options: NearDuplicateOptions = {},
): NearDuplicateMatch | null {
  const settings = resolveNearDuplicateOptions(options, 'findNearDuplicate');
  if (typeof text !== 'string') {
    throw new TranscriptCoreError(
      'TRANSCRIPT_INVALID_ARGUMENT',
      `findNearDuplicate: text must be a string, got ${describeValue(text)}`,
    );
  }
  if (!Array.isArray(recentEntries)) {
    throw new TranscriptCoreError(
      'TRANSCRIPT_INVALID_ARGUMENT',
      `findNearDuplicate: recentEntries must be an array of strings, got ${describeValue(recentEntries)}`,
    );
  }
  // Only the compared window has to hold strings.
  for (
    let index = Math.max(0, recentEntries.length - settings.window);
    index < recentEntries.length;
    index += 1
  ) {
    const entry: unknown = recentEntries[index];
    if (typeof entry !== 'string') {
      throw new TranscriptCoreError(
        'TRANSCRIPT_INVALID_ARGUMENT',
        `findNearDuplicate: recentEntries[${index}] must be a string, got ${describeValue(entry)}`,
      );
    }
  }
  return nearDuplicateOfKey(comparisonKey(text), recentEntries, settings);
}

/**
 * {@link findNearDuplicate} for a text already turned into its comparison key (`comparisonKey`)
 * and checked options: what the pipeline calls once per line.
 */
export function nearDuplicateOfKey(
  key: string,
  recentEntries: readonly string[],
  settings: ResolvedOptions,
): NearDuplicateMatch | null {
  if (key === '') return null;
  const keyLength = codePointLength(key);
  // Counted on first need: most recent entries are ruled out by their length alone.
  let counted: CountedSequence | null = null;
  const query = () => {
    counted ??= countSequence(key);
    return counted;
  };
  const first = Math.max(0, recentEntries.length - settings.window);
  for (let index = recentEntries.length - 1; index >= first; index -= 1) {
    const entry = recentEntries[index]!;
    const prepared = preparedEntry(entry);
    const other = prepared.key;
    const otherLength = prepared.sequence.points.length;
    if (otherLength === 0) continue;
    if (key === other) return { entry, index, kind: 'equal', ratio: 1 };
    const shorter = Math.min(keyLength, otherLength);
    const longer = Math.max(keyLength, otherLength);
    if (
      shorter >= settings.containmentMinChars &&
      shorter / longer >= settings.containmentRatio &&
      (key.includes(other) || other.includes(key))
    ) {
      return {
        entry,
        index,
        kind: 'contained',
        ratio: preparedRatio(query().points, prepared.sequence),
      };
    }
    // The full ratio only where its upper bounds (length, then shared characters) reach the
    // threshold: the same decisions, without the quadratic matching for unrelated sentences.
    if (
      shorter >= settings.similarityMinChars &&
      (2 * shorter) / (keyLength + otherLength) >= settings.similarityThreshold &&
      preparedQuickRatio(query(), prepared.sequence) >= settings.similarityThreshold
    ) {
      const ratio = preparedRatio(query().points, prepared.sequence);
      if (ratio >= settings.similarityThreshold) return { entry, index, kind: 'similar', ratio };
    }
  }
  return null;
}

/**
 * True when `text` repeats or merely corrects one of the last `window` entries; see
 * {@link findNearDuplicate} for the exact rule.
 *
 * @example
 * isNearDuplicate('Please open your books.', ['please open your books'])  // true
 * isNearDuplicate('请翻到第42页', ['请翻到第24页'])                         // false (< 0.88)
 */
export function isNearDuplicate(
  text: string,
  recentEntries: readonly string[],
  options: NearDuplicateOptions = {},
): boolean {
  return findNearDuplicate(text, recentEntries, options) !== null;
}

// The recent entries are compared again with every new line: keep each one's comparison key,
// prepared for the ratios. A small insertion-ordered cache; the oldest goes when it is full.
const CACHE_SIZE = 256;
const cache = new Map<string, { key: string; sequence: PreparedSequence }>();

/**
 * Prepares a text that is about to become a recent entry, so that the next line's comparison
 * finds it ready (the pipeline calls it while the entry's fdatasync runs).
 */
export function rememberRecentEntry(text: string, folded?: string): void {
  preparedEntry(text, folded);
}

/** The comparison key (`comparisonKey`) of a recent entry, from the same cache. */
export function recentEntryKey(text: string): string {
  return preparedEntry(text).key;
}

function preparedEntry(text: string, folded?: string): { key: string; sequence: PreparedSequence } {
  let prepared = cache.get(text);
  if (prepared === undefined) {
    const key = folded === undefined ? comparisonKey(text) : foldedComparisonKey(folded);
    prepared = { key, sequence: prepareSequence(key) };
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(text, prepared);
  }
  return prepared;
}
