// Numbers kept exactly through JSON. A JavaScript number is a double: 12345678901234567890 reads
// as 12345678901234567000 and 1.0 is written back as 1. The tools keep such numbers as
// `JSON.rawJSON` values instead: frozen objects holding the number's text, which every
// `JSON.stringify` — the model's tool message, MCP's structuredContent, a caller's own — writes
// as that text, as a number. They come from JSON.parse's source text access (the reviver's
// `context.source`), native in Node ≥ 21, so no parser of our own is involved.
import { z } from 'zod';

/**
 * A number kept exactly as written: `JSON.stringify` writes `rawJSON` as it is. Read it with
 * `BigInt(value.rawJSON)` (an integer) or `Number(value.rawJSON)` (rounded to a double). Such
 * values are frozen and cannot be structured-cloned (`postMessage`): convert them first.
 */
export interface RawJsonNumber {
  readonly rawJSON: string;
}

/** A JSON value whose numbers may be {@link RawJsonNumber}s where a double would not be exact. */
export type ExactJsonValue =
  | string
  | number
  | RawJsonNumber
  | boolean
  | null
  | ExactJsonValue[]
  | { [key: string]: ExactJsonValue };

interface JsonSourceText {
  rawJSON(text: string): RawJsonNumber;
  isRawJSON(value: unknown): boolean;
}
// TypeScript's lib does not describe JSON.parse source text access yet.
const json = JSON as unknown as JSON & JsonSourceText;
type SourceReviver = (key: string, value: unknown, context: { source?: string }) => unknown;

/** `text` (a JSON number) as a value `JSON.stringify` writes exactly as `text`. */
export function rawJsonNumber(text: string): RawJsonNumber {
  return json.rawJSON(text);
}

/** True for a value made by {@link rawJsonNumber} (or `JSON.rawJSON`). */
export function isRawJsonNumber(value: unknown): value is RawJsonNumber {
  return json.isRawJSON(value);
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** `-0012.50e1` → `-125e0`: sign, significant digits and exponent; zero is `0e0`. */
function canonicalDecimal(text: string): string | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  let digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return '0e0';
  let power = Number(exponent) - fraction.length;
  const trimmed = digits.replace(/0+$/, '');
  power += digits.length - trimmed.length;
  digits = trimmed;
  return `${sign}${digits}e${power}`;
}

/**
 * True when the double nearest to the decimal `text` is written back (shortest form, as
 * `JSON.stringify` writes numbers) as the same decimal value: `0.1`, `1.0` and `2e3` are;
 * 12345678901234567890 and 1e-400 are not, nor is 1152921504606846976 (2^60): its double holds
 * it exactly, but is written 1152921504606847000.
 */
export function isExactAsDouble(text: string): boolean {
  const value = Number(text);
  if (!Number.isFinite(value)) return false;
  return canonicalDecimal(String(value)) === canonicalDecimal(text);
}

/** Thrown by {@link parseExactJson} for a number beyond the range of a double (`1e400`). */
export class NonFiniteNumberError extends Error {
  /** The number as written. */
  readonly text: string;
  constructor(text: string) {
    super(
      `the number ${text.length > 40 ? `${text.slice(0, 40)}…` : text} is beyond the range of a floating-point number (about ±1.8e308); JSON numbers must be finite`,
    );
    this.name = 'NonFiniteNumberError';
    this.text = text;
  }
}

/**
 * `JSON.parse` that loses no number. With `numbers: 'as-written'` every number becomes a
 * {@link RawJsonNumber} of its text (so `1.0` stays `1.0` when written again); with
 * `'where-needed'` numbers stay plain where the double is exact ({@link isExactAsDouble}) and
 * become RawJsonNumbers elsewhere. Syntax errors are JSON.parse's; a non-finite number throws
 * {@link NonFiniteNumberError}.
 *
 * @example
 * JSON.stringify(parseExactJson('[1.0, 12345678901234567890]', 'as-written')); // '[1.0,12345678901234567890]'
 * parseExactJson('{"a": 2}', 'where-needed'); // { a: 2 }
 */
export function parseExactJson(text: string, numbers: 'as-written' | 'where-needed'): unknown {
  const reviver: SourceReviver = (_key, value, context) => {
    if (typeof value !== 'number') return value;
    const source = context.source ?? String(value);
    if (!Number.isFinite(value)) throw new NonFiniteNumberError(source);
    if (numbers === 'where-needed' && isExactAsDouble(source)) return value;
    return rawJsonNumber(source);
  };
  return JSON.parse(text, reviver as Parameters<typeof JSON.parse>[1]);
}

/**
 * The zod schema of an exact number in a tool result: a `number` or a {@link RawJsonNumber} at
 * run time, and `{ "type": "number" }` in JSON Schema — what `JSON.stringify` writes either way.
 */
export function exactNumberSchema(): z.ZodType<number | RawJsonNumber> {
  return z.preprocess(
    (value) => (isRawJsonNumber(value) ? Number(value.rawJSON) : value),
    z.number(),
  ) as unknown as z.ZodType<number | RawJsonNumber>;
}
