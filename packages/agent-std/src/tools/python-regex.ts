/**
 * Python's `re` matches `\d`, `\w` and `\s` in text patterns by Unicode: `\w+` finds `你好` and
 * `\d` finds `٣`. RE2 reads them as ASCII classes. {@link pythonClassesForRe2} rewrites them into
 * RE2 classes with Python's meaning, for the Nexa-flavoured regex tools:
 *
 * - `\d` → decimal digits (`\p{Nd}`), `\D` → anything else;
 * - `\w` → letters, numbers and `_` (`[\p{L}\p{N}_]`), `\W` → anything else;
 * - `\s` → Python's whitespace (`str.isspace`: `\t`–`\r`, `\x1c`–`\x20`, `\x85`, `\xa0` and
 *   Unicode's spaces and line separators), `\S` → anything else.
 *
 * Inside a character class `\d`, `\D`, `\w` and `\s` become the same sets; `\W` and `\S` there
 * keep RE2's ASCII meaning (a class cannot hold the complement of another set). `\b` stays
 * ASCII: RE2 has no Unicode word boundary.
 */

const WORD = '\\p{L}\\p{N}_';
const SPACE =
  '\\t-\\r\\x{1c}-\\x{20}\\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}';

const OUTSIDE: Readonly<Record<string, string>> = {
  d: '\\p{Nd}',
  D: '\\P{Nd}',
  w: `[${WORD}]`,
  W: `[^${WORD}]`,
  s: `[${SPACE}]`,
  S: `[^${SPACE}]`,
};

const INSIDE: Readonly<Record<string, string>> = {
  d: '\\p{Nd}',
  D: '\\P{Nd}',
  w: WORD,
  s: SPACE,
};

/** `pattern` with Python's Unicode meaning of `\d \w \s` (and their complements) for RE2. */
export function pythonClassesForRe2(pattern: string): string {
  let result = '';
  let inClass = false;
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index] as string;
    if (character === '\\') {
      const next = pattern[index + 1];
      index++;
      if (next === undefined) {
        result += character;
        break;
      }
      const table = inClass ? INSIDE : OUTSIDE;
      result += Object.hasOwn(table, next) ? table[next] : `\\${next}`;
      continue;
    }
    if (!inClass && character === '[') {
      inClass = true;
      result += character;
      // A "]" right after "[" or "[^" is a member, not the end of the class.
      if (pattern[index + 1] === '^') result += pattern[++index];
      if (pattern[index + 1] === ']') result += pattern[++index];
      continue;
    }
    if (inClass && character === ']') inClass = false;
    result += character;
  }
  return result;
}
