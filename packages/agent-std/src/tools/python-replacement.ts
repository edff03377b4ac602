/**
 * Python's `re.sub` replacement templates, read the way Python 3.12 reads them, for the
 * Nexa-flavoured `regex_replace`:
 *
 * - `\1` … `\99` and `\g<1>` insert a group, `\g<0>` the whole match, `\g<name>` a named group;
 *   a group that took no part in the match inserts nothing; a group the pattern does not have is
 *   an error;
 * - `\0`, `\0oo` and three octal digits such as `\101` are the character of that octal code;
 * - `\n \t \r \f \v \a \b \\` are the usual control characters and a backslash;
 * - a backslash before any other ASCII letter is an error; before anything else it stays as
 *   written (`\&` is the two characters `\&`);
 * - everything else, `$1` included, is literal.
 *
 * The template is read into parts once; {@link expandReplacement} then fills in each match.
 */

/** A literal text, or the index of a group to insert (0: the whole match). */
type ReplacementPart = string | number;

/** A replacement template Python would refuse; the message says what and where. */
export class ReplacementTemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplacementTemplateError';
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
};

const isDigit = (character: string | undefined) =>
  character !== undefined && character >= '0' && character <= '9';
const isOctal = (character: string | undefined) =>
  character !== undefined && character >= '0' && character <= '7';
const isAsciiLetter = (character: string) => /^[A-Za-z]$/.test(character);
/** A Python identifier, as far as a group name of RE2 can be one. */
const IDENTIFIER = /^[\p{L}_][\p{L}\p{N}_]*$/u;

/**
 * Reads a Python replacement template for a pattern with `groupCount` groups and the named
 * groups `namedGroups` (name → index). Throws {@link ReplacementTemplateError}.
 */
export function parsePythonReplacement(
  template: string,
  groupCount: number,
  namedGroups: Readonly<Record<string, number>>,
): ReplacementPart[] {
  const parts: ReplacementPart[] = [];
  let literal = '';
  const addGroup = (index: number, at: number) => {
    if (index > groupCount) {
      throw new ReplacementTemplateError(
        `invalid group reference ${index} at position ${at} (the pattern has ${groupCount} group${groupCount === 1 ? '' : 's'})`,
      );
    }
    if (literal) parts.push(literal);
    literal = '';
    parts.push(index);
  };
  for (let index = 0; index < template.length; index++) {
    const character = template[index] as string;
    if (character !== '\\') {
      literal += character;
      continue;
    }
    const at = index;
    const next = template[index + 1];
    if (next === undefined) {
      throw new ReplacementTemplateError(`bad escape (end of pattern) at position ${at}`);
    }
    index++;
    if (next === 'g') {
      if (template[index + 1] !== '<') {
        throw new ReplacementTemplateError(`missing < after \\g at position ${at}`);
      }
      const close = template.indexOf('>', index + 2);
      if (close < 0) {
        throw new ReplacementTemplateError(`missing >, unterminated name at position ${at}`);
      }
      const name = template.slice(index + 2, close);
      if (name === '') throw new ReplacementTemplateError(`missing group name at position ${at}`);
      index = close;
      if (/^[0-9]+$/.test(name)) {
        addGroup(Number(name), at);
      } else if (!IDENTIFIER.test(name)) {
        throw new ReplacementTemplateError(
          `bad character in group name ${JSON.stringify(name)} at position ${at}`,
        );
      } else if (!Object.hasOwn(namedGroups, name)) {
        throw new ReplacementTemplateError(
          `unknown group name ${JSON.stringify(name)} at position ${at}`,
        );
      } else {
        addGroup(namedGroups[name] as number, at);
      }
    } else if (next === '0') {
      let digits = '0';
      while (digits.length < 3 && isOctal(template[index + 1])) {
        digits += template[index + 1];
        index++;
      }
      literal += String.fromCharCode(Number.parseInt(digits, 8) & 0xff);
    } else if (isDigit(next)) {
      let digits = next;
      if (isDigit(template[index + 1])) {
        digits += template[index + 1];
        index++;
        if (isOctal(digits[0]) && isOctal(digits[1]) && isOctal(template[index + 1])) {
          digits += template[index + 1];
          index++;
          const code = Number.parseInt(digits, 8);
          if (code > 0o377) {
            throw new ReplacementTemplateError(
              `octal escape value \\${digits} outside of range 0-0o377 at position ${at}`,
            );
          }
          literal += String.fromCharCode(code);
          continue;
        }
      }
      addGroup(Number(digits), at);
    } else if (Object.hasOwn(ESCAPES, next)) {
      literal += ESCAPES[next];
    } else if (isAsciiLetter(next)) {
      throw new ReplacementTemplateError(`bad escape \\${next} at position ${at}`);
    } else {
      literal += `\\${next}`;
    }
  }
  if (literal) parts.push(literal);
  return parts;
}

/** The text `parts` stand for at one match; `group(i)` is null for a group that did not take part. */
export function expandReplacement(
  parts: readonly ReplacementPart[],
  group: (index: number) => string | null,
): string {
  let text = '';
  for (const part of parts) text += typeof part === 'string' ? part : (group(part) ?? '');
  return text;
}
