/**
 * A `.env` document that keeps every byte: comments, blank lines, unknown keys, order, quoting,
 * `export` prefixes, spacing around `=`, inline comments and line endings (LF, CRLF or CR).
 * `serializeEnv(parseEnv(text)) === text` for any text; changing one key rewrites only that key's
 * value token. Value syntax follows the dotenv family (python-dotenv wrote the original file):
 * unquoted values end at ` #`; double quotes expand `\n \r \t \" \\` and may span lines; single
 * quotes and backticks are literal. When a key appears twice the last one wins, as in Node's
 * `util.parseEnv`.
 */

/** One logical line of a `.env` file (a quoted value may span several physical lines). */
export interface EnvLine {
  /** The line's text without its terminator. */
  raw: string;
  /** The terminator that followed it: `\n`, `\r\n`, `\r`, or `''` at the end of the file. */
  eol: string;
  kind: 'blank' | 'comment' | 'entry' | 'invalid';
  /** For entries: the key. */
  key?: string;
  /** For entries: the decoded value. */
  value?: string;
  /** For entries: where the value token (quotes included) starts and ends in `raw`. */
  valueStart?: number;
  valueEnd?: number;
  /** For entries: the quote character used, or `''` when unquoted. */
  quote?: '"' | "'" | '`' | '';
}

/** A parsed `.env` file. */
export interface EnvDocument {
  lines: EnvLine[];
}

const entryStart = /^(\s*)(export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)(\s*)=(\s*)/;

/**
 * Parses `.env` text without losing anything.
 *
 * @example
 * const doc = parseEnv('# LLM\nLLM_MODEL=deepseek-chat\n');
 * getEnvValue(doc, 'LLM_MODEL'); // 'deepseek-chat'
 * serializeEnv(doc) === '# LLM\nLLM_MODEL=deepseek-chat\n'; // true
 */
