/**
 * Levenshtein distance between two token sequences, with the edits of one cheapest alignment
 * counted by kind. Two rows of the table are kept, so long texts cost little memory.
 */

/** The edits turning a reference into a hypothesis. */
export interface EditCounts {
  /** Reference tokens replaced by another token. */
  substitutions: number;
  /** Reference tokens missing from the hypothesis. */
  deletions: number;
  /** Hypothesis tokens not in the reference. */
  insertions: number;
  /** substitutions + deletions + insertions: the edit distance. */
  edits: number;
}

/**
 * The fewest substitutions, deletions and insertions that turn `reference` into `hypothesis`.
 * Among alignments of equal cost, a substitution (or match) is preferred over a deletion, and a
 * deletion over an insertion, so the counts are deterministic.
 *
 * @example
 * editCounts(['a', 'b', 'c'], ['a', 'x', 'c', 'd']); // 1 substitution, 0 deletions, 1 insertion
 */
export function editCounts(
  reference: readonly string[],
  hypothesis: readonly string[],
): EditCounts {
  const columns = hypothesis.length + 1;
  // Per cell: cost and the counts of the path that reached it.
  let cost = new Int32Array(columns);
  let subs = new Int32Array(columns);
  let dels = new Int32Array(columns);
  let inss = new Int32Array(columns);
  for (let column = 0; column < columns; column++) {
    cost[column] = column;
    inss[column] = column;
  }
  let nextCost = new Int32Array(columns);
  let nextSubs = new Int32Array(columns);
  let nextDels = new Int32Array(columns);
  let nextInss = new Int32Array(columns);
  for (let row = 1; row <= reference.length; row++) {
    const token = reference[row - 1];
    nextCost[0] = row;
    nextSubs[0] = 0;
    nextDels[0] = row;
    nextInss[0] = 0;
    for (let column = 1; column < columns; column++) {
      const same = token === hypothesis[column - 1];
      const diagonal = cost[column - 1]! + (same ? 0 : 1);
      const up = cost[column]! + 1; // delete the reference token
      const left = nextCost[column - 1]! + 1; // insert the hypothesis token
      if (diagonal <= up && diagonal <= left) {
        nextCost[column] = diagonal;
        nextSubs[column] = subs[column - 1]! + (same ? 0 : 1);
        nextDels[column] = dels[column - 1]!;
        nextInss[column] = inss[column - 1]!;
      } else if (up <= left) {
        nextCost[column] = up;
        nextSubs[column] = subs[column]!;
        nextDels[column] = dels[column]! + 1;
        nextInss[column] = inss[column]!;
      } else {
        nextCost[column] = left;
        nextSubs[column] = nextSubs[column - 1]!;
        nextDels[column] = nextDels[column - 1]!;
        nextInss[column] = nextInss[column - 1]! + 1;
      }
    }
    [cost, nextCost] = [nextCost, cost];
    [subs, nextSubs] = [nextSubs, subs];
    [dels, nextDels] = [nextDels, dels];
    [inss, nextInss] = [nextInss, inss];
  }
  const last = columns - 1;
  return {
    substitutions: subs[last]!,
    deletions: dels[last]!,
    insertions: inss[last]!,
    edits: cost[last]!,
  };
}
