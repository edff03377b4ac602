// A faithful port of Python's difflib.SequenceMatcher (isjunk=None, autojunk=True) over code
// points: the same longest-matching-block recursion, the same tie-breaking, the same "popular
// element" rule for sequences of 200 or more, so `similarityRatio(a, b)` returns exactly
// `SequenceMatcher(None, a, b).ratio()`. This is not an LCS: difflib's answer is what the
// product this one replaces used for its thresholds, so the thresholds keep their meaning.

/** One matching block: `a[a..a+size)` equals `b[b..b+size)` (code-point indices). */
export interface MatchingBlock {
  a: number;
  b: number;
  size: number;
}

/**
 * Similarity of two strings in [0, 1], equal to Python's
 * `difflib.SequenceMatcher(None, a, b).ratio()` — including its "autojunk" heuristic (when `b`
 * has 200 or more characters, characters making up more than 1 % of it are not used to start a
 * match). Strings are compared by Unicode code points, as Python does. Note that difflib's
 * ratio is not always symmetric: `similarityRatio(a, b)` may differ from
 * `similarityRatio(b, a)`.
 *
 * @example
 * similarityRatio('今天我们讲线性代数', '今天我们来讲线性代数')  // 0.947…
 * similarityRatio('abc', 'abc')                               // 1
 * similarityRatio('', '')                                     // 1
 */
export function similarityRatio(a: string, b: string | PreparedSequence): number {
  return preparedRatio(toCodePoints(a), typeof b === 'string' ? prepareSequence(b) : b);
}

/** {@link similarityRatio} of `a`'s code points against a prepared `b`. */
export function preparedRatio(a: readonly number[], b: PreparedSequence): number {
  const total = a.length + b.points.length;
  if (total === 0) return 1;
  let matches = 0;
  for (const block of rawMatchingBlocks(a, b.points, b.positions)) matches += block.size;
  return (2 * matches) / total;
}

/**
 * A string prepared for repeated comparisons as the second argument (`b`) of the ratios: its code
 * points, how often each occurs, and difflib's index of where each occurs. Building these is
 * most of the cost of comparing short strings; a caller comparing new text against the same
 * recent entries again and again prepares each entry once.
 */
export interface PreparedSequence {
  readonly points: readonly number[];
  readonly counts: ReadonlyMap<number, number>;
  readonly positions: ReadonlyMap<number, readonly number[]>;
}

/** Prepares `text` as the `b` side of {@link similarityRatio} and {@link quickRatio}. */
export function prepareSequence(text: string): PreparedSequence {
  const counted = countSequence(text);
  return { ...counted, positions: indexPositions(counted.points) };
}

/** A string's code points and how often each occurs (what {@link preparedQuickRatio} needs). */
export interface CountedSequence {
  readonly points: readonly number[];
  readonly counts: ReadonlyMap<number, number>;
}

/** Counts `text`'s code points (the `a` side of the ratios needs no position index). */
export function countSequence(text: string): CountedSequence {
  const points = toCodePoints(text);
  const counts = new Map<number, number>();
  for (const point of points) counts.set(point, (counts.get(point) ?? 0) + 1);
  return { points, counts };
}

/**
 * An upper bound of {@link similarityRatio}, difflib's `quick_ratio()`: twice the size of the
 * multiset intersection of the two strings' code points over their total length. Cheap (linear)
 * and never below the real ratio, so a pair whose bound is under a threshold can be skipped
 * without changing any decision. `b` may be a {@link prepareSequence} result.
 *
 * @example
 * quickRatio('请翻到第42页', '今天讲秩') // 0: no common character, no need for the full ratio
 */
export function quickRatio(a: string, b: string | PreparedSequence): number {
  return preparedQuickRatio(countSequence(a), typeof b === 'string' ? countSequence(b) : b);
}

/** {@link quickRatio} of two prepared sequences (the order does not matter). */
export function preparedQuickRatio(a: CountedSequence, b: CountedSequence): number {
  const total = a.points.length + b.points.length;
  if (total === 0) return 1;
  let matches = 0;
  for (const [point, count] of a.counts) {
    const other = b.counts.get(point);
    if (other !== undefined) matches += Math.min(count, other);
  }
  return (2 * matches) / total;
}

/**
 * The matching blocks difflib's `get_matching_blocks()` returns: sorted, adjacent blocks
 * collapsed, and the final `{ a: len(a), b: len(b), size: 0 }` sentinel.
 */
