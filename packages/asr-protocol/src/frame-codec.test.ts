import { gunzipSync, gzipSync } from 'node:zlib';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { isAsrProtocolError } from './errors.ts';
import {
  type AsrFrame,
  decodeFrame,
  decodeFrameEnvelope,
  encodeFrame,
  FRAME_FLAGS,
  type FrameFlags,
  flagsAreLast,
  flagsHaveSequence,
} from './frame-codec.ts';

const hex = (text: string) => Uint8Array.from(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const utf8 = (text: string) => new TextEncoder().encode(text);

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (isAsrProtocolError(error)) return error.code;
    throw error;
  }
  throw new Error('expected an AsrProtocolError, but nothing was thrown');
}

// Byte vectors: header (4) [sequence (4)] [error code (4)] size (4) payload. `{"a":1}` is 7 bytes.
const VECTORS: Array<{ name: string; bytes: string; frame: AsrFrame }> = [
  {
    name: 'full client request, flags 0b0000, JSON, no compression',
    bytes: '11 10 10 00  00000007  7b2261223a317d',
    frame: {
      type: 'full-client-request',
      flags: 0,
      serialization: 'json',
      compression: 'none',
      payload: { a: 1 },
    },
  },
  {
    name: 'full client request, flags 0b0001 with sequence 1',
    bytes: '11 11 10 00  00000001  00000007  7b2261223a317d',
    frame: {
      type: 'full-client-request',
      flags: 1,
      sequence: 1,
      serialization: 'json',
      compression: 'none',
      payload: { a: 1 },
    },
  },
  {
    name: 'audio only request, flags 0b0000',
    bytes: '11 20 00 00  00000002  0102',
    frame: {
      type: 'audio-only-request',
      flags: 0,
      serialization: 'none',
      compression: 'none',
      payload: hex('0102'),
    },
  },
  {
    name: 'audio only request, flags 0b0001 with positive sequence 2',
    bytes: '11 21 00 00  00000002  00000002  0102',
    frame: {
      type: 'audio-only-request',
      flags: 1,
      sequence: 2,
      serialization: 'none',
      compression: 'none',
      payload: hex('0102'),
    },
  },
  {
    name: 'audio only request, flags 0b0010 (last, no sequence)',
    bytes: '11 22 00 00  00000002  0102',
    frame: {
      type: 'audio-only-request',
      flags: 2,
      serialization: 'none',
      compression: 'none',
      payload: hex('0102'),
    },
  },
  {
    name: 'audio only request, flags 0b0011 (last) with negative sequence -3',
    bytes: '11 23 00 00  fffffffd  00000002  0102',
    frame: {
      type: 'audio-only-request',
      flags: 3,
      sequence: -3,
      serialization: 'none',
      compression: 'none',
      payload: hex('0102'),
    },
  },
  {
    name: 'audio only request with the JSON bit set (as vendor samples send it): still bytes',
    bytes: '11 20 10 00  00000002  0102',
    frame: {
      type: 'audio-only-request',
      flags: 0,
      serialization: 'json',
      compression: 'none',
      payload: hex('0102'),
    },
  },
  {
    name: 'full server response, flags 0b0000: a partial with NO sequence (as real servers send)',
    bytes: '11 90 10 00  00000018  7b22726573756c74223a7b2274657874223a226869227d7d',
    frame: {
      type: 'full-server-response',
      flags: 0,
      serialization: 'json',
      compression: 'none',
      payload: { result: { text: 'hi' } },
    },
  },
  {
    name: 'full server response, flags 0b0001 with sequence 1',
    bytes: '11 91 10 00  00000001  00000018  7b22726573756c74223a7b2274657874223a226869227d7d',
    frame: {
      type: 'full-server-response',
      flags: 1,
      sequence: 1,
      serialization: 'json',
      compression: 'none',
      payload: { result: { text: 'hi' } },
    },
  },
  {
    name: 'full server response, flags 0b0011 with a POSITIVE sequence 5 (real final results)',
    bytes: '11 93 10 00  00000005  00000018  7b22726573756c74223a7b2274657874223a226869227d7d',
    frame: {
      type: 'full-server-response',
      flags: 3,
      sequence: 5,
      serialization: 'json',
      compression: 'none',
      payload: { result: { text: 'hi' } },
    },
  },
  {
    name: 'full server response, flags 0b0011 with negative sequence -5 (the documented form)',
    bytes: '11 93 10 00  fffffffb  00000018  7b22726573756c74223a7b2274657874223a226869227d7d',
    frame: {
      type: 'full-server-response',
      flags: 3,
      sequence: -5,
      serialization: 'json',
      compression: 'none',
      payload: { result: { text: 'hi' } },
    },
  },
  {
    name: 'full server response, flags 0b0010 (final without sequence)',
    bytes: '11 92 10 00  00000018  7b22726573756c74223a7b2274657874223a226869227d7d',
    frame: {
      type: 'full-server-response',
      flags: 2,
      serialization: 'json',
      compression: 'none',
      payload: { result: { text: 'hi' } },
    },
  },
  {
    name: 'full server response without serialization: raw bytes',
    bytes: '11 90 00 00  00000003  616263',
    frame: {
      type: 'full-server-response',
      flags: 0,
      serialization: 'none',
      compression: 'none',
      payload: utf8('abc'),
    },
  },
  {
    name: 'error message, 45000001, JSON bit, no compression, flags 0b0000 (the documented example)',
    bytes: '11 f0 10 00  02aea541  0000000b  7365727665722062757379',
    frame: {
      type: 'error',
      flags: 0,
      serialization: 'json',
      compression: 'none',
      payload: { code: 45000001, message: 'server busy' },
    },
  },
  {
    name: 'error message, 55000031, with sequence',
    bytes: '11 f1 00 00  00000007  03473bdf  0000000b  7365727665722062757379',
    frame: {
      type: 'error',
      flags: 1,
      sequence: 7,
      serialization: 'none',
      compression: 'none',
      payload: { code: 55000031, message: 'server busy' },
    },
  },
];

