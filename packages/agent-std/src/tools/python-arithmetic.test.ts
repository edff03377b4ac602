import { describe, expect, test } from 'vitest';
import { ArithmeticError } from './arithmetic.ts';
import { evaluatePythonArithmetic } from './python-arithmetic.ts';

describe('arithmetic as Python evaluates it', () => {
  test.each([
    ['0.1 + 0.2', 0.30000000000000004],
    ['6/3', 2],
    ['7 // 2', 3n],
    ['-7 // 2', -4n],
    ['7.5 // 2', 3],
    ['2 ** 10', 1024n],
    ['-2 ** 2', -4n],
    ['2 ** -1', 0.5],
    ['2 ** 3 ** 2', 512n],
    ['10 ** 30 / 3', 3.333333333333333e29],
    ['99999999999999999999 * 99999999999999999999', 9999999999999999999800000000000000000001n],
    ['.5 + 1.', 1.5],
    ['(1 + 2) * -3', -9n],
  ])('%s is %s', (expression, value) => {
    expect(evaluatePythonArithmetic(expression)).toBe(value);
  });

  test('ints and floats stay apart: 6/3 is a float, 6//3 an int', () => {
    expect(typeof evaluatePythonArithmetic('6/3')).toBe('number');
    expect(typeof evaluatePythonArithmetic('6//3')).toBe('bigint');
  });

  test.each([
    ['1/0', 'division by zero'],
    ['1//0', 'integer division or modulo by zero'],
    ['1.0/0', 'float division by zero'],
    ['01', 'leading zeros'],
    ['(1 + 2', "'(' was never closed"],
    ['1 + 2)', "unmatched ')'"],
    ['1e3', '"e" is not allowed'],
    ['1.2.3', 'invalid syntax'],
    ['(-8) ** 0.5', 'complex number'],
    ['9 ** 9 ** 9', 'more than 100000 bits'],
    ['1 +', 'ends too early'],
  ])('%s is refused: %s', (expression, message) => {
    expect(() => evaluatePythonArithmetic(expression)).toThrowError(ArithmeticError);
    expect(() => evaluatePythonArithmetic(expression)).toThrowError(message);
  });
});
