/**
 * Secret values in a settings file: masking them for display and restoring them when a masked
 * value is posted back. Pure functions over parsed `.env` documents. A main key is a secret when
 * its definition says so; any other key is one when its name says so (secret-rules.ts: its words
 * after NFKC and case folding — `OPENAI_API_KEY`, `DB_PWD`, `pass_word`, `apiKey`, `ＡＰＩ_ＫＥＹ`).
 * Whatever the name, a value that looks like a key (`sk-…`, `ghp_…`, a webhook address, a long
 * random token) is masked whole, and the password of any address (`postgres://u:pw@h/db`) is
 * masked in place; comments are searched the same way.
 */
import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import {
  foldPosted,
  isMasked,
  isSecretName,
  MASK,
  maskSecret,
  readPostedValue,
  secretSpans,
  shownValue,
  urlPasswordSpans,
} from '../secret-rules.ts';
import { type EnvDocument, type EnvLine, encodeEnvValue, parseEnv } from './env-file.ts';
import { settingDefinition } from './settings-schema.ts';

export { maskSecret } from '../secret-rules.ts';

/**
 * True when the values of `name` are masked: a main key that is a secret, or any other key whose
 * name says it is one (a main key that is not a secret, such as KEYWORD_HOMOPHONES, is shown).
 */
export function isSecretKey(name: string): boolean {
  const definition = settingDefinition(name);
  return definition ? definition.secret : isSecretName(name);
}

/**
 * One secret written in a line. A value token is the value of an assignment (the line's own
 * entry, or a `KEY=value` / `KEY: value` of a secret key in a comment or an invalid line); a span
 * is a secret inside free text (an address's password, a key in a comment). `start`/`end`
 * delimit it in the raw line (a value token's quotes included).
 */
interface SecretToken {
  kind: 'value' | 'span';
  /**
   * Which stored secret a masked one may stand for: the key of a value token, the address
   * (`url postgres://u@host`) of a password, `''` for any other secret in free text.
   */
  group: string;
  /** A value token's decoded value; a span's text. */
  value: string;
  start: number;
  end: number;
  quote: '"' | "'" | '`' | '';
  /** True for the value of a real assignment (the line's own entry). */
  assignment: boolean;
}

/** A key name, in any script (a full-width `ＡＰＩ_ＫＥＹ` is still a key). */
const NAME = String.raw`[\p{L}_][\p{L}\p{N}_.-]*`;

/** `NAME =` not preceded by a key character (so `X_LLM_API_KEY=` is read as that whole name). */
const ASSIGNMENT_IN_TEXT = new RegExp(String.raw`(?<![\p{L}\p{N}_.-])(${NAME})\s*=`, 'gu');

/**
 * `NAME: value` or `NAME value` at the start of a line (after `#` and `export` in a comment):
 * a key written the YAML or shell-history way. The value is a quoted string or a run of non-space
 * characters.
 */
const KEY_VALUE_AT_START = new RegExp(
  String.raw`^(\s*(?:#\s*)?(?:export\s+)?)(${NAME})(\s*:\s*|\s+)("[^"]*"|'[^']*'|` +
    '`[^`]*`' +
    String.raw`|[^\s"'` +
    '`' +
    String.raw`=:][^\s]*)`,
  'u',
);

/**
 * A comment is prose as much as settings ("# One KEY=value per line", "# Key of the API…"):
 * there only names that cannot be a word count — with `_`, `.` or `-`, or camelCase.
 */
function isKeyNameInComment(name: string): boolean {
  return /[_.-]/.test(name.normalize('NFKC')) || /\p{Ll}\p{Lu}/u.test(name);
}

/** A word after a key name in a comment is prose unless it has digits or symbols, or is long. */
function looksLikeValueInProse(token: string): boolean {
  return /[0-9_\-./+=]/.test(token) || token.length >= 16;
}