describe('byte vectors', () => {
  it.each(VECTORS)('$name: decodes and encodes exactly', ({ bytes, frame }) => {
    expect(decodeFrame(hex(bytes))).toEqual(frame);
    expect(toHex(encodeFrame(frame))).toBe(bytes.replace(/\s+/g, ''));
  });

  it('decodes a gzip JSON response produced by another implementation (Python gzip)', () => {
    const payload =
      '1f8b0800000000000203ab562a4a2d2ecd2951b2aa562a49ad00d24a19994ab5b5005440e51e18000000';
    const frame = decodeFrame(hex(`11 93 11 00  00000002  0000002a ${payload}`));
    expect(frame).toEqual({
      type: 'full-server-response',
      flags: 3,
      sequence: 2,
      serialization: 'json',
      compression: 'gzip',
      payload: { result: { text: 'hi' } },
    });
  });

  it('encodes gzip payloads that standard gunzip reads, with the size after compression', () => {
    const audio = new Uint8Array(6400).map((_, index) => index % 7);
    const bytes = encodeFrame({
      type: 'audio-only-request',
      flags: FRAME_FLAGS.LAST,
      serialization: 'none',
      compression: 'gzip',
      payload: audio,
    });
    expect(toHex(bytes.subarray(0, 4))).toBe('11220100');
    const size = new DataView(bytes.buffer).getUint32(4);
    expect(size).toBe(bytes.byteLength - 8);
    expect(size).toBeLessThan(audio.byteLength);
    expect(new Uint8Array(gunzipSync(bytes.subarray(8)))).toEqual(audio);
  });

  it('inflates gzip error messages and keeps plain ones that claim gzip', () => {
    const message = gzipSync(utf8('bad request'));
    const gz = new Uint8Array([
      ...hex('11 f0 11 00 02aea541'),
      0,
      0,
      0,
      message.byteLength,
      ...message,
    ]);
    expect(decodeFrame(gz)).toMatchObject({ payload: { code: 45000001, message: 'bad request' } });
    const plain = hex('11 f0 11 00  02aea541  0000000b  7365727665722062757379');
    expect(decodeFrame(plain)).toMatchObject({
      payload: { code: 45000001, message: 'server busy' },
    });
  });

  it('skips header extensions when the header size is above 1', () => {
    expect(decodeFrame(hex('12 20 00 00  abcdef01  00000001  ff'))).toEqual({
      type: 'audio-only-request',
      flags: 0,
      serialization: 'none',
      compression: 'none',
      payload: hex('ff'),
    });
  });

  it('decides the sequence by flags alone for every type', () => {
    for (const flags of [0, 1, 2, 3]) {
      expect(flagsHaveSequence(flags)).toBe(flags === 1 || flags === 3);
      expect(flagsAreLast(flags)).toBe(flags === 2 || flags === 3);
    }
  });
});

