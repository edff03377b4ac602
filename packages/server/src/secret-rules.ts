/**
 * What counts as a secret in a setting, and how one is shown: by the setting's name (its words,
 * after Unicode NFKC folding and case folding), by the value's shape (well-known API key formats,
 * webhook addresses, long random tokens) and, in any address, its password. Pure functions; the
 * settings view, the health report, error messages and the log all show values through them.
 */

/** What replaces a secret: bullets, plus the last 4 characters of a long secret. */
export const MASK = '••••••••';

/** Masks a secret for display: bullets plus the last 4 characters of a long secret. */
export function maskSecret(value: string): string {
  if (value === '') return '';
  return value.length >= 12 ? `${MASK}${value.slice(-4)}` : MASK;
}

/**
 * Words that make a name secret when the name has them as a whole word (`DB_PWD`, `pass_word`,
 * `SESSION_COOKIE`, `apiKey`), not as part of a longer word (`PINYIN`, `PASSAGE`, `KEYWORDS`).
 */
const SECRET_WORDS = new Set([
  'KEY',
  'KEYS',
  'APIKEY',
  'APIKEYS',
  'TOKEN',
  'TOKENS',
  'SECRET',
  'SECRETS',
  'PASSWORD',
  'PASSWORDS',
  'PASSWD',
  'PWD',
  'PASS',
  'PASSPHRASE',
  'PIN',
  'AUTH',
  'AUTHORIZATION',
  'BEARER',
  'COOKIE',
  'COOKIES',
  'SESSION',
  'CREDENTIAL',
  'CREDENTIALS',
  'CREDS',
  'PRIVATE',
  'SALT',
  'SIGNATURE',
  'SIGNING',
  'DSN',
  'WEBHOOK',
  'JWT',
]);

/**
 * Endings that make a glued word secret (`DBPASSWORD`, `GHTOKEN`, `OPENAIAPIKEY`): long enough
 * that no ordinary word ends with them (KEY or PASS alone would catch MONKEY and COMPASS).
 */
const SECRET_ENDINGS = [
  'PASSWORD',
  'PASSWD',
  'PASSPHRASE',
  'SECRET',
  'TOKEN',
  'APIKEY',
  'ACCESSKEY',
  'PRIVATEKEY',
  'SECRETKEY',
  'CREDENTIAL',
  'CREDENTIALS',
  'WEBHOOK',
];

/**
 * Words that make a name about a secret rather than the secret itself: a size, a time, a switch
 * or a kind (`MAX_TOKENS`, `SESSION_TIMEOUT`, `PASSWORD_MIN_LENGTH`, `AUTH_ENABLED`, `AUTH_MODE`).
 * Their values are still masked when they look like a key.
 */
const DESCRIPTIVE_WORDS = new Set([
  'MAX',
  'MIN',
  'LIMIT',
  'COUNT',
  'LENGTH',
  'LEN',
  'SIZE',
  'TIMEOUT',
  'TTL',
  'AGE',
  'EXPIRY',
  'EXPIRES',
  'LIFETIME',
  'INTERVAL',
  'ENABLED',
  'DISABLED',
  'REQUIRED',
  'MODE',
  'TYPE',
  'METHOD',
]);

/**
 * The words of a setting's name after NFKC folding (full-width `ＡＰＩ_ＫＥＹ` is `API_KEY`) and
 * case folding, split at `_ - .`, spaces and camelCase (`apiKey`, `APIKey`, `OAuth2Token`).
 */
function nameWords(name: string): string[] {
  return name
    .normalize('NFKC')
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[\s_.-]+/u)
    .filter((word) => word !== '')
    .map((word) => word.toUpperCase());
}

/**
 * True when a setting's name says its value is a secret: one of its words is a secret word
 * (KEY, TOKEN, SECRET, PASSWORD, PASSWD, PWD, PASS, PASSPHRASE, PIN, AUTH, AUTHORIZATION, BEARER,
 * COOKIE, SESSION, CREDENTIAL(S), PRIVATE, SALT, SIGNATURE, SIGNING, DSN, WEBHOOK, JWT, …) or
 * ends like one (`DBPASSWORD`), and no word makes it a size, time, switch or kind (`MAX_TOKENS`).
 */
export function isSecretName(name: string): boolean {
  const words = nameWords(name);
  if (words.some((word) => DESCRIPTIVE_WORDS.has(word))) return false;
  return words.some(
    (word) => SECRET_WORDS.has(word) || SECRET_ENDINGS.some((ending) => word.endsWith(ending)),
  );
}

/** Addresses whose path is the secret (anyone holding one may post to the channel). */
const WEBHOOK =
  /(https?:\/\/(?:hooks\.slack\.com\/(?:services|workflows|triggers)\/|(?:(?:canary|ptb)\.)?discord(?:app)?\.com\/api\/webhooks\/))([A-Za-z0-9_\-/]{8,})/g;