/**
 * The assignment `name=…` at `index` of `raw`, read with the rules of a real one (quotes,
 * `export`, a value ending at ` #`). A name in another script stands in as ASCII letters.
 */
function assignmentAt(raw: string, index: number, name: string): EnvLine | undefined {
  const text = 'K'.repeat(name.length) + raw.slice(index + name.length);
  const entry = parseEnv(text).lines[0];
  return entry?.kind === 'entry' ? entry : undefined;
}

/** The `NAME: value` / `NAME value` token at the start of a comment or non-assignment line. */
function keyValueAtStart(line: EnvLine): SecretToken | undefined {
  const match = KEY_VALUE_AT_START.exec(line.raw);
  if (!match) return undefined;
  const [, prefix = '', name = '', separator = '', token = ''] = match;
  if (!isSecretKey(name)) return undefined;
  if (line.kind === 'comment') {
    if (!isKeyNameInComment(name)) return undefined;
    // "# SEED_ASR_ACCESS_KEY and …" is prose; "# LLM_API_KEY sk-…" is a key.
    if (separator.trim() === '' && !looksLikeValueInProse(token)) return undefined;
  }
  const opener = token[0];
  const quote = opener === '"' || opener === "'" || opener === '`' ? opener : '';
  const value = quote ? token.slice(1, -1) : token;
  if (value === '') return undefined;
  const start = prefix.length + name.length + separator.length;
  return {
    kind: 'value',
    group: name,
    value,
    start,
    end: start + token.length,
    quote,
    assignment: false,
  };
}

/** How a line's secrets are found: in a stored file, or in a posted one (where they are masks). */
type Reading = 'stored' | 'posted';

/**
 * Every secret of a line, left to right: the entry's own value when its key is a secret, its
 * value looks like a key or holds an address with a password (posted: when it holds a mask); a
 * `NAME: value` or `NAME value` at the start of a comment or invalid line; each `NAME=value` of a
 * secret key in its comment part (the whole line for comments and invalid lines, the text after
 * the value for entries), read with the rules of a real assignment; then, in the rest of the
 * text, address passwords, well-known keys and long random tokens (posted: masks).
 */
function secretTokens(line: EnvLine, reading: Reading): SecretToken[] {
  const tokens: SecretToken[] = [];
  let from = 0;
  if (line.kind === 'blank') return tokens;
  if (line.kind === 'entry') {
    const value = line.value ?? '';
    const secret =
      value !== '' &&
      (isSecretKey(line.key!) ||
        (reading === 'stored' ? shownValue(value, false) !== value : isMasked(value)));
    if (secret) {
      tokens.push({
        kind: 'value',
        group: line.key!,
        value,
        start: line.valueStart!,
        end: line.valueEnd!,
        quote: line.quote ?? '',
        assignment: true,
      });
    }
    from = line.valueEnd!;
  } else {
    const atStart = keyValueAtStart(line);
    if (atStart) {
      tokens.push(atStart);
      from = atStart.end;
    }
  }
  const pattern = new RegExp(ASSIGNMENT_IN_TEXT);
  pattern.lastIndex = from;
  // Text after an entry's value is its comment; so is a comment line.
  const inComment = line.kind !== 'invalid';
  for (let match = pattern.exec(line.raw); match; match = pattern.exec(line.raw)) {
    const name = match[1]!;
    if (!isSecretKey(name) || (inComment && !isKeyNameInComment(name))) continue;
    const entry = assignmentAt(line.raw, match.index, name);
    if (!entry) continue;
    const start = match.index + entry.valueStart!;
    const end = match.index + entry.valueEnd!;
    if (entry.value) {
      tokens.push({
        kind: 'value',
        group: name,
        value: entry.value,
        start,
        end,
        quote: entry.quote ?? '',
        assignment: false,
      });
    }
    pattern.lastIndex = Math.max(end, match.index + match[0].length);
  }
  // Free text: what no assignment above covers (an entry's own value was judged whole).
  const free = (start: number, end: number) =>
    start >= from &&
    !tokens.some((token) => start < token.end && end > token.start) &&
    !(line.kind === 'entry' && start < line.valueEnd! && end > line.valueStart!);
  const spans: SecretToken[] = [];
  if (reading === 'stored') {
    for (const span of secretSpans(line.raw, { random: true })) {
      if (!free(span.start, span.end)) continue;
      spans.push(spanToken(span.start, span.end, span.secret, span.address));
    }
  } else {
    const passwords = urlPasswordSpans(line.raw).filter((span) => span.secret.startsWith('•'));
    for (const span of passwords) {
      if (free(span.start, span.end)) {
        spans.push(spanToken(span.start, span.end, span.secret, span.address));
      }
    }
    for (const match of line.raw.matchAll(/•{4,}[^\s•]{0,4}/g)) {
      const end = match.index + match[0].length;
      if (!free(match.index, end)) continue;
      if (passwords.some((span) => match.index < span.end && end > span.start)) continue;
      spans.push(spanToken(match.index, end, match[0], undefined));
    }
  }
  return [...tokens, ...spans].sort((a, b) => a.start - b.start);
}

