import { describe, expect, test } from 'vitest';
import { createToolbox } from '../toolbox.ts';
import { isRawJsonNumber } from './exact-json.ts';
import { splitJsonPath } from './json.ts';

const json = createToolbox({ uses: ['std.json'] });
const doc = JSON.stringify({
  items: [{ name: 'first', tags: ['a', 'b'] }, { name: 'second' }],
  0: 'key zero',
  'a.b': { c: true },
  nothing: null,
});

describe('json tools', () => {
  test('json_parse re-indents with 2 spaces and keeps non-ASCII text', async () => {
    expect(await json.call('json_parse', { text: '{"课":[1,{"b":null}]}' })).toBe(
      '{\n  "课": [\n    1,\n    {\n      "b": null\n    }\n  ]\n}',
    );
    await expect(json.call('json_parse', { text: '{"a":' })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'text',
      message: expect.stringContaining('not valid JSON'),
    });
  });

  test('json_get walks keys and array indices (items.0.name)', async () => {
    expect(await json.call('json_get', { text: doc, path: 'items.0.name' })).toBe('first');
    expect(await json.call('json_get', { text: doc, path: 'items.0.tags.1' })).toBe('b');
    expect(await json.call('json_get', { text: doc, path: 'items.1' })).toEqual({ name: 'second' });
    expect(await json.call('json_get', { text: doc, path: 'nothing' })).toBeNull();
    expect(await json.call('json_get', { text: '[1,2]', path: '' })).toEqual([1, 2]);
  });

  test('json_get: a number is a key on objects and an index on arrays; \\. escapes a dot', async () => {
    expect(await json.call('json_get', { text: doc, path: '0' })).toBe('key zero');
    expect(await json.call('json_get', { text: '[["x"]]', path: '0.0' })).toBe('x');
    expect(await json.call('json_get', { text: doc, path: 'a\\.b.c' })).toBe(true);
    await expect(json.call('json_get', { text: doc, path: 'items.name' })).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
      message: expect.stringContaining('is an array'),
    });
    await expect(json.call('json_get', { text: doc, path: 'items.01' })).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
    await expect(json.call('json_get', { text: doc, path: 'items.5' })).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
      message: expect.stringContaining('past the end'),
    });
    await expect(
      json.call('json_get', { text: doc, path: 'items.0.name.x' }),
    ).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
      message: expect.stringContaining('a string'),
    });
  });

  test('json_get never reaches into the prototype', async () => {
    for (const path of ['constructor', '__proto__', 'toString', 'items.length']) {
      await expect(json.call('json_get', { text: doc, path })).rejects.toMatchObject({
        code: 'TOOL_NOT_FOUND',
      });
    }
    expect(
      await json.call('json_get', { text: '{"__proto__":{"x":1}}', path: '__proto__.x' }),
    ).toBe(1);
  });

  test('the model reads json_get results as JSON, so "42" and 42 differ', async () => {
    expect((await json.callForModel('json_get', { text: '{"a":"42"}', path: 'a' })).content).toBe(
      '"42"',
    );
    expect((await json.callForModel('json_get', { text: '{"a":42}', path: 'a' })).content).toBe(
      '42',
    );
  });

  test('json_stringify re-formats with the indent (0 = compact, max 10)', async () => {
    expect(await json.call('json_stringify', { data: '{"a": [1, 2]}' })).toBe(
      '{\n  "a": [\n    1,\n    2\n  ]\n}',
    );
    expect(await json.call('json_stringify', { data: '{"a": [1, 2]}', indent: 0 })).toBe(
      '{"a":[1,2]}',
    );
    expect(await json.call('json_stringify', { data: '[1]', indent: 4 })).toBe('[\n    1\n]');
    await expect(json.call('json_stringify', { data: '[1]', indent: 11 })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'indent',
    });
    await expect(json.call('json_stringify', { data: 'nope' })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'data',
    });
  });

  test('numbers keep their exact value and spelling: big integers, 1.0, exponents', async () => {
    const text = '{"id":12345678901234567890,"price":1.0,"rate":2.50E-3,"tiny":1e-400}';
    expect(await json.call('json_stringify', { data: text, indent: 0 })).toBe(text);
    expect(await json.call('json_parse', { text: '[12345678901234567890, 1.0]' })).toBe(
      '[\n  12345678901234567890,\n  1.0\n]',
    );
    const big = await json.call('json_get', { text, path: 'id' });
    expect(JSON.stringify(big)).toBe('12345678901234567890');
    expect(isRawJsonNumber(big)).toBe(true);
    expect((await json.callForModel('json_get', { text, path: 'id' })).content).toBe(
      '12345678901234567890',
    );
    expect((await json.callForModel('json_get', { text, path: '' })).content).toBe(
      '{"id":12345678901234567890,"price":1,"rate":0.0025,"tiny":1e-400}',
    );
    // Numbers a double holds exactly come back as plain numbers.
    expect(await json.call('json_get', { text, path: 'price' })).toBe(1);
    expect(await json.call('json_get', { text: '{"a":[2]}', path: 'a' })).toEqual([2]);
  });

  test('non-finite numbers are refused naming the number', async () => {
    for (const [name, input] of [
      ['json_parse', { text: '{"a":1e400}' }],
      ['json_stringify', { data: '[-1e400]' }],
      ['json_get', { text: '{"a":1e400}', path: 'a' }],
    ] as const) {
      await expect(json.call(name, input as never), name).rejects.toMatchObject({
        code: 'TOOL_BAD_INPUT',
        message: expect.stringContaining('1e400 is beyond the range of a floating-point number'),
      });
    }
  });

  test('path splitting', () => {
    expect(splitJsonPath('')).toEqual([]);
    expect(splitJsonPath('a.b')).toEqual(['a', 'b']);
    expect(splitJsonPath('a\\.b.c')).toEqual(['a.b', 'c']);
    expect(splitJsonPath('a..b')).toEqual(['a', '', 'b']);
  });

  test('pretty-printed output past the cap is refused before it is built', async () => {
    // 400 000 characters: 200 000 numbers 50 levels deep, each on a line indented by 510 spaces.
    const wide = `${'['.repeat(50)}${Array(200_000).fill(1).join(',')}${']'.repeat(50)}`;
    await expect(json.call('json_stringify', { data: wide, indent: 10 })).rejects.toMatchObject({
      code: 'TOOL_LIMIT_EXCEEDED',
      message: expect.stringContaining('policy.json.maxOutputLength'),
    });
    await expect(json.call('json_parse', { text: wide })).rejects.toMatchObject({
      code: 'TOOL_LIMIT_EXCEEDED',
    });
    const value =
      '{"a":[1.0,"x",{"b":null,"c":[]}],"d":{},"e\\"f":true,"g":"é","h":12345678901234567890}';
    for (const indent of [0, 2, 7]) {
      const expected = await json.call('json_stringify', { data: value, indent });
      const capped = (maxOutputLength: number) =>
        createToolbox({ uses: ['std.json'], policy: { json: { maxOutputLength } } }).call(
          'json_stringify',
          { data: value, indent },
        );
      expect(await capped(expected.length)).toBe(expected);
      await expect(capped(expected.length - 1)).rejects.toMatchObject({
        code: 'TOOL_LIMIT_EXCEEDED',
      });
    }
  });

  test('JSON nested too deeply for the runtime is a limit, not a crash', async () => {
    const nested = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    for (const [name, input] of [
      ['json_stringify', { data: nested, indent: 0 }],
      ['json_parse', { text: nested }],
      ['json_get', { text: nested, path: '0' }],
    ] as const) {
      await expect(json.call(name, input as never)).rejects.toMatchObject({
        code: 'TOOL_LIMIT_EXCEEDED',
        message: expect.stringContaining('nested too deeply'),
      });
    }
  });
});
