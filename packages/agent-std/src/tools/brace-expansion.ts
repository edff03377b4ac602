/**
 * Shell brace expansion (`{a,b}`, `{1..3}`, `{a..e..2}`), as the shell applies it to a word before
 * running a command: `{rm,-rf,~}` is three words, `{r..r}m` is `rm`. `${…}` is a parameter, not a
 * brace expression. Bounded: a word may make at most {@link MAX_EXPANDED_WORDS} words, and at most
 * {@link MAX_EXPANSION_CHARACTERS} characters are scanned doing it, so no input can blow up.
 */

/** Most words the expansion of one command's words makes. */
export const MAX_EXPANDED_WORDS = 4096;
/** Most characters scanned while expanding one command's words. */
export const MAX_EXPANSION_CHARACTERS = 1_000_000;

/** What is left of the expansion limits; shared by the words of one command. */
export interface ExpansionBudget {
  left: number;
  characters: number;
}

/**
 * The brace pairs of a word in one pass: for each `{` that is closed, where its `}` is and where
 * its top-level commas are. Linear, so a word of thousands of braces costs little.
 */
function braceStructure(word: string): Map<number, { close: number; commas: number[] }> {
  const pairs = new Map<number, { close: number; commas: number[] }>();
  const open: Array<{ at: number; commas: number[] }> = [];
  for (let index = 0; index < word.length; index++) {
    const character = word[index];
    if (character === '\\') index++;
    else if (character === '{') open.push({ at: index, commas: [] });
    else if (character === ',') open.at(-1)?.commas.push(index);
    else if (character === '}') {
      const group = open.pop();
      if (group) pairs.set(group.at, { close: index, commas: group.commas });
    }
  }
  return pairs;
}

function braceSequence(body: string): string[] | undefined {
  if (body.length > 40) return undefined;
  const match = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(body);
  if (!match) return undefined;
  const [, from = '', to = '', stepText] = match;
  const numeric = /\d/.test(from);
  if (numeric !== /\d/.test(to)) return undefined;
  const first = numeric ? Number(from) : from.charCodeAt(0);
  const last = numeric ? Number(to) : to.charCodeAt(0);
  const step = Math.abs(Number(stepText ?? 1)) || 1;
  const values: string[] = [];
  const direction = first <= last ? 1 : -1;
  for (let value = first; direction * (last - value) >= 0; value += direction * step) {
    values.push(numeric ? String(value) : String.fromCharCode(value));
    if (values.length > MAX_EXPANDED_WORDS) break;
  }
  return values;
}

/**
 * Expands the brace expressions of one word (`{a,b}`, `{1..3}`), the first one first, as the
 * shell does; `${…}` is a parameter, not a brace expression. A worklist, not recursion, so any
 * number of groups is safe; stops when `budget` runs out (words made, or characters scanned).
 */
export function expandBraces(word: string, budget: ExpansionBudget): string[] {
  const out: string[] = [];
  const pending = [word];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    budget.characters -= current.length;
    if (budget.left <= 0 || budget.characters < 0) {
      budget.left = 0;
      break;
    }
    const parts = firstBraceExpansion(current);
    if (parts === undefined) {
      out.push(current);
      budget.left--;
    } else {
      // Reversed onto the stack, so the words come out in order.
      for (let index = parts.length - 1; index >= 0; index--) pending.push(parts[index] as string);
    }
  }
  return out;
}

/** The words the first brace expression of `word` makes, or undefined when there is none. */
function firstBraceExpansion(word: string): string[] | undefined {
  const pairs = braceStructure(word);
  for (let open = 0; open < word.length; open++) {
    const pair = word[open] === '{' ? pairs.get(open) : undefined;
    if (pair === undefined) continue;
    if (word[open - 1] === '$') {
      open = pair.close;
      continue;
    }
    let parts: string[] | undefined;
    if (pair.commas.length > 0) {
      const cuts = [open, ...pair.commas, pair.close];
      parts = cuts.slice(1).map((cut, index) => word.slice((cuts[index] as number) + 1, cut));
    } else parts = braceSequence(word.slice(open + 1, pair.close));
    if (parts === undefined) continue;
    const prefix = word.slice(0, open);
    const suffix = word.slice(pair.close + 1);
    return parts.map((part) => `${prefix}${part}${suffix}`);
  }
  return undefined;
}

/**
 * The words of a command after brace expansion; `plain` stays true only for words the expansion
 * left alone. `complete` is false when the expansion was cut short by the limits.
 *
 * @example
 * expandCommandWords(['{rm,-rf,~}'], [true]).words; // ['rm', '-rf', '~']
 */
export function expandCommandWords(
  commandWords: readonly string[],
  commandPlain: readonly boolean[],
): { words: string[]; plain: boolean[]; complete: boolean } {
  const budget: ExpansionBudget = {
    left: MAX_EXPANDED_WORDS,
    characters: MAX_EXPANSION_CHARACTERS,
  };
  const words: string[] = [];
  const plain: boolean[] = [];
  commandWords.forEach((word, index) => {
    const expanded = word.includes('{') ? expandBraces(word, budget) : [word];
    const same = expanded.length === 1 && expanded[0] === word;
    for (const each of expanded) {
      words.push(each);
      plain.push(same && commandPlain[index] === true);
    }
  });
  return { words, plain, complete: budget.left > 0 };
}