function spanToken(
  start: number,
  end: number,
  value: string,
  address: string | undefined,
): SecretToken {
  return {
    kind: 'span',
    group: address === undefined ? '' : `url ${address}`,
    value,
    start,
    end,
    quote: '',
    assignment: false,
  };
}

/** What a token shows when masked. */
function shownToken(token: SecretToken): string {
  if (token.kind === 'span') {
    return token.group.startsWith('url ') ? MASK : maskSecret(token.value);
  }
  const shown = shownValue(token.value, isSecretKey(token.group));
  return encodeEnvValue(shown, token.quote).text;
}

/**
 * A copy of `line` with `[start, end)` ranges replaced by text (left to right, not
 * overlapping); an entry is read again, so its value is the one its new text sets.
 */
function replaceRanges(
  line: EnvLine,
  replacements: ReadonlyArray<{ start: number; end: number; text: string }>,
): EnvLine {
  if (replacements.length === 0) return line;
  let raw = line.raw;
  for (const { start, end, text } of [...replacements].sort((a, b) => b.start - a.start)) {
    raw = raw.slice(0, start) + text + raw.slice(end);
  }
  if (line.kind !== 'entry') return { ...line, raw };
  const reread = parseEnv(raw).lines[0];
  return reread?.kind === 'entry' && reread.key === line.key
    ? { ...reread, raw, eol: line.eol }
    : { ...line, raw };
}

/**
 * Masks every secret of the document: each assignment of a secret key (a key set twice is masked
 * on both lines, not only on the one that wins), each value that looks like a key, each address
 * password, and the same in comments and invalid lines (an old key commented out is still a key).
 */
export function maskDocument(document: EnvDocument): EnvDocument {
  return {
    lines: document.lines.map((line) =>
      replaceRanges(
        line,
        secretTokens(line, 'stored').map((token) => ({
          start: token.start,
          end: token.end,
          text: shownToken(token),
        })),
      ),
    ),
  };
}

/** What {@link restoreDocument} made of a posted document. */
export interface RestoredDocument {
  document: EnvDocument;
  /** Keys whose posted value is a mask that stands for no stored value (never saved as such). */
  unknownMasks: string[];
}

/**
 * A posted secret equal to the mask of a stored one means "keep the stored secret", token by
 * token (assignments and commented values alike): the n-th secret of a key takes the n-th stored
 * one back when its mask matches (so a key set twice keeps both values), else the first stored
 * secret of that key with that mask (lines moved around, a key commented out or uncommented).
 * A mask counts after NFKC folding and trimming (saved with a trailing space, it is still the
 * mask). A masked address password takes back the stored password of the same address (scheme,
 * user, host, port). The stored token comes back byte for byte when the quoting is the same; any
 * other value is taken as typed. An entry whose value is a mask that stands for nothing stored is
 * listed in `unknownMasks`.
 */
