import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  exactNumberSchema,
  isExactAsDouble,
  isRawJsonNumber,
  NonFiniteNumberError,
  parseExactJson,
  rawJsonNumber,
} from './exact-json.ts';

describe('exact JSON numbers', () => {
  test('a double is exact when it is written back as the same decimal value', () => {
    for (const text of ['0', '-0', '1', '1.0', '1.50', '0.1', '2e3', '1E-7', '9007199254740992']) {
      expect(isExactAsDouble(text), text).toBe(true);
    }
    for (const text of [
      '12345678901234567890',
      '9007199254740993',
      '1152921504606846976', // 2^60: the double holds it, but is written 1152921504606847000
      '1e-400',
      '0.1000000000000000000001',
      '1e400',
    ]) {
      expect(isExactAsDouble(text), text).toBe(false);
    }
  });

  test('as written: every number keeps its text through JSON.stringify', () => {
    const text = '{"big":12345678901234567890,"one":1.0,"e":1E5,"tiny":1e-400,"list":[-0.0,3]}';
    expect(JSON.stringify(parseExactJson(text, 'as-written'))).toBe(text);
  });

  test('where needed: exact numbers stay plain, the others keep their text', () => {
    const value = parseExactJson(
      '{"small":42,"one":1.0,"big":12345678901234567890}',
      'where-needed',
    ) as Record<string, unknown>;
    expect(value.small).toBe(42);
    expect(value.one).toBe(1);
    expect(isRawJsonNumber(value.big)).toBe(true);
    expect(BigInt((value.big as { rawJSON: string }).rawJSON)).toBe(12345678901234567890n);
    expect(JSON.stringify(value)).toBe('{"small":42,"one":1,"big":12345678901234567890}');
  });

  test('a number beyond the range of a double is refused, also negative', () => {
    for (const text of ['1e400', '[-1e400]', '{"a":{"b":123e307}}']) {
      expect(() => parseExactJson(text, 'as-written'), text).toThrow(NonFiniteNumberError);
      expect(() => parseExactJson(text, 'where-needed'), text).toThrow(/beyond the range/);
    }
  });

  test('syntax errors are still JSON.parse errors; keys such as __proto__ stay own keys', () => {
    expect(() => parseExactJson('{"a":', 'as-written')).toThrow(SyntaxError);
    const value = parseExactJson('{"__proto__":{"x":1}}', 'where-needed') as object;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
  });

  test('the result schema accepts both kinds and says "number" in JSON Schema', () => {
    const schema = z.object({ result: exactNumberSchema() });
    expect(schema.safeParse({ result: 1.5 }).success).toBe(true);
    expect(schema.safeParse({ result: rawJsonNumber('12345678901234567890') }).success).toBe(true);
    expect(schema.safeParse({ result: '1' }).success).toBe(false);
    expect(z.toJSONSchema(schema, { io: 'output' }).properties).toEqual({
      result: { type: 'number' },
    });
  });
});
