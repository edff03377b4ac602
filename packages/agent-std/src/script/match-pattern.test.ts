import { describe, expect, test } from 'vitest';
import { matchPattern } from './match-pattern.ts';
import { parseAgentScript } from './parse.ts';
import { fromPlain, toPlain, type Value } from './values.ts';

describe('matchPattern', () => {
  const pattern = (source: string) => {
    const script = parseAgentScript(`flow main { x = match v { ${source} => 1 } }`, 'p.nx');
    const statement = script.flows[0]?.body[0];
    if (statement?.kind !== 'assign' || statement.value.kind !== 'match')
      throw new Error('no match');
    return statement.value.arms[0]?.pattern as Parameters<typeof matchPattern>[0];
  };
  const match = (source: string, value: unknown) => {
    const bound = new Map<string, Value>();
    return matchPattern(pattern(source), fromPlain(value), bound)
      ? toPlain(new Map(bound))
      : 'no match';
  };

  test.each([
    ['_', 5, {}],
    ['n', 'text', { n: 'text' }],
    ['0', 0, {}],
    ['0', 1, 'no match'],
    ['"on"', 'on', {}],
    ['null', null, {}],
    ['(a, b)', [1, 2], { a: 1, b: 2 }],
    ['(a, b)', [1, 2, 3], 'no match'],
    ['[]', [], {}],
    ['[first, ..rest]', [1, 2, 3], { first: 1, rest: [2, 3] }],
    ['[a, b..rest]', [1], 'no match'],
    ['{name, age: years}', { name: 'Ada', age: 36, city: 'L' }, { name: 'Ada', years: 36 }],
    ['{name, ..others}', { name: 'Ada', age: 36 }, { name: 'Ada', others: { age: 36 } }],
    ['{missing}', { name: 'Ada' }, 'no match'],
    ['[1, {k: [x]}]', [1, { k: ['deep'] }], { x: 'deep' }],
  ])('%s against %j', (source, value, expected) => {
    expect(match(source, value)).toEqual(expected);
  });
});
