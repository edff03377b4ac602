import { fc, test as property } from '@fast-check/vitest';
import { describe, expect, test } from 'vitest';
import { createToolbox } from '../toolbox.ts';
import { ArithmeticError, evaluateArithmetic } from './arithmetic.ts';
import { isRawJsonNumber } from './exact-json.ts';
import type { Rational } from './rational.ts';

const math = createToolbox({ uses: ['std.math'] });

describe('math_calc', () => {
  test.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['10 / 4', 2.5],
    ['2 - 3 - 4', -5],
    ['2 / 2 / 2', 0.5],
    ['-3 * -(2 + 1)', 9],
    ['--4', 4],
    ['+5', 5],
    ['.5 + 1.', 1.5],
    ['0.1 + 0.2', 0.3],
    ['  7\t* 6 ', 42],
    ['((((1))))', 1],
    ['-0 * 5', 0],
    ['1 / 8', 0.125],
    ['9007199254740992 + 0', 9007199254740992],
  ])('%s = %d, exactly', async (expression, result) => {
    expect(await math.call('math_calc', { expression })).toEqual({
      result,
      expression,
      exact: true,
    });
  });

  test('integers of any size are exact; JSON writes every digit', async () => {
    const expression = '99999999999999999999*99999999999999999999';
    const reply = await math.callForModel('math_calc', { expression });
    expect(reply.content).toBe(
      `{"result":9999999999999999999800000000000000000001,"expression":"${expression}","exact":true}`,
    );
    const { result } = await math.call('math_calc', { expression: '9007199254740993 - 0' });
    expect(isRawJsonNumber(result)).toBe(true);
    expect(JSON.stringify(result)).toBe('9007199254740993');
    const huge = await math.call('math_calc', { expression: `${'9'.repeat(400)} + 1` });
    expect(JSON.stringify(huge.result)).toBe(`1${'0'.repeat(400)}`);
  });

  test('decimals with more digits than a double holds are exact too', async () => {
    const { result, exact } = await math.call('math_calc', {
      expression: '0.1000000000000000000001 * 10',
    });
    expect(exact).toBe(true);
    expect(JSON.stringify(result)).toBe('1.000000000000000000001');
  });

  test('a result without a finite decimal form is rounded and says so', async () => {
    expect(await math.call('math_calc', { expression: '1 / 3' })).toEqual({
      result: 0.3333333333333333,
      expression: '1 / 3',
      exact: false,
    });
    expect(await math.call('math_calc', { expression: '-2 / 3' })).toMatchObject({
      result: -0.6666666666666666,
      exact: false,
    });
  });

  test.each([
    ['2 ** 3', '"**" (power) at column 3'],
    ['7 // 2', '"//" (floor division)'],
    ['abs(1)', 'names such as "abs"'],
    ['__import__("os")', 'names such as "__import__"'],
    ['1 + ()', 'empty parentheses at column 5'],
    ['1 / 0', 'division by zero at column 3'],
    ['1 / (2 - 2)', 'division by zero'],
    ['', 'empty'],
    ['1 +', 'found the end of the expression'],
    ['(1 + 2', 'expected ")" to close "(" at column 1'],
    ['1 + 2)', '")" at column 6 has no matching "("'],
    ['2 (3)', 'expected an operator, found "(" at column 3'],
    ['1.2.3', '"1.2.3" at column 1 is not a number'],
    ['1e5', 'names such as "e5"'],
    ['1 % 2', '"%" at column 3 is not allowed'],
    ['１ + 1', '"１" at column 1 is not allowed'],
    [`1${'0'.repeat(400)} / 3`, 'too large for a floating-point number'],
  ])('%s is refused: %s', async (expression, message) => {
    await expect(math.call('math_calc', { expression })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'expression',
      message: expect.stringContaining(message),
    });
  });

  test('deep nesting and huge inputs are refused instead of overflowing the stack', () => {
    expect(() => evaluateArithmetic(`${'('.repeat(3000)}1${')'.repeat(3000)}`)).toThrow(/nesting/);
    expect(() => evaluateArithmetic(`${'-'.repeat(5000)}1`)).toThrow(/nesting/);
    expect(() => evaluateArithmetic(`${'1+'.repeat(10_000)}1`)).toThrow(/longer than/);
  });

  type Tree = number | { op: '+' | '-' | '*' | '/'; left: Tree; right: Tree } | { neg: Tree };
  const tree = fc.letrec<{ node: Tree }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.integer({ min: 0, max: 1000 }),
      fc.integer({ min: 0, max: 9999 }).map((n) => n / 100),
      fc.record({
        op: fc.constantFrom('+' as const, '-' as const, '*' as const, '/' as const),
        left: tie('node'),
        right: tie('node'),
      }),
      fc.record({ neg: tie('node') }),
    ),
  })).node;
  const render = (node: Tree): string =>
    typeof node === 'number'
      ? String(node)
      : 'neg' in node
        ? `-(${render(node.neg)})`
        : `(${render(node.left)} ${node.op} ${render(node.right)})`;
  // The reference: the tree evaluated directly with fractions [numerator, denominator].
  type Fraction = [bigint, bigint];
  const fraction = (decimal: number): Fraction => [BigInt(Math.round(decimal * 100)), 100n];
  const apply = (op: '+' | '-' | '*' | '/', [a, b]: Fraction, [c, d]: Fraction): Fraction => {
    if (op === '+') return [a * d + c * b, b * d];
    if (op === '-') return [a * d - c * b, b * d];
    if (op === '*') return [a * c, b * d];
    if (c === 0n) throw new Error('division by zero');
    return [a * d, b * c];
  };
  const value = (node: Tree): Fraction => {
    if (typeof node === 'number') return fraction(node);
    if ('neg' in node) {
      const [a, b] = value(node.neg);
      return [-a, b];
    }
    return apply(node.op, value(node.left), value(node.right));
  };
  const same = ([a, b]: Fraction, { numerator, denominator }: Rational) =>
    a * denominator === numerator * b;

  property.prop([tree])(
    'agrees exactly with direct evaluation of random expression trees',
    (node) => {
      let expected: Fraction | 'error';
      try {
        expected = value(node);
      } catch {
        expected = 'error';
      }
      if (expected === 'error') {
        expect(() => evaluateArithmetic(render(node))).toThrow(ArithmeticError);
      } else {
        expect(same(expected, evaluateArithmetic(render(node)))).toBe(true);
      }
    },
  );

  property.prop([
    fc.array(fc.tuple(fc.constantFrom('+', '-', '*', '/'), fc.integer({ min: 1, max: 99 })), {
      maxLength: 12,
    }),
    fc.integer({ min: 1, max: 99 }),
  ])('applies * and / before + and -, left to right', (rest, first) => {
    const expression = `${first}${rest.map(([op, n]) => ` ${op} ${n}`).join('')}`;
    const terms: Fraction[] = [fraction(first)];
    for (const [op, n] of rest) {
      if (op === '*' || op === '/') terms.push(apply(op, terms.pop() as Fraction, fraction(n)));
      else terms.push(fraction(op === '+' ? n : -n));
    }
    const expected = terms.reduce((sum, term) => apply('+', sum, term), [0n, 1n] as Fraction);
    expect(same(expected, evaluateArithmetic(expression))).toBe(true);
  });
});

describe('math_random', () => {
  test('both bounds are included, and every value in a small range appears', async () => {
    const seen = new Set<number>();
    for (let index = 0; index < 400; index++) {
      const value = await math.call('math_random', { min_val: 1, max_val: 3 });
      expect([1, 2, 3]).toContain(value);
      seen.add(value);
    }
    expect([...seen].sort()).toEqual([1, 2, 3]);
    expect(await math.call('math_random', { min_val: -5, max_val: -5 })).toBe(-5);
  });

  test('reversed bounds, fractions and huge ranges are bad input', async () => {
    await expect(math.call('math_random', { min_val: 5, max_val: 1 })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'min_val',
    });
    await expect(math.call('math_random', { min_val: 0.5, max_val: 1 })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'min_val',
    });
    await expect(
      math.call('math_random', { min_val: 0, max_val: Number.MAX_SAFE_INTEGER }),
    ).rejects.toMatchObject({ code: 'TOOL_BAD_INPUT', field: 'max_val' });
  });
});