describe('malformed input', () => {
  it.each([
    ['empty input', '', 'ASR_FRAME_TRUNCATED'],
    ['short header', '11 90 10', 'ASR_FRAME_TRUNCATED'],
    ['wrong version 2', '21 90 10 00 00000000', 'ASR_FRAME_BAD_VERSION'],
    ['version 0', '01 90 10 00 00000000', 'ASR_FRAME_BAD_VERSION'],
    ['header size 0', '10 90 10 00 00000000', 'ASR_FRAME_BAD_HEADER_SIZE'],
    ['header size past the end', '13 90 10 00 00000000', 'ASR_FRAME_TRUNCATED'],
    [
      'unknown type 0b1011 (server ack of other protocols)',
      '11 b0 10 00 00000000',
      'ASR_FRAME_UNKNOWN_TYPE',
    ],
    ['unknown type 0', '11 00 10 00 00000000', 'ASR_FRAME_UNKNOWN_TYPE'],
    ['unknown flags 0b0100', '11 94 10 00 00000000', 'ASR_FRAME_BAD_FLAGS'],
    [
      'unknown serialization 0b0010 (thrift)',
      '11 90 20 00 00000000',
      'ASR_FRAME_BAD_SERIALIZATION',
    ],
    ['unknown compression 0b0010', '11 90 12 00 00000000', 'ASR_FRAME_BAD_COMPRESSION'],
    ['sequence missing although flags say it follows', '11 91 10 00 0000', 'ASR_FRAME_TRUNCATED'],
    ['payload size missing', '11 90 10 00 0000', 'ASR_FRAME_TRUNCATED'],
    ['payload size past the end', '11 90 10 00 00000010 7b7d', 'ASR_FRAME_TRUNCATED'],
    ['size 4 GiB - 1', '11 20 00 00 ffffffff 00', 'ASR_FRAME_TOO_LARGE'],
    ['bytes after the payload', '11 90 10 00 00000002 7b7d 00', 'ASR_FRAME_TRAILING_BYTES'],
    ['error code missing', '11 f0 10 00 02ae', 'ASR_FRAME_TRUNCATED'],
    ['error message size missing', '11 f0 10 00 02aea541', 'ASR_FRAME_TRUNCATED'],
    ['error message past the end', '11 f0 10 00 02aea541 00000009 41', 'ASR_FRAME_TRUNCATED'],
    ['gzip flag on bytes that are not gzip', '11 90 11 00 00000002 7b7d', 'ASR_FRAME_BAD_GZIP'],
    ['truncated gzip', `11 90 11 00 0000000a ${'1f8b0800000000000203'}`, 'ASR_FRAME_BAD_GZIP'],
    ['JSON response with an empty payload', '11 90 10 00 00000000', 'ASR_PAYLOAD_EMPTY'],
    ['JSON response that is not JSON', '11 90 10 00 00000003 3c683e', 'ASR_PAYLOAD_NOT_JSON'],
    ['JSON response that is an array', '11 90 10 00 00000002 5b5d', 'ASR_PAYLOAD_NOT_JSON'],
    ['JSON response that is invalid UTF-8', '11 90 10 00 00000003 22ff22', 'ASR_PAYLOAD_NOT_JSON'],
  ])('%s -> %s', (_name, bytes, code) => {
    expect(codeOf(() => decodeFrame(hex(bytes)))).toBe(code);
  });

  it('names what is wrong and where', () => {
    try {
      decodeFrame(hex('11 91 10 00 0000'));
      expect.unreachable();
    } catch (error) {
      expect(isAsrProtocolError(error) && error.offset).toBe(4);
      expect((error as Error).message).toMatch(
        /sequence number needs bytes 4\.\.7 but the frame has 6 bytes/,
      );
    }
  });

  it('keeps the flags of a response whose payload is unusable, so a caller can still see "last"', () => {
    try {
      decodeFrame(hex('11 93 10 00 00000004 00000000'));
      expect.unreachable();
    } catch (error) {
      expect(isAsrProtocolError(error) && error.frame).toMatchObject({
        type: 'full-server-response',
        flags: 3,
        sequence: 4,
      });
    }
  });

  it('refuses a gzip bomb with ASR_FRAME_TOO_LARGE instead of inflating it', () => {
    const bomb = gzipSync(new Uint8Array(64 * 1024 * 1024));
    expect(bomb.byteLength).toBeLessThan(100_000);
    const frame = encodeFrame({
      type: 'full-server-response',
      flags: 0,
      serialization: 'none',
      compression: 'none',
      payload: bomb,
    });
    frame[2] = 0x11; // claim JSON + gzip: the payload is now a 64 MiB bomb behind 65 kB
    expect(codeOf(() => decodeFrame(frame))).toBe('ASR_FRAME_TOO_LARGE');
    expect(codeOf(() => decodeFrame(frame, { maxPayloadBytes: 1024 }))).toBe('ASR_FRAME_TOO_LARGE');
  });

  it('on request keeps a payload that is flagged gzip but does not inflate, with the reason', () => {
    // A proxy's error page sent as a response flagged JSON + gzip, last, sequence 7.
    const html = utf8('<html>502 Bad Gateway</html>');
    const bytes = new Uint8Array([
      ...hex('11 93 11 00 00000007'),
      ...hex(html.byteLength.toString(16).padStart(8, '0')),
      ...html,
    ]);
    // decodeFrame and the default envelope decoding still refuse it.
    expect(codeOf(() => decodeFrame(bytes))).toBe('ASR_FRAME_BAD_GZIP');
    expect(codeOf(() => decodeFrameEnvelope(bytes))).toBe('ASR_FRAME_BAD_GZIP');
    const envelope = decodeFrameEnvelope(bytes, { badGzip: 'keep' });
    expect(envelope).toMatchObject({
      type: 'full-server-response',
      flags: 3,
      sequence: 7,
      compression: 'gzip',
      payload: html,
    });
    expect(envelope.gzipError).toMatchObject({ code: 'ASR_FRAME_BAD_GZIP' });
    // A good gzip payload carries no gzipError; a bomb is still refused.
    const good = encodeFrame({
      type: 'full-server-response',
      flags: 0,
      serialization: 'json',
      compression: 'gzip',
      payload: { a: 1 },
    });
    expect(decodeFrameEnvelope(good, { badGzip: 'keep' }).gzipError).toBeUndefined();
    const bomb = encodeFrame({
      type: 'full-server-response',
      flags: 0,
      serialization: 'none',
      compression: 'none',
      payload: gzipSync(new Uint8Array(4096)),
    });
    bomb[2] = 0x11;
    expect(
      codeOf(() => decodeFrameEnvelope(bomb, { badGzip: 'keep', maxPayloadBytes: 1024 })),
    ).toBe('ASR_FRAME_TOO_LARGE');
    expect(codeOf(() => decodeFrameEnvelope(bytes, { badGzip: 'maybe' as 'keep' }))).toBe(
      'ASR_INVALID_OPTIONS',
    );
  });

  it('refuses a maxPayloadBytes that is not a positive integer', () => {
    const bytes = hex('11 90 10 00 00000002 7b7d');
    for (const maxPayloadBytes of [0, -1, Number.NaN, 1.5, Number.POSITIVE_INFINITY]) {
      expect(
        codeOf(() => decodeFrame(bytes, { maxPayloadBytes })),
        String(maxPayloadBytes),
      ).toBe('ASR_INVALID_OPTIONS');
    }
  });

  it('returns the inflated payload up to the limit', () => {
    const audio = new Uint8Array(4096).fill(3);
    const bytes = encodeFrame({
      type: 'audio-only-request',
      flags: 0,
      serialization: 'none',
      compression: 'gzip',
      payload: audio,
    });
    expect(decodeFrameEnvelope(bytes, { maxPayloadBytes: 4096 }).payload).toEqual(audio);
    expect(codeOf(() => decodeFrameEnvelope(bytes, { maxPayloadBytes: 4095 }))).toBe(
      'ASR_FRAME_TOO_LARGE',
    );
  });

  it('reads frames that are views into a larger buffer at an offset', () => {
    const frame = hex('11 22 00 00  00000002  0102');
    const big = new Uint8Array(frame.byteLength + 10);
    big.set(frame, 5);
    expect(decodeFrame(big.subarray(5, 5 + frame.byteLength))).toMatchObject({
      payload: hex('0102'),
    });
  });
});

