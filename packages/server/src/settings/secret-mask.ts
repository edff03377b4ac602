/**
 * Secret values in a settings file: masking them for display and restoring them when a masked
 * value is posted back. Pure functions over parsed `.env` documents. A main key is a secret when
 * its definition says so; any other key is one when its name looks like one — it contains KEY,
 * TOKEN, SECRET, PASSWORD (or PASSWD, CREDENTIAL) in any case and any spelling
 * (`OPENAI_API_KEY`, `MY_LLM_API_KEY`, `llm_api_key`, `llm-api-key`, `apiKey`).
 */
import { type EnvDocument, type EnvLine, encodeEnvValue, parseEnv } from './env-file.ts';
import { settingDefinition } from './settings-schema.ts';

const MASK = '••••••••';

/** Masks a secret for display: bullets plus the last 4 characters of a long secret. */
export function maskSecret(value: string): string {
  if (value === '') return '';
  return value.length >= 12 ? `${MASK}${value.slice(-4)}` : MASK;
}

const SECRET_NAME = /key|token|secret|passw(?:or)?d|credential/i;

/**
 * True when the values of `name` are masked: a main key that is a secret, or any other key whose
 * name looks secret (a main key that is not a secret, such as KEYWORD_HOMOPHONES, is shown).
 */
export function isSecretKey(name: string): boolean {
  const definition = settingDefinition(name);
  return definition ? definition.secret : SECRET_NAME.test(name);
}

/**
 * One secret value written in a line: the value of an assignment of a secret key, or a secret
 * key's value written in a comment (a key commented out, a note after an entry) or in a line that
 * is not an assignment (`OPENAI_API_KEY: sk-…`, `LLM_API_KEY sk-…`). `start`/`end` delimit the
 * value token (quotes included) in the raw line.
 */
interface SecretToken {
  key: string;
  value: string;
  start: number;
  end: number;
  quote: '"' | "'" | '`' | '';
  /** True for the value of a real assignment (the line's own entry). */
  assignment: boolean;
}

/** `NAME =` not preceded by a key character (so `X_LLM_API_KEY=` is read as that whole name). */
const ASSIGNMENT_IN_TEXT = /(?<![A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]*)\s*=/g;

/**
 * `NAME: value` or `NAME value` at the start of a line (after `#` and `export` in a comment):
 * a key written the YAML or shell-history way. The value is a quoted string or a run of non-space
 * characters.
 */
