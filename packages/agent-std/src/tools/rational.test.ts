import { fc, test as property } from '@fast-check/vitest';
import { describe, expect, test } from 'vitest';
import {
  approximate,
  divide,
  finiteDecimal,
  type Rational,
  rationalFromDecimal,
} from './rational.ts';

const of = (numerator: bigint, denominator = 1n): Rational => ({ numerator, denominator });

describe('rational numbers', () => {
  test('decimal text becomes a fraction in lowest terms', () => {
    expect(rationalFromDecimal('12.50')).toEqual(of(25n, 2n));
    expect(rationalFromDecimal('.5')).toEqual(of(1n, 2n));
    expect(rationalFromDecimal('7.')).toEqual(of(7n));
    expect(rationalFromDecimal('0.000')).toEqual(of(0n));
  });

  test('a value with a finite decimal form is written exactly, any size', () => {
    expect(finiteDecimal(of(-25n, 2n))).toBe('-12.5');
    expect(finiteDecimal(of(3n, 40n))).toBe('0.075');
    expect(finiteDecimal(of(-1n, 1024n))).toBe('-0.0009765625');
    expect(finiteDecimal(of(10n ** 45n + 1n))).toBe(`1${'0'.repeat(44)}1`);
    expect(finiteDecimal(of(6n, 4n))).toBe('1.5'); // not in lowest terms
    expect(finiteDecimal(of(1n, 3n))).toBeUndefined();
    expect(finiteDecimal(of(7n, 30n))).toBeUndefined();
  });

  test('division keeps the denominator positive', () => {
    expect(divide(of(1n), of(-2n))).toEqual(of(-1n, 2n));
  });

  test('other values are rounded to the double a division of doubles gives', () => {
    expect(approximate(of(1n, 3n))).toBe(1 / 3);
    expect(approximate(of(-2n, 3n))).toBe(-2 / 3);
    expect(approximate(of(10n ** 400n, 3n))).toBe(Number.POSITIVE_INFINITY);
    expect(approximate(of(1n, 3n * 10n ** 400n))).toBe(0);
  });

  property.prop([
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.integer({ min: 1, max: 1_000_000 }),
  ])('rounding a small fraction agrees with dividing the two doubles', (numerator, denominator) => {
    expect(approximate(of(BigInt(numerator), BigInt(denominator)))).toBe(
      numerator / denominator + 0,
    );
  });
});
