// Exact fractions of integers of any size (BigInt), for math_calc: `+ - * /` over decimal
// numbers is exact in them, and the result is written as a decimal when it has a finite one.

/** `numerator / denominator`; the denominator is positive. Not necessarily in lowest terms. */
export interface Rational {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

const absolute = (value: bigint) => (value < 0n ? -value : value);

function greatestCommonDivisor(a: bigint, b: bigint): bigint {
  let x = absolute(a);
  let y = absolute(b);
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** `12.50` → 25/2. The text must be digits with at most one dot (checked by the caller). */
export function rationalFromDecimal(text: string): Rational {
  const [whole = '', fraction = ''] = text.split('.');
  return reduce({
    numerator: BigInt(`${whole}${fraction}` || '0'),
    denominator: 10n ** BigInt(fraction.length),
  });
}

/** The same value in lowest terms. */
export function reduce(value: Rational): Rational {
  const divisor = greatestCommonDivisor(value.numerator, value.denominator);
  return divisor <= 1n
    ? value
    : { numerator: value.numerator / divisor, denominator: value.denominator / divisor };
}

// The operations do not reduce: a denominator of 1 stays 1 (integers cost nothing extra), and the
// one reduction at the end is cheaper than one per step.
export const add = (a: Rational, b: Rational): Rational =>
  a.denominator === b.denominator
    ? { numerator: a.numerator + b.numerator, denominator: a.denominator }
    : {
        numerator: a.numerator * b.denominator + b.numerator * a.denominator,
        denominator: a.denominator * b.denominator,
      };
export const negate = (a: Rational): Rational => ({
  numerator: -a.numerator,
  denominator: a.denominator,
});
export const subtract = (a: Rational, b: Rational): Rational => add(a, negate(b));
export const multiply = (a: Rational, b: Rational): Rational => ({
  numerator: a.numerator * b.numerator,
  denominator: a.denominator * b.denominator,
});
/** `a / b`; the caller refuses a zero `b`. */
export function divide(a: Rational, b: Rational): Rational {
  const sign = b.numerator < 0n ? -1n : 1n;
  return {
    numerator: sign * a.numerator * b.denominator,
    denominator: sign * b.numerator * a.denominator,
  };
}

/**
 * The value as a decimal numeral when it has a finite one (its lowest-terms denominator has no
 * prime factors but 2 and 5): `-12.5`, `9999999999999999999800000000000000000001`. Undefined for
 * values such as 1/3.
 */
export function finiteDecimal(value: Rational): string | undefined {
  const { numerator, denominator } = reduce(value);
  let rest = denominator;
  let twos = 0;
  let fives = 0;
  while (rest % 2n === 0n) {
    rest /= 2n;
    twos++;
  }
  while (rest % 5n === 0n) {
    rest /= 5n;
    fives++;
  }
  if (rest !== 1n) return undefined;
  const places = Math.max(twos, fives);
  const scaled = absolute(numerator) * (10n ** BigInt(places) / denominator);
  const digits = scaled.toString().padStart(places + 1, '0');
  const sign = numerator < 0n ? '-' : '';
  if (places === 0) return `${sign}${digits}`;
  return `${sign}${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

/** Significant digits computed before rounding to a double (more than a double's 17). */
const APPROXIMATION_DIGITS = 25;

/** The value rounded to a double (may be ±Infinity when it is beyond a double's range). */
export function approximate(value: Rational): number {
  const { numerator, denominator } = value;
  // Scale so that the integer quotient has about APPROXIMATION_DIGITS digits, then let the
  // decimal parser round that to the nearest double.
  const shift =
    APPROXIMATION_DIGITS - (absolute(numerator).toString().length - denominator.toString().length);
  const quotient =
    shift >= 0
      ? (numerator * 10n ** BigInt(shift)) / denominator
      : numerator / (denominator * 10n ** BigInt(-shift));
  return Number(`${quotient}e${-shift}`);
}