describe('frames cut at every offset', () => {
  const frames: AsrFrame[] = [
    ...VECTORS.map((vector) => vector.frame),
    {
      type: 'full-server-response',
      flags: 3,
      sequence: 9,
      serialization: 'json',
      compression: 'gzip',
      payload: {
        result: { text: '早上好 everyone', utterances: [] },
        audio_info: { duration: 4200 },
      },
    },
    {
      type: 'audio-only-request',
      flags: 0,
      serialization: 'none',
      compression: 'gzip',
      payload: new Uint8Array(640).map((_, index) => (index * 31) % 256),
    },
    {
      type: 'error',
      flags: 0,
      serialization: 'json',
      compression: 'gzip',
      payload: { code: 55000031, message: 'server busy' },
    },
  ];

  it.each(frames.map((frame, index) => ({ frame, index })))(
    'frame $index: every proper prefix throws ASR_FRAME_TRUNCATED, never a RangeError',
    ({ frame }) => {
      const bytes = encodeFrame(frame);
      for (let cut = 0; cut < bytes.byteLength; cut += 1) {
        const code = codeOf(() => decodeFrame(bytes.subarray(0, cut)));
        expect(code).toBe('ASR_FRAME_TRUNCATED');
      }
      expect(decodeFrame(bytes)).toEqual(frame);
    },
  );
});