export function parseEnv(text: string): EnvDocument {
  const physical = splitPhysicalLines(text);
  const lines: EnvLine[] = [];
  for (let index = 0; index < physical.length; index++) {
    const first = physical[index]!;
    const match = entryStart.exec(first.text);
    if (!match) {
      const trimmed = first.text.trim();
      lines.push({
        raw: first.text,
        eol: first.eol,
        kind: trimmed === '' ? 'blank' : trimmed.startsWith('#') ? 'comment' : 'invalid',
      });
      continue;
    }
    const key = match[3]!;
    const valueStart = match[0].length;
    const opener = first.text[valueStart];
    if (opener === '"' || opener === "'" || opener === '`') {
      // A quoted value: find the closing quote, possibly on a later physical line.
      let raw = first.text;
      let eol = first.eol;
      let consumed = index;
      let close = findClosingQuote(raw, valueStart + 1, opener);
      while (close < 0 && consumed + 1 < physical.length) {
        consumed++;
        raw += eol + physical[consumed]!.text;
        eol = physical[consumed]!.eol;
        close = findClosingQuote(raw, valueStart + 1, opener);
      }
      const rest = close < 0 ? '' : raw.slice(close + 1);
      if (close >= 0 && /^\s*(#.*)?$/s.test(rest)) {
        const inner = raw.slice(valueStart + 1, close);
        lines.push({
          raw,
          eol,
          kind: 'entry',
          key,
          value: opener === '"' ? unescapeDoubleQuoted(inner) : inner,
          valueStart,
          valueEnd: close + 1,
          quote: opener,
        });
        index = consumed;
        continue;
      }
      // An unterminated or trailing-garbage quote: keep only the first physical line, unquoted.
    }
    const tail = first.text.slice(valueStart);
    const comment = /\s#/.exec(tail);
    const token = (comment ? tail.slice(0, comment.index) : tail).trimEnd();
    lines.push({
      raw: first.text,
      eol: first.eol,
      kind: 'entry',
      key,
      value: token,
      valueStart,
      valueEnd: valueStart + token.length,
      quote: '',
    });
  }
  return { lines };
}

/** Turns a document back into text; the exact input when nothing was changed. */
export function serializeEnv(document: EnvDocument): string {
  let text = '';
  for (const line of document.lines) text += line.raw + line.eol;
  return text;
}

/** The value of `key` (the last assignment wins), or `undefined` when absent. */
export function getEnvValue(document: EnvDocument, key: string): string | undefined {
  const line = lastEntry(document, key);
  return line?.value;
}

/** Every key assigned in the document, in order of first appearance. */
export function envKeys(document: EnvDocument): string[] {
  const keys = new Set<string>();
  for (const line of document.lines) if (line.kind === 'entry') keys.add(line.key!);
  return [...keys];
}

/**
 * Returns a copy of the document with `key` set to `value`. Only the value token of the key's
 * last assignment changes (its quote style is kept when it can hold the value); an absent key is
 * appended as `KEY=value` on a new line at the end.
 */
export function setEnvValue(document: EnvDocument, key: string, value: string): EnvDocument {
  const index = lastEntryIndex(document, key);
  if (index >= 0) return setEnvLineValue(document, index, value);
  const lines = document.lines.slice();
  const newline = detectNewline(document);
  const last = lines[lines.length - 1];
  // The file's last line had no terminator: give it one before appending.
  if (last && last.eol === '') lines[lines.length - 1] = { ...last, eol: newline };
  const token = encodeEnvValue(value, '');
  const prefix = `${key}=`;
  lines.push({
    raw: prefix + token.text,
    eol: newline,
    kind: 'entry',
    key,
    value,
    valueStart: prefix.length,
    valueEnd: prefix.length + token.text.length,
    quote: token.quote,
  });
  return { lines };
}

/**
 * Returns a copy of the document with the value of the entry at `index` (in `document.lines`)
 * replaced: only its value token changes, in its quote style when that can hold the value.
 */
function setEnvLineValue(document: EnvDocument, index: number, value: string): EnvDocument {
  const lines = document.lines.slice();
  const line = lines[index];
  if (line?.kind !== 'entry') throw new Error(`line ${index} is not a KEY=value entry`);
  if (line.value === value) return { lines };
  const token = encodeEnvValue(value, line.quote ?? '');
  lines[index] = {
    ...line,
    raw: line.raw.slice(0, line.valueStart) + token.text + line.raw.slice(line.valueEnd),
    value,
    valueEnd: line.valueStart! + token.text.length,
    quote: token.quote,
  };
  return { lines };
}

/**
 * Encodes a value for a `.env` file, keeping `preferred` quoting when it can represent the value
 * and falling back to double quotes otherwise.
 */
export function encodeEnvValue(
  value: string,
  preferred: '"' | "'" | '`' | '' = '',
): { text: string; quote: '"' | "'" | '`' | '' } {
  if (preferred === '' && /^[^\s#"'`\\]*$/.test(value)) return { text: value, quote: '' };
  if (
    (preferred === "'" || preferred === '`') &&
    !value.includes(preferred) &&
    !/[\r\n]/.test(value)
  ) {
    return { text: preferred + value + preferred, quote: preferred };
  }
  const escaped = value
    .replaceAll('\\', '\\\\')
    .replaceAll('"', '\\"')
    .replaceAll('\n', '\\n')
    .replaceAll('\r', '\\r')
    .replaceAll('\t', '\\t');
  return { text: `"${escaped}"`, quote: '"' };
}

function lastEntryIndex(document: EnvDocument, key: string): number {
  for (let index = document.lines.length - 1; index >= 0; index--) {
    const line = document.lines[index]!;
    if (line.kind === 'entry' && line.key === key) return index;
  }
  return -1;
}

function lastEntry(document: EnvDocument, key: string): EnvLine | undefined {
  const index = lastEntryIndex(document, key);
  return index >= 0 ? document.lines[index] : undefined;
}

/** The newline style the file already uses (LF for a new file). */
export function detectNewline(document: EnvDocument): string {
  for (const line of document.lines) if (line.eol !== '') return line.eol;
  return '\n';
}

function splitPhysicalLines(text: string): Array<{ text: string; eol: string }> {
  const lines: Array<{ text: string; eol: string }> = [];
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '\n' || char === '\r') {
      const eol = char === '\r' && text[index + 1] === '\n' ? '\r\n' : char;
      lines.push({ text: text.slice(start, index), eol });
      index += eol.length - 1;
      start = index + 1;
    }
  }
  if (start < text.length) lines.push({ text: text.slice(start), eol: '' });
  return lines;
}

function findClosingQuote(text: string, from: number, quote: string): number {
  for (let index = from; index < text.length; index++) {
    const char = text[index];
    if (quote === '"' && char === '\\') {
      index++;
      continue;
    }
    if (char === quote) return index;
  }
  return -1;
}

const escapes: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

function unescapeDoubleQuoted(inner: string): string {
  return inner.replace(/\\(.)/gs, (whole, char: string) => escapes[char] ?? whole);
}
