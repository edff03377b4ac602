import { describe, expect, test } from 'vitest';
import { createToolbox } from '../toolbox.ts';

const regex = createToolbox({ uses: ['std.regex'] });

describe('regex_match', () => {
  test('returns every whole match with its count', async () => {
    expect(
      await regex.call('regex_match', {
        pattern: '\\d{4}-\\d{2}',
        text: 'from 2024-05 to 2025-01',
      }),
    ).toEqual({ matches: ['2024-05', '2025-01'], count: 2 });
    expect(await regex.call('regex_match', { pattern: '(\\w)(\\d)', text: 'a1 b2' })).toEqual({
      matches: ['a1', 'b2'],
      count: 2,
    });
    expect(await regex.call('regex_match', { pattern: 'x', text: 'abc' })).toEqual({
      matches: [],
      count: 0,
    });
  });

  test('empty matches behave as in Python findall', async () => {
    expect(await regex.call('regex_match', { pattern: 'a*', text: 'baaac' })).toEqual({
      matches: ['', 'aaa', '', ''],
      count: 4,
    });
  });

  test('flags i, m and s', async () => {
    expect(
      (await regex.call('regex_match', { pattern: 'hello', text: 'Hello HELLO', flags: 'i' }))
        .count,
    ).toBe(2);
    expect(
      (await regex.call('regex_match', { pattern: '^\\w+$', text: 'one\ntwo', flags: 'm' }))
        .matches,
    ).toEqual(['one', 'two']);
    expect((await regex.call('regex_match', { pattern: 'a.b', text: 'a\nb' })).count).toBe(0);
    expect(
      (await regex.call('regex_match', { pattern: 'a.b', text: 'a\nb', flags: 's' })).count,
    ).toBe(1);
    await expect(
      regex.call('regex_match', { pattern: 'a', text: 'a', flags: 'g' }),
    ).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'flags',
    });
  });

  test('catastrophic patterns finish: (a+)+$ against 100 000 a and a b', async () => {
    const text = `${'a'.repeat(100_000)}b`;
    expect(await regex.call('regex_match', { pattern: '(a+)+$', text })).toEqual({
      matches: [],
      count: 0,
    });
    expect(
      await regex.call('regex_match', { pattern: '(x+x+)+y', text: 'x'.repeat(50_000) }),
    ).toEqual({
      matches: [],
      count: 0,
    });
    expect(
      (await regex.call('regex_match', { pattern: '(.*a){20}', text: 'a'.repeat(30_000) })).count,
    ).toBe(1);
  });

  test('lookaround and backreferences are refused with the reason', async () => {
    for (const pattern of ['(?<=a)b', '(?!x)y', '(a)\\1']) {
      await expect(regex.call('regex_match', { pattern, text: 'ab' })).rejects.toMatchObject({
        code: 'TOOL_BAD_INPUT',
        field: 'pattern',
        message: expect.stringContaining('linear time'),
      });
    }
    await expect(
      regex.call('regex_match', { pattern: '(unclosed', text: 'x' }),
    ).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'pattern',
      message: expect.stringContaining('missing closing )'),
    });
  });

  test('pattern and text size caps, and match-list truncation', async () => {
    const small = createToolbox({
      uses: ['std.regex'],
      policy: { regex: { maxPatternLength: 10, maxTextLength: 100, maxMatches: 3 } },
    });
    await expect(
      small.call('regex_match', { pattern: 'a'.repeat(11), text: '' }),
    ).rejects.toMatchObject({
      code: 'TOOL_LIMIT_EXCEEDED',
      field: 'pattern',
    });
    await expect(
      small.call('regex_match', { pattern: 'a', text: 'a'.repeat(101) }),
    ).rejects.toMatchObject({
      code: 'TOOL_LIMIT_EXCEEDED',
      field: 'text',
    });
    expect(await small.call('regex_match', { pattern: 'a', text: 'aaaaa' })).toEqual({
      matches: ['a', 'a', 'a'],
      count: 5,
      truncated: true,
    });
  });
});

describe('regex_replace', () => {
  test('replaces every match, expanding $1, $<name>, $& and $$', async () => {
    expect(
      await regex.call('regex_replace', {
        pattern: '(\\d{4})-(\\d{2})',
        replacement: '$2/$1',
        text: '2024-05 and 2025-01',
      }),
    ).toBe('05/2024 and 01/2025');
    expect(
      await regex.call('regex_replace', {
        pattern: '(?P<word>\\w+)@',
        replacement: '<$<word>> $$ [$&]',
        text: 'me@x',
      }),
    ).toBe('<me> $ [me@]x');
    expect(
      await regex.call('regex_replace', {
        pattern: 'CAT',
        replacement: 'dog',
        text: 'Cat cat',
        flags: 'i',
      }),
    ).toBe('dog dog');
    expect(await regex.call('regex_replace', { pattern: 'z', replacement: 'y', text: 'abc' })).toBe(
      'abc',
    );
  });

  test('a catastrophic pattern does not hang replacement either', async () => {
    const text = `${'a'.repeat(50_000)}!`;
    expect(await regex.call('regex_replace', { pattern: '(a|aa)+$', replacement: '', text })).toBe(
      text,
    );
  });

  test('an output past the cap is refused before it is built', async () => {
    const before = process.memoryUsage().rss;
    for (const input of [
      { pattern: '', replacement: 'R'.repeat(300), text: 'a'.repeat(1_000_000) },
      { pattern: 'x*', replacement: 'R'.repeat(1000), text: 'a'.repeat(1_000_000) },
      // $` inserts everything before the match: quadratic in the text.
      { pattern: 'a', replacement: '$`', text: 'a'.repeat(100_000) },
      { pattern: '(a+)', replacement: '$1'.repeat(5000), text: 'a'.repeat(1_000_000) },
    ]) {
      await expect(regex.call('regex_replace', input)).rejects.toMatchObject({
        code: 'TOOL_LIMIT_EXCEEDED',
        field: 'replacement',
        message: expect.stringContaining('policy.regex.maxOutputLength'),
      });
    }
    // Nothing of that size was ever built.
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });

  test('a replacement past its cap is refused', async () => {
    await expect(
      regex.call('regex_replace', { pattern: 'a', replacement: 'R'.repeat(10_001), text: 'a' }),
    ).rejects.toMatchObject({
      code: 'TOOL_LIMIT_EXCEEDED',
      field: 'replacement',
      message: expect.stringContaining('policy.regex.maxReplacementLength'),
    });
  });

  test('the output length is computed exactly, for every kind of $-reference', async () => {
    const cases = [
      { pattern: '(?P<n>b)(c)?', replacement: "[$1|$2|$<n>|$&|$`|$'|$$|$0|$10|$<none>|$<|$]" },
      { pattern: '(b)', replacement: '$<n>$11$01$' },
      { pattern: '', replacement: '-' },
      { pattern: 'x*', replacement: '<$&>' },
      { pattern: '😀', replacement: '$`$`' },
    ];
    for (const { pattern, replacement } of cases) {
      const text = 'ab😀bcd b';
      const expected = await regex.call('regex_replace', { pattern, replacement, text });
      const capped = (maxOutputLength: number) =>
        createToolbox({ uses: ['std.regex'], policy: { regex: { maxOutputLength } } }).call(
          'regex_replace',
          { pattern, replacement, text },
        );
      expect(await capped(expected.length), replacement).toBe(expected);
      await expect(capped(expected.length - 1), replacement).rejects.toMatchObject({
        code: 'TOOL_LIMIT_EXCEEDED',
      });
    }
  });
});