describe('encoding refuses inconsistent frames', () => {
  const base = {
    type: 'audio-only-request',
    serialization: 'none',
    compression: 'none',
    payload: new Uint8Array(1),
  } as const;
  it.each([
    ['flags 0b0001 without a sequence', { ...base, flags: 1 }],
    ['flags 0b0011 without a sequence', { ...base, flags: 3 }],
    ['a sequence with flags 0b0000', { ...base, flags: 0, sequence: 4 }],
    ['a sequence beyond 32 bits', { ...base, flags: 1, sequence: 2 ** 31 }],
    ['a fractional sequence', { ...base, flags: 1, sequence: 1.5 }],
    ['flags 4', { ...base, flags: 4 }],
    ['an unknown type', { ...base, type: 'ack', flags: 0 }],
    // Names every plain object inherits must not pass for a message type.
    ['type "constructor"', { ...base, type: 'constructor', flags: 0 }],
    ['type "toString"', { ...base, type: 'toString', flags: 0 }],
    ['type "__proto__"', { ...base, type: '__proto__', flags: 0 }],
    [
      'JSON whose toJSON() yields nothing',
      {
        ...base,
        type: 'full-client-request',
        serialization: 'json',
        flags: 0,
        payload: { toJSON: () => undefined },
      },
    ],
    [
      'bytes where JSON is declared',
      { ...base, type: 'full-client-request', serialization: 'json', flags: 0 },
    ],
    ['a JSON object where bytes are declared', { ...base, flags: 0, payload: { a: 1 } }],
    [
      'an error code beyond uint32',
      { ...base, type: 'error', flags: 0, payload: { code: -1, message: 'x' } },
    ],
    ['an unknown compression', { ...base, flags: 0, compression: 'zstd' }],
    [
      'a BigInt in JSON',
      { ...base, type: 'full-client-request', serialization: 'json', flags: 0, payload: { n: 1n } },
    ],
  ])('%s', (_name, frame) => {
    expect(codeOf(() => encodeFrame(frame as unknown as AsrFrame))).toBe('ASR_FRAME_INVALID');
  });
});

