import { describe, expect, test } from 'vitest';
import { parseExactJson } from './exact-json.ts';
import { pythonFloatRepr, pythonJsonText } from './python-json.ts';

describe("Python's float repr", () => {
  test.each([
    [2, '2.0'],
    [0.1 + 0.2, '0.30000000000000004'],
    [1e16, '1e+16'],
    [1234567890123456, '1234567890123456.0'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [-1.5e300, '-1.5e+300'],
    [-0, '-0.0'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
  ])('%d is %s', (value, text) => {
    expect(pythonFloatRepr(value)).toBe(text);
  });
});

describe("Python's json.dumps", () => {
  const value = parseExactJson('{"a": [1, 2.50, -0, 1E2], "b": {}, "c": "é\\n"}', 'as-written');

  test('without indent: ", " and ": " separators; ints as ints, floats by repr', () => {
    expect(pythonJsonText(value, null)).toBe('{"a": [1, 2.5, 0, 100.0], "b": {}, "c": "é\\n"}');
  });

  test('with an indent, each item on its own line; 0 and below indent nothing', () => {
    expect(pythonJsonText(value, 2)).toBe(
      '{\n  "a": [\n    1,\n    2.5,\n    0,\n    100.0\n  ],\n  "b": {},\n  "c": "é\\n"\n}',
    );
    expect(pythonJsonText(value, 0)).toBe(
      '{\n"a": [\n1,\n2.5,\n0,\n100.0\n],\n"b": {},\n"c": "é\\n"\n}',
    );
    expect(pythonJsonText(value, -3)).toBe(pythonJsonText(value, 0));
  });
});
