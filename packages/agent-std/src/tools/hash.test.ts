import { fc, test as property } from '@fast-check/vitest';
import { describe, expect, test } from 'vitest';
import { createToolbox } from '../toolbox.ts';

const hash = createToolbox({ uses: ['std.hash'] });

describe('hash tools', () => {
  test('digests match the published test vectors (UTF-8 input)', async () => {
    expect(await hash.call('hash_md5', { text: '' })).toBe('d41d8cd98f00b204e9800998ecf8427e');
    expect(
      await hash.call('hash_md5', { text: 'The quick brown fox jumps over the lazy dog' }),
    ).toBe('9e107d9d372bb6826bd81d3542a419d6');
    expect(await hash.call('hash_sha256', { text: 'abc' })).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(await hash.call('hash_sha256', { text: '中' })).toHaveLength(64);
  });

  test('base64 round-trips UTF-8 text and accepts URL-safe, unpadded and wrapped input', async () => {
    expect(await hash.call('base64_encode', { text: '你好, world' })).toBe('5L2g5aW9LCB3b3JsZA==');
    expect(await hash.call('base64_decode', { text: '5L2g5aW9LCB3b3JsZA==' })).toBe('你好, world');
    expect(await hash.call('base64_decode', { text: '5L2g5aW9LCB3b3JsZA' })).toBe('你好, world');
    expect(await hash.call('base64_decode', { text: 'Pz8_\n' })).toBe('???');
  });

  test('invalid base64 and binary payloads are refused clearly', async () => {
    await expect(hash.call('base64_decode', { text: 'abc$' })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'text',
      message: expect.stringContaining('"$"'),
    });
    await expect(hash.call('base64_decode', { text: 'abcde' })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
    });
    await expect(hash.call('base64_decode', { text: 'ab=c' })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
    });
    await expect(hash.call('base64_decode', { text: '//79' })).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: expect.stringContaining('not UTF-8'),
    });
  });

  test('a lone surrogate is bad input, never silently replaced', async () => {
    for (const name of ['hash_md5', 'hash_sha256', 'base64_encode'] as const) {
      for (const [text, unit, index] of [
        ['a\uD800b', 'D800', 1],
        ['\uDC00', 'DC00', 0],
        ['ok😀\uD83D', 'D83D', 4],
      ] as const) {
        await expect(hash.call(name, { text }), name).rejects.toMatchObject({
          code: 'TOOL_BAD_INPUT',
          field: 'text',
          message: `text has a lone surrogate U+${unit} at index ${index}: half of a UTF-16 pair, not a character, so it has no UTF-8 form`,
        });
      }
      await expect(hash.call(name, { text: '😀' })).resolves.toEqual(expect.any(String));
    }
  });

  property.prop([fc.string({ unit: 'grapheme' })])(
    'decode(encode(text)) is text',
    async (input) => {
      const encoded = await hash.call('base64_encode', { text: input });
      expect(await hash.call('base64_decode', { text: encoded })).toBe(input);
    },
  );
});
