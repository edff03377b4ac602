import { fc, test as property } from '@fast-check/vitest';
import { describe, expect, test } from 'vitest';
import { createToolbox } from '../toolbox.ts';
import { replaceText, splitText } from './text.ts';

const text = createToolbox({ uses: ['std.text'] });

describe('text tools (Python str semantics)', () => {
  test('text_split: newline by default, max_splits keeps the rest in the last part', async () => {
    expect(await text.call('text_split', { text: 'a\nb\nc' })).toEqual({
      parts: ['a', 'b', 'c'],
      count: 3,
    });
    expect(await text.call('text_split', { text: 'k=v=w', delimiter: '=', max_splits: 1 })).toEqual(
      { parts: ['k', 'v=w'], count: 2 },
    );
    expect(await text.call('text_split', { text: 'abc', delimiter: ',', max_splits: 0 })).toEqual({
      parts: ['abc'],
      count: 1,
    });
    expect(await text.call('text_split', { text: ',a,', delimiter: ',' })).toEqual({
      parts: ['', 'a', ''],
      count: 3,
    });
    await expect(text.call('text_split', { text: 'a', delimiter: '' })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'delimiter',
    });
    await expect(text.call('text_split', { text: 'a', max_splits: -2 })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'max_splits',
    });
  });

  test('text_replace: all by default, count limits, empty old inserts between characters', async () => {
    expect(await text.call('text_replace', { text: 'a-b-c', old: '-', new: '+' })).toBe('a+b+c');
    expect(await text.call('text_replace', { text: 'a-b-c', old: '-', new: '+', count: 1 })).toBe(
      'a+b-c',
    );
    expect(await text.call('text_replace', { text: 'a😀', old: '', new: '|' })).toBe('|a|😀|');
    expect(await text.call('text_replace', { text: 'abc', old: '', new: '|', count: 2 })).toBe(
      '|a|bc',
    );
    expect(await text.call('text_replace', { text: 'aaa', old: 'aa', new: 'b' })).toBe('ba');
    expect(await text.call('text_replace', { text: '$&', old: '$&', new: '$1' })).toBe('$1');
  });

  test('text_upper / text_lower are Unicode-aware', async () => {
    expect(await text.call('text_upper', { text: 'straße éa' })).toBe('STRASSE ÉA');
    expect(await text.call('text_lower', { text: 'ÀÉÎ ΣΑ' })).toBe('àéî σα');
  });

  property.prop([fc.string(), fc.string({ minLength: 1, maxLength: 3 })])(
    'splitting then joining with the delimiter gives the text back',
    (input, delimiter) => {
      expect(splitText(input, delimiter, -1).join(delimiter)).toBe(input);
    },
  );

  property.prop([fc.string(), fc.string({ minLength: 1, maxLength: 3 }), fc.string()])(
    'replacing all agrees with String.prototype.replaceAll for a non-empty old',
    (input, old, replacement) => {
      expect(replaceText(input, old, replacement, -1)).toBe(input.split(old).join(replacement));
    },
  );

  test('text_replace refuses an output past the cap before building it', async () => {
    const before = process.memoryUsage().rss;
    for (const input of [
      { text: 'a'.repeat(1_000_000), old: '', new: 'R'.repeat(300) },
      { text: 'a'.repeat(1_000_000), old: 'a', new: 'R'.repeat(5000) },
    ]) {
      await expect(text.call('text_replace', input)).rejects.toMatchObject({
        code: 'TOOL_LIMIT_EXCEEDED',
        field: 'new',
        message: expect.stringContaining('policy.text.maxOutputLength'),
      });
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    await expect(
      text.call('text_replace', { text: 'a', old: 'a', new: 'R'.repeat(10_001) }),
    ).rejects.toMatchObject({
      code: 'TOOL_LIMIT_EXCEEDED',
      field: 'new',
      message: expect.stringContaining('policy.text.maxReplacementLength'),
    });
  });

  test('output caps are exact; text_upper and text_lower are capped too', async () => {
    const cases = [
      { text: 'a😀b', old: '', new: 'xy', count: -1 },
      { text: 'a😀b', old: '', new: 'xy', count: 2 },
      { text: 'abab', old: 'ab', new: 'xyz', count: -1 },
      { text: 'abab', old: 'ab', new: 'xyz', count: 1 },
      { text: 'abab', old: 'ab', new: '', count: -1 },
    ];
    for (const input of cases) {
      const expected = await text.call('text_replace', input);
      const capped = (maxOutputLength: number) =>
        createToolbox({ uses: ['std.text'], policy: { text: { maxOutputLength } } }).call(
          'text_replace',
          input,
        );
      expect(await capped(Math.max(1, expected.length))).toBe(expected);
      if (expected.length > 1) {
        await expect(capped(expected.length - 1)).rejects.toMatchObject({
          code: 'TOOL_LIMIT_EXCEEDED',
        });
      }
    }
    const small = createToolbox({ uses: ['std.text'], policy: { text: { maxOutputLength: 5 } } });
    // ß upper-cases to SS: three characters become six.
    await expect(small.call('text_upper', { text: 'ßßß' })).rejects.toMatchObject({
      code: 'TOOL_LIMIT_EXCEEDED',
      field: 'text',
    });
    expect(await small.call('text_upper', { text: 'ßß' })).toBe('SSSS');
    expect(await small.call('text_lower', { text: 'ABCDE' })).toBe('abcde');
  });
});