export function restoreDocument(posted: EnvDocument, stored: EnvDocument): RestoredDocument {
  const storedByGroup = new Map<string, Array<{ token: SecretToken; text: string }>>();
  for (const line of stored.lines) {
    for (const token of secretTokens(line, 'stored')) {
      const text = line.raw.slice(token.start, token.end);
      storedByGroup.set(token.group, [...(storedByGroup.get(token.group) ?? []), { token, text }]);
    }
  }
  // Every value as stored, per key: bullets written as text are not a mask.
  const storedValues = new Set<string>();
  for (const line of stored.lines) {
    if (line.kind === 'entry') storedValues.add(`${line.key}=${foldPosted(line.value ?? '')}`);
  }
  const seen = new Map<string, number>();
  const unknownMasks: string[] = [];
  const lines = posted.lines.map((line) => {
    const replacements: Array<{ start: number; end: number; text: string }> = [];
    for (const token of secretTokens(line, 'posted')) {
      const occurrence = seen.get(token.group) ?? 0;
      seen.set(token.group, occurrence + 1);
      const candidates = storedByGroup.get(token.group) ?? [];
      const ordered = [candidates[occurrence], ...candidates].filter((candidate) => !!candidate);
      const text = restoredText(token, ordered);
      if (text !== undefined) {
        replacements.push({ start: token.start, end: token.end, text });
      } else if (
        token.assignment &&
        isMasked(token.value) &&
        !storedValues.has(`${token.group}=${foldPosted(token.value)}`)
      ) {
        unknownMasks.push(token.group);
      }
    }
    return replaceRanges(line, replacements);
  });
  return { document: { lines }, unknownMasks };
}

/** The stored text a posted token stands for, or undefined when it is typed (or unknown). */
function restoredText(
  token: SecretToken,
  candidates: ReadonlyArray<{ token: SecretToken; text: string }>,
): string | undefined {
  if (token.kind === 'span') {
    if (token.group !== '') return candidates[0]?.token.value;
    // A mask in free text may be followed by punctuation: try it shorter.
    for (let length = token.value.length; length >= MASK.length; length--) {
      const mask = token.value.slice(0, length);
      const original = candidates.find((candidate) => shownToken(candidate.token) === mask);
      if (original) return original.token.value + token.value.slice(length);
    }
    return undefined;
  }
  const secretName = isSecretKey(token.group);
  for (const candidate of candidates) {
    const reading = readPostedValue(token.value, candidate.token.value, secretName);
    if (reading.kind === 'kept') {
      return candidate.token.quote === token.quote
        ? candidate.text
        : encodeEnvValue(candidate.token.value, token.quote).text;
    }
    if (reading.kind === 'restored') return encodeEnvValue(reading.value, token.quote).text;
    if (reading.kind === 'typed') return undefined;
  }
  return undefined;
}

/** {@link restoreDocument}'s document. */
export function unmaskDocument(posted: EnvDocument, stored: EnvDocument): EnvDocument {
  return restoreDocument(posted, stored).document;
}

/** The refusal of a save that holds masks standing for no stored value. */
export function unknownMaskError(keys: readonly string[]): ServerError {
  const list = [...new Set(keys)];
  const message = localized(
    `${list.join('、')} 的值是遮盖后的 ${MASK}，与已保存的值对不上（或地址的主机已改）：请重新填写真实的值。设置没有改动。`,
    `${list.join(', ')} holds a masked value (${MASK}) that stands for no stored value (or its address now names another host): type the real value again. Nothing was changed.`,
  );
  return new ServerError('SETTINGS_SECRET_REQUIRED', message, {
    field: list[0]!,
    fields: list.map((field) => ({ field, message })),
  });
}