/** Well-known key formats, found anywhere in a text. */
const KEY_SHAPES: readonly RegExp[] = [
  // OpenAI (sk-…, sk-proj-…), Anthropic (sk-ant-…), Stripe (sk_live_…) and their kin.
  /\bsk[-_](?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{16,}/g,
  /\b(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bxapp-[A-Za-z0-9-]{10,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\bhf_[A-Za-z0-9]{30,}/g,
  /\bnpm_[A-Za-z0-9]{30,}/g,
  // A JSON Web Token: base64url header (`{"` is `eyJ`), payload and signature.
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  // PEM private keys.
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/g,
];

function bitsPerCharacter(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const share = count / value.length;
    bits -= share * Math.log2(share);
  }
  return bits;
}

/**
 * True for a long random-looking token: 32 or more hex digits mixing digits and letters, or 32 or
 * more base64/base64url characters mixing upper case, lower case and digits with the spread of
 * characters random text has (a model name or a path does not).
 */
function isRandomToken(value: string): boolean {
  if (value.length < 32) return false;
  if (/^[0-9a-f]+$/i.test(value)) {
    return /\d/.test(value) && /[a-f]/i.test(value) && bitsPerCharacter(value) >= 3;
  }
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value) || value.startsWith('/')) return false;
  if (!/[A-Z]/.test(value) || !/[a-z]/.test(value) || !/\d/.test(value)) return false;
  // Words glued with separators (`all-MiniLM-L6-v2-sentence-transformers`) are not random.
  const longest = Math.max(...value.split(/[-_/]/).map((part) => part.length));
  return longest >= 20 && bitsPerCharacter(value) >= 4.2;
}

/** True when the text contains a well-known key format or a webhook address. */
function hasKeyShape(text: string): boolean {
  return [...KEY_SHAPES, WEBHOOK].some((pattern) => new RegExp(pattern).test(text));
}

/**
 * True when a value is a secret by its shape, whatever its name: it contains a well-known key
 * (`sk-…`, `sk-proj-…`, `ghp_…`, `github_pat_…`, `xoxb-…`, `AKIA…`, `AIza…`, a JWT, a private
 * key), is a Slack or Discord webhook address, or is a long random token.
 */
export function looksLikeSecretValue(value: string): boolean {
  const trimmed = value.trim();
  return hasKeyShape(trimmed) || isRandomToken(trimmed);
}

/**
 * `scheme://user:password@` in a text: the scheme and user (group 1) and the password (group 2),
 * which runs to the last `@` of the address's authority.
 */