export function matchingBlocks(a: string, b: string): MatchingBlock[] {
  const left = toCodePoints(a);
  const right = toCodePoints(b);
  const blocks = rawMatchingBlocks(left, right, indexPositions(right)).sort(
    (x, y) => x.a - y.a || x.b - y.b || x.size - y.size,
  );
  const collapsed: MatchingBlock[] = [];
  let current: MatchingBlock = { a: 0, b: 0, size: 0 };
  for (const block of blocks) {
    if (current.a + current.size === block.a && current.b + current.size === block.b) {
      current.size += block.size;
    } else {
      if (current.size > 0) collapsed.push(current);
      current = { ...block };
    }
  }
  if (current.size > 0) collapsed.push(current);
  collapsed.push({ a: left.length, b: right.length, size: 0 });
  return collapsed;
}

function toCodePoints(text: string): number[] {
  const points: number[] = [];
  for (const char of text) points.push(char.codePointAt(0)!);
  return points;
}

// difflib's b2j: for each element of b, the ascending indices where it occurs, minus the
// popular elements when autojunk applies (n >= 200: more than n // 100 + 1 occurrences).
function indexPositions(b: readonly number[]): Map<number, number[]> {
  const positions = new Map<number, number[]>();
  for (let j = 0; j < b.length; j += 1) {
    const element = b[j]!;
    const list = positions.get(element);
    if (list) list.push(j);
    else positions.set(element, [j]);
  }
  if (b.length >= 200) {
    const limit = Math.floor(b.length / 100) + 1;
    for (const [element, list] of positions) if (list.length > limit) positions.delete(element);
  }
  return positions;
}

const NO_POSITIONS: readonly number[] = [];

// get_matching_blocks() before sorting and collapsing; the sizes are what ratio() sums.
function rawMatchingBlocks(
  a: readonly number[],
  b: readonly number[],
  positions: ReadonlyMap<number, readonly number[]>,
): MatchingBlock[] {
  // j2len of difflib as two rows of an array indexed by j + 1 (so j - 1 = -1 reads index 0),
  // with the touched indices remembered so that each row is cleared in O(touched).
  let previous = new Int32Array(b.length + 1);
  let current = new Int32Array(b.length + 1);
  let previousTouched: number[] = [];
  let currentTouched: number[] = [];

  const findLongestMatch = (alo: number, ahi: number, blo: number, bhi: number) => {
    let bestI = alo;
    let bestJ = blo;
    let bestSize = 0;
    for (let i = alo; i < ahi; i += 1) {
      for (const j of positions.get(a[i]!) ?? NO_POSITIONS) {
        if (j < blo) continue;
        if (j >= bhi) break;
        const k = previous[j]! + 1;
        current[j + 1] = k;
        currentTouched.push(j + 1);
        if (k > bestSize) {
          bestI = i - k + 1;
          bestJ = j - k + 1;
          bestSize = k;
        }
      }
      for (const index of previousTouched) previous[index] = 0;
      [previous, current] = [current, previous];
      [previousTouched, currentTouched] = [currentTouched, previousTouched];
      currentTouched.length = 0;
    }
    for (const index of previousTouched) previous[index] = 0;
    previousTouched.length = 0;
    // Extend with equal elements on both sides; popular elements are not junk, so they extend
    // (isjunk is None, so difflib's junk-extension loops never run).
    while (bestI > alo && bestJ > blo && a[bestI - 1] === b[bestJ - 1]) {
      bestI -= 1;
      bestJ -= 1;
      bestSize += 1;
    }
    while (
      bestI + bestSize < ahi &&
      bestJ + bestSize < bhi &&
      a[bestI + bestSize] === b[bestJ + bestSize]
    ) {
      bestSize += 1;
    }
    return { a: bestI, b: bestJ, size: bestSize };
  };

  const blocks: MatchingBlock[] = [];
  const queue: Array<[number, number, number, number]> = [[0, a.length, 0, b.length]];
  while (queue.length > 0) {
    const [alo, ahi, blo, bhi] = queue.pop()!;
    const match = findLongestMatch(alo, ahi, blo, bhi);
    if (match.size > 0) {
      blocks.push(match);
      if (alo < match.a && blo < match.b) queue.push([alo, match.a, blo, match.b]);
      if (match.a + match.size < ahi && match.b + match.size < bhi) {
        queue.push([match.a + match.size, ahi, match.b + match.size, bhi]);
      }
    }
  }
  return blocks;
}
