import { isRawJsonNumber } from './exact-json.ts';

/**
 * JSON text as Python's `json.dumps(value, ensure_ascii=False, indent=…)` writes it, for the
 * Nexa-flavoured json tools. `value` comes from `parseExactJson(text, 'as-written')`, so every
 * number still has the text it was written with: an integer stays an integer of any size (`-0`
 * is `0`), anything with a fraction or an exponent is a Python float and is written as Python's
 * `repr` writes it (`1.50` is `1.5`, `1E2` is `100.0`, `1e16` is `1e+16`).
 *
 * Without `indent` (null) items are separated by `", "` and keys by `": "`; with an indent,
 * including 0 or a negative one, every item goes on its own line indented by that many spaces
 * per level (none for 0 and below), items separated by `","`.
 */
export function pythonJsonText(value: unknown, indent: number | null): string {
  const pad = indent === null ? '' : ' '.repeat(Math.max(indent, 0));
  const write = (node: unknown, level: number): string => {
    if (isRawJsonNumber(node)) return pythonNumberText(node.rawJSON);
    if (typeof node === 'number') return pythonNumberText(String(node));
    if (node === null || typeof node !== 'object') return JSON.stringify(node) ?? 'null';
    const array = Array.isArray(node);
    const items = array
      ? node.map((item) => write(item, level + 1))
      : Object.entries(node as Record<string, unknown>).map(
          ([key, item]) => `${JSON.stringify(key)}: ${write(item, level + 1)}`,
        );
    const [open, close] = array ? ['[', ']'] : ['{', '}'];
    if (items.length === 0) return open + close;
    if (indent === null) return `${open}${items.join(', ')}${close}`;
    const inner = `\n${pad.repeat(level + 1)}`;
    return `${open}${inner}${items.join(`,${inner}`)}\n${pad.repeat(level)}${close}`;
  };
  return write(value, 0);
}

/** A JSON number's text as Python reads and writes it back: an int as is, a float by `repr`. */
function pythonNumberText(text: string): string {
  if (/^-?\d+$/.test(text)) return BigInt(text).toString();
  return pythonFloatRepr(Number(text));
}

/**
 * Python's `repr` of a float: the shortest digits that read back as the same double (as
 * JavaScript finds them), written in positional form with at least one decimal (`2.0`) when the
 * decimal point falls between 10^-4 and 10^16, and as `1.5e+300` / `1e-05` otherwise.
 */
export function pythonFloatRepr(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa = '', exponent = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const point = Number(exponent) + 1; // digits before the decimal point
  const sign = value < 0 ? '-' : '';
  if (point > -4 && point <= 16) {
    if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
    if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  }
  const power = point - 1;
  const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
  return `${sign}${digits[0]}${fraction}e${power < 0 ? '-' : '+'}${String(Math.abs(power)).padStart(2, '0')}`;
}
