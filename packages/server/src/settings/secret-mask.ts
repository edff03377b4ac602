/**
 * Secret values in a settings file: masking them for display and restoring them when a masked
 * value is posted back. Pure functions over parsed `.env` documents; which keys are secrets comes
 * from the setting definitions.
 */
import { type EnvDocument, type EnvLine, encodeEnvValue, parseEnv } from './env-file.ts';
import { SETTING_DEFINITIONS, settingDefinition } from './settings-schema.ts';

const MASK = '••••••••';

/** Masks a secret for display: bullets plus the last 4 characters of a long secret. */
export function maskSecret(value: string): string {
  if (value === '') return '';
  return value.length >= 12 ? `${MASK}${value.slice(-4)}` : MASK;
}

/**
 * One secret value written in a line: the value of an assignment of a secret key, or `KEY=value`
 * text of a secret key inside a comment (a key commented out, a note after an entry) or an
 * otherwise invalid line. `start`/`end` delimit the value token (quotes included) in the raw line.
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

const SECRET_KEYS = SETTING_DEFINITIONS.filter((definition) => definition.secret).map(
  (definition) => definition.key,
);

/** `KEY =` of a secret key not preceded by a key character (so `MY_LLM_API_KEY=` is not one). */
const SECRET_IN_TEXT = `(?<![A-Za-z0-9_.-])(?:${SECRET_KEYS.join('|')})\\s*=`;

/**
 * Every secret value of a line, left to right: the entry's own value when its key is a secret,
 * then each `KEY=value` of a secret key in its comment part (the whole line for comments and
 * invalid lines, the text after the value for entries). A commented value is read with the rules
 * of a real assignment (quotes, `export`, a value ending at ` #`), so it is exactly the value the
 * line would set if it were uncommented.
 */
function secretTokens(line: EnvLine): SecretToken[] {
  const tokens: SecretToken[] = [];
  let from = 0;
  if (line.kind === 'entry') {
    if (line.value && settingDefinition(line.key!)?.secret) {
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
  }
  const pattern = new RegExp(SECRET_IN_TEXT, 'g');
  pattern.lastIndex = from;
  for (let match = pattern.exec(line.raw); match; match = pattern.exec(line.raw)) {
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
