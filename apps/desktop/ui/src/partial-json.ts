// The rescue answer streams in as a JSON object ({"question": …, "context": …, "answer": …}); to
// show each part while it is being written, read the string fields of the unfinished text.

const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/**
 * The string values of `keys` found so far in a JSON object that is still being written; a value
 * cut off mid-way is returned as far as it goes. Keys not reached yet are absent.
 *
 * @example
 * partialJsonStrings('{"question": "删除节点要改几个指', ['question', 'answer']);
 * // { question: '删除节点要改几个指' }
 */
export function partialJsonStrings(
  text: string,
  keys: readonly string[],
): Partial<Record<string, string>> {
  const found: Partial<Record<string, string>> = {};
  for (const key of keys) {
    const start = new RegExp(`"${key}"\\s*:\\s*"`).exec(text);
    if (!start) continue;
    let value = '';
    let index = start.index + start[0].length;
    while (index < text.length) {
      const character = text[index] as string;
      if (character === '"') break;
      if (character !== '\\') {
        value += character;
        index++;
        continue;
      }
      const next = text[index + 1];
      if (next === undefined) break;
      if (next === 'u') {
        const hex = text.slice(index + 2, index + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) break;
        value += String.fromCharCode(Number.parseInt(hex, 16));
        index += 6;
        continue;
      }
      value += ESCAPES[next] ?? next;
      index += 2;
    }
    found[key] = value;
  }
  return found;
}

/** True when the text so far looks like the start of a JSON object (not a plain-text answer). */
export function looksLikeJson(text: string): boolean {
  return /^\s*(```(?:json)?\s*)?\{/.test(text);
}
