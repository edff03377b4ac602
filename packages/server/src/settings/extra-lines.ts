/**
 * The "extra lines" of a settings file — every line that is not a main key (comments, blank
 * lines, other keys) — and how an edited set of them is merged back without moving the main keys
 * away from the lines they followed. Pure functions over parsed `.env` documents.
 */
import { detectNewline, type EnvDocument, type EnvLine, serializeEnv } from './env-file.ts';
import { settingDefinition } from './settings-schema.ts';

/** True for the assignment of a main key. */
function isMainEntry(line: EnvLine): boolean {
  return line.kind === 'entry' && settingDefinition(line.key!) !== undefined;
}

/** Every line of the document that is not a main key, in order. */
export function extraLinesOf(document: EnvDocument): EnvLine[] {
  return document.lines.filter((line) => !isMainEntry(line));
}

/** Lines as file content. */
export function serializeLines(lines: EnvLine[]): string {
  return serializeEnv({ lines });
}

/**
 * Replaces the extra (non-main) lines of a document with new ones, keeping each main-key line
 * next to the extra line it followed when that line survived the edit (a line diff, LCS).
 */
export function mergeExtraLines(document: EnvDocument, extra: EnvDocument): EnvDocument {
  const oldExtra: EnvLine[] = [];
  // For each old extra line, the main lines that follow it; index -1 holds those at the top.
  const following = new Map<number, EnvLine[]>();
  for (const line of document.lines) {
    if (isMainEntry(line)) {
      const anchor = oldExtra.length - 1;
      following.set(anchor, [...(following.get(anchor) ?? []), line]);
    } else {
      oldExtra.push(line);
    }
  }
  const newExtra = extra.lines;
  const match = pairEditedLines(
    longestCommonSubsequence(
      oldExtra.map((line) => line.raw),
      newExtra.map((line) => line.raw),
    ),
    oldExtra.length,
    newExtra.length,
  );
  // Old anchor -> the new index after which its main lines go (the nearest surviving line above).
  const placed = new Map<number, EnvLine[]>();
  for (const [anchor, mains] of following) {
    let target = -1;
    for (let old = anchor; old >= 0; old--) {
      const mapped = match.get(old);
      if (mapped !== undefined) {
        target = mapped;
        break;
      }
    }
    placed.set(target, [...(placed.get(target) ?? []), ...mains]);
  }
  const newline = detectNewline(document);
  const lines: EnvLine[] = [...(placed.get(-1) ?? [])];
  newExtra.forEach((line, index) => {
    lines.push(line);
    lines.push(...(placed.get(index) ?? []));
  });
  // Every line but the last needs a terminator once lines moved around.
  for (let index = 0; index < lines.length - 1; index++) {
    if (lines[index]!.eol === '') lines[index] = { ...lines[index]!, eol: newline };
  }
  return { lines };
}

/**
 * Between two unchanged lines, the k-th removed line and the k-th added line are one line
 * edited in place: pair them, so main keys that followed it stay after it.
 */
function pairEditedLines(
  match: Map<number, number>,
  oldLength: number,
  newLength: number,
): Map<number, number> {
  const paired = new Map(match);
  const anchors = [
    [-1, -1],
    ...[...match.entries()].sort((a, b) => a[0] - b[0]),
    [oldLength, newLength],
  ];
  for (let index = 0; index + 1 < anchors.length; index++) {
    const [oldStart, newStart] = anchors[index]!;
    const [oldEnd, newEnd] = anchors[index + 1]!;
    for (
      let old = oldStart! + 1, next = newStart! + 1;
      old < oldEnd! && next < newEnd!;
      old++, next++
    ) {
      paired.set(old, next);
    }
  }
  return paired;
}

/** Maps indexes of `a` to indexes of `b` along one longest common subsequence. */
function longestCommonSubsequence(a: string[], b: string[]): Map<number, number> {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const table = new Uint32Array(rows * columns);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * columns + j] =
        a[i] === b[j]
          ? table[(i + 1) * columns + j + 1]! + 1
          : Math.max(table[(i + 1) * columns + j]!, table[i * columns + j + 1]!);
    }
  }
  const match = new Map<number, number>();
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      match.set(i, j);
      i++;
      j++;
    } else if (table[(i + 1) * columns + j]! >= table[i * columns + j + 1]!) {
      i++;
    } else {
      j++;
    }
  }
  return match;
}