const KEY_VALUE_AT_START =
  /^(\s*(?:#\s*)?(?:export\s+)?)([A-Za-z_][A-Za-z0-9_.-]*)(\s*:\s*|\s+)("[^"]*"|'[^']*'|`[^`]*`|[^\s"'`=:][^\s]*)/;

/**
 * A comment is prose as much as settings ("# One KEY=value per line", "# Key of the API…"):
 * there only names that cannot be a word count — with `_`, `.` or `-`, or camelCase.
 */
function isKeyNameInComment(name: string): boolean {
  return /[_.-]/.test(name) || /[a-z][A-Z]/.test(name);
}

/** A word after a key name in a comment is prose unless it has digits or symbols, or is long. */
function looksLikeSecretValue(token: string): boolean {
  return /[0-9_\-./+=]/.test(token) || token.length >= 16;
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
    if (separator.trim() === '' && !looksLikeSecretValue(token)) return undefined;
  }
  const opener = token[0];
  const quote = opener === '"' || opener === "'" || opener === '`' ? opener : '';
  const value = quote ? token.slice(1, -1) : token;
  if (value === '') return undefined;
  const start = prefix.length + name.length + separator.length;
  return { key: name, value, start, end: start + token.length, quote, assignment: false };
}

/**
 * Every secret value of a line, left to right: the entry's own value when its key is a secret;
 * a `NAME: value` or `NAME value` at the start of a comment or invalid line; then each
 * `NAME=value` of a secret key in its comment part (the whole line for comments and invalid
 * lines, the text after the value for entries). A value after `=` is read with the rules of a
 * real assignment (quotes, `export`, a value ending at ` #`), so it is exactly the value the line
 * would set if it were uncommented.
 */
function secretTokens(line: EnvLine): SecretToken[] {
  const tokens: SecretToken[] = [];
  let from = 0;
  if (line.kind === 'entry') {
    if (line.value && isSecretKey(line.key!)) {
      tokens.push({
        key: line.key!,
        value: line.value,
        start: line.valueStart!,
        end: line.valueEnd!,
        quote: line.quote ?? '',
        assignment: true,
      });
    }
    from = line.valueEnd!;
  } else if (line.kind === 'blank') {
    return tokens;
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
    const entry = parseEnv(line.raw.slice(match.index)).lines[0];
    if (entry?.kind !== 'entry') continue;
    const start = match.index + entry.valueStart!;
    const end = match.index + entry.valueEnd!;
    if (entry.value) {
      tokens.push({
        key: entry.key!,
        value: entry.value,
        start,
        end,
        quote: entry.quote ?? '',
        assignment: false,
      });
    }
    pattern.lastIndex = Math.max(end, match.index + match[0].length);
  }
  return tokens;
}

/** A copy of `line` whose value tokens are replaced (`replacements` left to right, not overlapping). */
function replaceTokens(
  line: EnvLine,
  replacements: Array<{
    token: SecretToken;
    text: string;
    value: string;
    quote: SecretToken['quote'];
  }>,
): EnvLine {
  let next = line;
  for (const { token, text, value, quote } of [...replacements].reverse()) {
    const raw = next.raw.slice(0, token.start) + text + next.raw.slice(token.end);
    next = token.assignment
      ? { ...next, raw, value, valueEnd: token.start + text.length, quote }
      : { ...next, raw };
  }
  return next;
}

/**
 * Masks every secret value of the document: each assignment of a secret key (a key set twice is
 * masked on both lines, not only on the one that wins) and each `KEY=value` of a secret key in a
 * comment or an invalid line (an old key commented out is still a key).
 */
export function maskDocument(document: EnvDocument): EnvDocument {
  return {
    lines: document.lines.map((line) => {
      const tokens = secretTokens(line);
      if (tokens.length === 0) return line;
      return replaceTokens(
        line,
        tokens.map((token) => {
          const masked = encodeEnvValue(maskSecret(token.value), token.quote);
          return { token, text: masked.text, value: maskSecret(token.value), quote: masked.quote };
        }),
      );
    }),
  };
}

/**
 * A posted secret equal to the mask of a stored one means "keep the stored secret", token by
 * token (assignments and commented values alike): the n-th secret of a key takes the n-th stored
 * one back when its mask matches (so a key set twice keeps both values), else the first stored
 * secret of that key with that mask (lines moved around, a key commented out or uncommented).
 * The stored token comes back byte for byte when the quoting is the same; any other value is
 * taken as typed.
 */
export function unmaskDocument(posted: EnvDocument, stored: EnvDocument): EnvDocument {
  const storedByKey = new Map<string, Array<{ token: SecretToken; text: string }>>();
  for (const line of stored.lines) {
    for (const token of secretTokens(line)) {
      const text = line.raw.slice(token.start, token.end);
      storedByKey.set(token.key, [...(storedByKey.get(token.key) ?? []), { token, text }]);
    }
  }
  const seen = new Map<string, number>();
  return {
    lines: posted.lines.map((line) => {
      const replacements: Parameters<typeof replaceTokens>[1] = [];
      for (const token of secretTokens(line)) {
        const occurrence = seen.get(token.key) ?? 0;
        seen.set(token.key, occurrence + 1);
        const candidates = storedByKey.get(token.key) ?? [];
        const masks = (candidate: { token: SecretToken }) =>
          maskSecret(candidate.token.value) === token.value;
        const original =
          candidates[occurrence] && masks(candidates[occurrence])
            ? candidates[occurrence]
            : candidates.find(masks);
        if (!original) continue;
        const restored =
          original.token.quote === token.quote
            ? { text: original.text, quote: token.quote }
            : encodeEnvValue(original.token.value, token.quote);
        replacements.push({
          token,
          text: restored.text,
          value: original.token.value,
          quote: restored.quote,
        });
      }
      return replacements.length === 0 ? line : replaceTokens(line, replacements);
    }),
  };
}