const URL_PASSWORD = /([A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s/?#@:'"`]*):([^\s/?#'"`]*)@/g;

/** One place in a text where a secret is written: `[start, end)` and what shows instead. */
export interface SecretSpan {
  start: number;
  end: number;
  /** The secret as written. */
  secret: string;
  /** What is shown instead. */
  shown: string;
  /**
   * For an address's password: the address without it (`postgres://user@host:5432`), which
   * says which stored password a masked one stands for.
   */
  address?: string;
}

/** The host (and port) after `@` at `from` in `text`, up to the path. */
function hostAfter(text: string, from: number): string {
  return /^[^\s/?#'"`]*/.exec(text.slice(from))?.[0] ?? '';
}

/** Every address password in a text, each with its address. */
export function urlPasswordSpans(text: string): SecretSpan[] {
  const spans: SecretSpan[] = [];
  for (const match of text.matchAll(URL_PASSWORD)) {
    const [whole, prefix = '', password = ''] = match;
    if (password === '') continue;
    const start = match.index + prefix.length + 1;
    const shown = password.startsWith('•') ? password : MASK;
    spans.push({
      start,
      end: start + password.length,
      secret: password,
      shown,
      address: `${prefix}@${hostAfter(text, match.index + whole.length)}`.toLowerCase(),
    });
  }
  return spans;
}

/**
 * Every secret written in a free text (a comment, a log line, an error message): address
 * passwords, well-known key formats, the secret part of webhook addresses and, with `random`,
 * long random tokens standing alone. Spans are left to right and do not overlap.
 */
export function secretSpans(text: string, options: { random?: boolean } = {}): SecretSpan[] {
  const found: SecretSpan[] = [...urlPasswordSpans(text)];
  for (const match of text.matchAll(WEBHOOK)) {
    const start = match.index + (match[1]?.length ?? 0);
    const secret = match[2] ?? '';
    found.push({ start, end: start + secret.length, secret, shown: maskSecret(secret) });
  }
  for (const pattern of KEY_SHAPES) {
    for (const match of text.matchAll(pattern)) {
      found.push({
        start: match.index,
        end: match.index + match[0].length,
        secret: match[0],
        shown: maskSecret(match[0]),
      });
    }
  }
  if (options.random) {
    for (const match of text.matchAll(/[A-Za-z0-9+/_=-]{32,}/g)) {
      const before = text[match.index - 1];
      if (before !== undefined && !/[\s:='"`,;([{<]/.test(before)) continue;
      if (!isRandomToken(match[0])) continue;
      found.push({
        start: match.index,
        end: match.index + match[0].length,
        secret: match[0],
        shown: maskSecret(match[0]),
      });
    }
  }
  // Earlier first; of two overlapping spans the longer one.
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const spans: SecretSpan[] = [];
  for (const span of found) {
    const last = spans[spans.length - 1];
    if (last && span.start < last.end) continue;
    if (span.secret.includes('•')) continue;
    spans.push(span);
  }
  return spans;
}

/** `text` with `spans` (left to right, not overlapping) replaced by what they show. */
function replaceSpans(text: string, spans: readonly SecretSpan[]): string {
  let out = '';
  let at = 0;
  for (const span of spans) {
    out += text.slice(at, span.start) + span.shown;
    at = span.end;
  }
  return out + text.slice(at);
}

/**
 * A quick test that a text may hold something {@link secretSpans} finds (an address with `@`, a
 * key's prefix, a webhook host): most log lines and messages do not, and skip the full search.
 */
const MIGHT_HOLD_SECRET =
  /:\/\/[^\s/?#]*@|sk[-_]|gh[pousr]_|github_pat_|glpat-|xox|xapp-|AKIA|ASIA|AIza|hf_|npm_|eyJ|-----BEGIN|hooks\.slack\.com|discord(?:app)?\.com\/api\/webhooks/;

/**
 * How a setting's value is shown: masked whole when the name is secret (`secretName`) or the
 * value looks like a key; a webhook address keeps its host; any other value shows with the
 * passwords of its addresses masked (`postgres://user:••••••••@host/db`).
 */
export function shownValue(value: string, secretName: boolean): string {
  if (value === '') return '';
  if (secretName) return maskSecret(value);
  const trimmed = value.trim();
  const webhook = new RegExp(`^${WEBHOOK.source}$`).exec(trimmed);
  if (webhook) return `${webhook[1]}${maskSecret(webhook[2] ?? '')}`;
  if (looksLikeSecretValue(trimmed)) return maskSecret(value);
  return replaceSpans(value, urlPasswordSpans(value));
}

/** A posted value as compared with a mask: NFKC-folded, without surrounding spaces. */
export function foldPosted(value: string): string {
  return value.normalize('NFKC').trim();
}

/** True when a posted value is a mask (it holds the bullets no key has). */
export function isMasked(value: string): boolean {
  return foldPosted(value).includes('••••');
}

/** What a posted value means for the stored one. */
export type PostedValue =
  /** The stored value, unchanged (the mask was posted back). */
  | { kind: 'kept' }
  /** The posted value with the masked passwords of its addresses filled back in. */
  | { kind: 'restored'; value: string }
  /** A value typed by the user (no mask in it). */
  | { kind: 'typed' }
  /** A mask that stands for no stored value (a masked password of an address that moved). */
  | { kind: 'unknown-mask' };

/**
 * Reads a posted value against the stored one: the mask of the stored value (after NFKC and
 * trimming, so a mask saved with a trailing space counts, and bare bullets count too) keeps it;
 * an address whose password is masked gets the stored password back when the stored value has
 * the same address (scheme, user, host and port; the path may change); a mask that stands for
 * nothing stored is `unknown-mask`, never saved as the new secret.
 */
export function readPostedValue(posted: string, stored: string, secretName: boolean): PostedValue {
  if (!isMasked(posted)) return { kind: 'typed' };
  const folded = foldPosted(posted);
  // Bullets stored as they are (text, not a mask) come back as they are.
  if (folded === foldPosted(stored)) return { kind: 'kept' };
  const shown = foldPosted(shownValue(stored, secretName));
  if (stored !== '' && shown !== stored.trim()) {
    if (folded === shown || /^•+$/.test(folded)) return { kind: 'kept' };
  }
  const masked = urlPasswordSpans(folded).filter((span) => span.secret.startsWith('•'));
  if (masked.length === 0) return { kind: 'unknown-mask' };
  const storedPasswords = urlPasswordSpans(stored);
  const filled: SecretSpan[] = [];
  for (const span of masked) {
    const original = storedPasswords.find((candidate) => candidate.address === span.address);
    if (!original) return { kind: 'unknown-mask' };
    filled.push({ ...span, shown: original.secret });
  }
  const value = replaceSpans(folded, filled);
  return value === stored.trim() ? { kind: 'kept' } : { kind: 'restored', value };
}

/**
 * A free text with its secrets masked: address passwords (`postgres://u:••••••••@host/db`),
 * well-known key formats and webhook secrets. For messages and log lines.
 *
 * @example
 * maskSecretsInText('cannot reach postgres://me:hunter2@db/x'); // 'cannot reach postgres://me:••••••••@db/x'
 */
export function maskSecretsInText(text: string): string {
  if (!MIGHT_HOLD_SECRET.test(text)) return text;
  return replaceSpans(text, secretSpans(text));
}
