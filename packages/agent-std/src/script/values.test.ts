import { describe, expect, test } from 'vitest';
import {
  equals,
  fromPlain,
  parseJsonAnswer,
  ScriptReference,
  textOf,
  toPlain,
  truthy,
  type Value,
} from './values.ts';

describe('script values', () => {
  test('textOf: what print, +, interpolation and instructions show', () => {
    expect([
      textOf('a'),
      textOf(2.5),
      textOf(true),
      textOf(null),
      textOf([1, 'x', null]),
      textOf(new Map<string, Value>([['k', [true]]])),
      textOf(new ScriptReference('agent', 'Writer')),
    ]).toEqual(['a', '2.5', 'true', '', '[1,"x",null]', '{"k":[true]}', 'Writer']);
  });

  test('truthy, equals, and plain data both ways (any key is just a key)', () => {
    expect([null, false, 0, '', [], new Map()].map(truthy)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect([1, 'x', [0], new Map([['a', null]])].map(truthy)).toEqual([true, true, true, true]);
    expect(equals(fromPlain({ a: [1, { b: 'c' }] }), fromPlain({ a: [1, { b: 'c' }] }))).toBe(true);
    expect(equals(fromPlain({ a: 1 }), fromPlain({ a: 1, b: 2 }))).toBe(false);
    const record = fromPlain(JSON.parse('{"__proto__": 1, "constructor": [2]}'));
    expect(Object.getOwnPropertyDescriptor(toPlain(record), '__proto__')?.value).toBe(1);
    expect(toPlain(record)).toMatchObject({ constructor: [2] });
  });

  test('parseJsonAnswer reads plain JSON, a fenced block or the outermost braces', () => {
    expect(parseJsonAnswer('{"a": 1}')).toEqual({ a: 1 });
    expect(parseJsonAnswer('Here:\n```json\n{"a": [2]}\n```\nDone.')).toEqual({ a: [2] });
    expect(parseJsonAnswer('Sure! {"a": {"b": 3}} hope that helps')).toEqual({ a: { b: 3 } });
    expect(parseJsonAnswer('no json here')).toBeUndefined();
  });
});
