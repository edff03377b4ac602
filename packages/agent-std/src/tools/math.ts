import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { ToolError } from '../errors.ts';
import { defineTool, PURE_TOOL } from '../tool.ts';
import { ArithmeticError, evaluateArithmetic } from './arithmetic.ts';
import { exactNumberSchema, isExactAsDouble, rawJsonNumber } from './exact-json.ts';
import { approximate, finiteDecimal } from './rational.ts';

export const mathCalc = defineTool({
  name: 'math_calc',
  namespace: 'std.math',
  title: 'Calculate',
  annotations: PURE_TOOL,
  description:
    'Evaluate an arithmetic expression with + - * / and parentheses over decimal numbers, e.g. "(1.5 + 2) * 4 / -3", exactly (integers of any size; exact: false when the result had to be rounded, as 1/3). Nothing else is allowed (no **, no functions or names).',
  schemas: () => ({
    input: z
      .object({
        expression: z.string().describe('Digits, + - * / . ( ) and spaces only.'),
      })
      .strict(),
    output: z.object({
      result: exactNumberSchema().describe(
        'The value of the expression, every digit exact unless exact is false.',
      ),
      expression: z.string().describe('The expression as given.'),
      exact: z
        .boolean()
        .describe('False when the value has no finite decimal form (1/3) and result is rounded.'),
    }),
  }),
  async execute({ expression }) {
    const tool = 'math_calc';
    try {
      const value = evaluateArithmetic(expression);
      const decimal = finiteDecimal(value);
      if (decimal !== undefined) {
        // A plain number when JSON writes it as this very decimal; its exact text otherwise.
        const result = isExactAsDouble(decimal) ? Number(decimal) : rawJsonNumber(decimal);
        return { result, expression, exact: true };
      }
      const rounded = approximate(value);
      if (!Number.isFinite(rounded)) {
        throw new ToolError(
          'TOOL_BAD_INPUT',
          'expression: the result has no finite decimal form and is too large for a floating-point number',
          { tool, field: 'expression' },
        );
      }
      return { result: rounded, expression, exact: false };
    } catch (error) {
      if (!(error instanceof ArithmeticError)) throw error;
      throw new ToolError('TOOL_BAD_INPUT', `expression: ${error.message}`, {
        tool,
        field: 'expression',
        details: { column: error.column },
      });
    }
  },
});

/** crypto.randomInt's limit on the width of a range. */
const MAX_RANGE = 2 ** 48 - 1;

export const mathRandom = defineTool({
  name: 'math_random',
  namespace: 'std.math',
  title: 'Random integer',
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  description:
    'Return a uniformly random integer between min_val and max_val, both included (math_random(1, 6) is a die roll).',
  schemas: () => ({
    input: z
      .object({
        min_val: z.number().int().describe('Smallest possible value (included).'),
        max_val: z.number().int().describe('Largest possible value (included).'),
      })
      .strict(),
    output: z.number().int().describe('The random integer.'),
  }),
  async execute({ min_val, max_val }) {
    const tool = 'math_random';
    if (min_val > max_val) {
      throw new ToolError(
        'TOOL_BAD_INPUT',
        `min_val (${min_val}) is greater than max_val (${max_val})`,
        { tool, field: 'min_val' },
      );
    }
    if (!Number.isSafeInteger(max_val + 1)) {
      throw new ToolError('TOOL_BAD_INPUT', `max_val must be below ${Number.MAX_SAFE_INTEGER}`, {
        tool,
        field: 'max_val',
      });
    }
    if (max_val - min_val >= MAX_RANGE) {
      throw new ToolError(
        'TOOL_BAD_INPUT',
        `the range max_val - min_val must be below 2^48 - 1, got ${max_val - min_val}`,
        { tool, field: 'max_val' },
      );
    }
    // Cryptographically random and unbiased; randomInt's upper bound is exclusive.
    return randomInt(min_val, max_val + 1);
  },
});