// --- property tests ---------------------------------------------------------------------------

const flagsArbitrary = fc.constantFrom<FrameFlags>(0, 1, 2, 3);
const sequenceFor = (flags: FrameFlags) =>
  flagsHaveSequence(flags)
    ? fc.integer({ min: -0x80000000, max: 0x7fffffff }).map((sequence) => ({ sequence }))
    : fc.constant({});
const compressionArbitrary = fc.constantFrom('none' as const, 'gzip' as const);
// Objects that survive JSON: no -0 (JSON writes 0), no "__proto__" keys (JSON.parse makes them own).
const jsonObjectArbitrary = fc.dictionary(
  fc.string().filter((key) => key !== '__proto__'),
  fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value))),
  { maxKeys: 6 },
);
const bytesArbitrary = fc.uint8Array({ maxLength: 2048 });

const json = fc.constant('json' as const);
const none = fc.constant('none' as const);
const either = fc.constantFrom('none' as const, 'json' as const);

/** One frame shape: its type, which serializations it may carry, and its payloads. */
function variant(
  type: AsrFrame['type'],
  serialization: fc.Arbitrary<'none' | 'json'>,
  payload: fc.Arbitrary<unknown>,
) {
  return flagsArbitrary.chain((flags) =>
    fc
      .record({
        type: fc.constant(type),
        flags: fc.constant(flags),
        sequence: sequenceFor(flags),
        serialization,
        compression: compressionArbitrary,
        payload,
      })
      .map(({ sequence, ...rest }) => ({ ...rest, ...sequence }) as AsrFrame),
  );
}

const frameArbitrary: fc.Arbitrary<AsrFrame> = fc.oneof(
  variant('full-client-request', json, jsonObjectArbitrary),
  variant('audio-only-request', either, bytesArbitrary),
  variant('full-server-response', none, bytesArbitrary),
  variant('full-server-response', json, jsonObjectArbitrary),
  variant('error', either, fc.record({ code: fc.nat({ max: 0xffffffff }), message: fc.string() })),
);

/** The property every input must have: it decodes, or it throws this package's error. */
function decodesOrThrowsPackageError(bytes: Uint8Array): void {
  try {
    decodeFrame(bytes);
  } catch (error) {
    expect(isAsrProtocolError(error), String(error)).toBe(true);
  }
}

describe('properties', () => {
  test.prop([frameArbitrary], { numRuns: 500 })('decodeFrame(encodeFrame(f)) equals f', (frame) => {
    expect(decodeFrame(encodeFrame(frame))).toEqual(frame);
  });

  test.prop([fc.uint8Array({ maxLength: 64 })], { numRuns: 2000 })(
    'any bytes decode or throw the package error',
    decodesOrThrowsPackageError,
  );

  test.prop([frameArbitrary, fc.nat(), fc.integer({ min: 0, max: 255 })], { numRuns: 500 })(
    'a valid frame with one byte changed decodes or throws the package error',
    (frame, position, value) => {
      const bytes = encodeFrame(frame);
      bytes[position % bytes.byteLength] = value;
      decodesOrThrowsPackageError(bytes);
    },
  );

  test.prop(
    [
      fc.constantFrom(0x11, 0x12),
      fc.constantFrom(
        0x10,
        0x11,
        0x12,
        0x13,
        0x20,
        0x21,
        0x22,
        0x23,
        0x90,
        0x91,
        0x92,
        0x93,
        0xf0,
        0xf1,
        0xf2,
        0xf3,
      ),
      fc.constantFrom(0x00, 0x01, 0x10, 0x11),
      fc.uint8Array({ maxLength: 64 }),
    ],
    { numRuns: 2000 },
  )('bytes behind a plausible header decode or throw the package error', (b0, b1, b2, rest) => {
    decodesOrThrowsPackageError(new Uint8Array([b0, b1, b2, 0, ...rest]));
  });
});
