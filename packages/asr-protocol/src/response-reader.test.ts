// The response reader on decoded frames alone: no socket, no timers.
import { describe, expect, it } from 'vitest';
import {
  decodeFrameEnvelope,
  encodeFrame,
  FRAME_FLAGS,
  type FrameEnvelope,
  type FrameFlags,
  type JsonObject,
} from './frame-codec.ts';
import { createResponseReader, type ResponseReading } from './response-reader.ts';

const envelopeOf = (bytes: Uint8Array): FrameEnvelope =>
  decodeFrameEnvelope(bytes, { badGzip: 'keep' });

/**
 * A full server response: a JSON object as the service sends it (JSON + gzip), or a string sent
 * as it is where JSON is declared (nothing checked, no compression).
 */
function response(
  payload: JsonObject | string,
  flags: FrameFlags = 0,
  sequence?: number,
): FrameEnvelope {
  const body =
    typeof payload === 'string'
      ? {
          serialization: 'none' as const,
          compression: 'none' as const,
          payload: new TextEncoder().encode(payload),
        }
      : { serialization: 'json' as const, compression: 'gzip' as const, payload };
  return envelopeOf(
    encodeFrame({
      type: 'full-server-response',
      flags,
      ...(sequence === undefined ? {} : { sequence }),
      ...body,
    }),
  );
}

const utterance = (text: string, start: number, end: number, definite: boolean) => ({
  text,
  start_time: start,
  end_time: end,
  definite,
});

const eventTypes = (reading: ResponseReading) => reading.events.map((event) => event.type);

describe('usable responses', () => {
  it('reports each definite utterance once and the partial as it changes', () => {
    const reader = createResponseReader();
    const first = reader.read(
      response({
        audio_info: { duration: 600 },
        result: { text: 'Good', utterances: [utterance('Good', 0, 600, false)] },
      }),
    );
    expect(first.events).toEqual([
      {
        type: 'response-receive',
        sequence: undefined,
        last: false,
        response: {
          audio_info: { duration: 600 },
          result: { text: 'Good', utterances: [utterance('Good', 0, 600, false)] },
        },
        text: 'Good',
        utterances: [utterance('Good', 0, 600, false)],
        audioDurationMs: 600,
      },
      {
        type: 'partial-update',
        text: 'Good',
        utterance: utterance('Good', 0, 600, false),
        audioDurationMs: 600,
      },
    ]);
    const definite = {
      audio_info: { duration: 2200 },
      result: {
        text: 'Good morning. Today',
        utterances: [
          utterance('Good morning.', 0, 1300, true),
          utterance('Today', 1700, 2200, false),
        ],
      },
    };
    const second = reader.read(response(definite, FRAME_FLAGS.SEQUENCE, 7));
    expect(eventTypes(second)).toEqual([
      'response-receive',
      'utterance-complete',
      'partial-update',
    ]);
    expect(second.events[0]).toMatchObject({ sequence: 7, last: false });
    expect(second.events[1]).toMatchObject({
      utterance: { text: 'Good morning.', definite: true },
      audioDurationMs: 2200,
    });
    // The same sentences again (result_type full): nothing new to report.
    expect(eventTypes(reader.read(response(definite)))).toEqual(['response-receive']);
    expect(second.final).toBeUndefined();
    expect(reader.counts).toEqual({
      responses: 3,
      ignoredPayloads: { empty: 0, notJson: 0, invalid: 0, successCode: 0 },
      audioDurationMs: 2200,
    });
  });

  it('ends with the final response: its text, and every definite utterance in order', () => {
    const reader = createResponseReader();
    reader.read(response({ result: { text: 'A.', utterances: [utterance('A.', 0, 500, true)] } }));
    const final = {
      audio_info: { duration: 1400 },
      result: {
        text: 'A. B.',
        utterances: [utterance('A.', 0, 500, true), utterance('B.', 700, 1200, true)],
      },
    };
    const reading = reader.read(response(final, FRAME_FLAGS.LAST_WITH_SEQUENCE, 4));
    expect(reading.events[0]).toMatchObject({ type: 'response-receive', sequence: 4, last: true });
    expect(reading.final).toEqual({
      text: 'A. B.',
      utterances: [utterance('A.', 0, 500, true), utterance('B.', 700, 1200, true)],
      response: final,
      audioDurationMs: 1400,
    });
    expect(reading.failure).toBeUndefined();
  });

  it('reads the partial from result.text when there are no utterances, only when it changes', () => {
    const reader = createResponseReader();
    const partials = (text: string) =>
      reader
        .read(response({ result: { text } }))
        .events.flatMap((event) => (event.type === 'partial-update' ? [event.text] : []));
    expect(partials('')).toEqual([]);
    expect(partials('Open')).toEqual(['Open']);
    expect(partials('Open')).toEqual([]);
    expect(partials('Open your books.')).toEqual(['Open your books.']);
  });

  it('reads a result sent as a list: the first text, the utterances of every item', () => {
    const reader = createResponseReader();
    const reading = reader.read(
      response({
        result: [
          { text: 'One.', utterances: [utterance('One.', 0, 400, true)] },
          { text: 'Two.', utterances: [utterance('Two.', 500, 900, true)] },
        ],
      }),
    );
    expect(reading.events[0]).toMatchObject({ text: 'One.' });
    expect(
      reading.events.flatMap((event) =>
        event.type === 'utterance-complete' ? [event.utterance.text] : [],
      ),
    ).toEqual(['One.', 'Two.']);
  });
});

describe('ignored payloads', () => {
  it.each<[string, FrameEnvelope, 'empty' | 'not-json' | 'invalid', RegExp]>([
    ['an empty payload', response(''), 'empty', /empty/],
    ['HTML', response('<html>502</html>'), 'not-json', /JSON/],
    ['a JSON list', response('[1,2]'), 'not-json', /object/],
    [
      'a response of the wrong shape',
      response('{"result":{"text":42}}'),
      'invalid',
      /^response does not fit the protocol: result/,
    ],
    // Header 0x11 0x90 0x11 0x00 (response, JSON, gzip), size 4, then "oops": not gzip at all.
    [
      'a payload flagged gzip that does not inflate',
      envelopeOf(Buffer.from('1190110000000004' + '6f6f7073', 'hex')),
      'not-json',
      /gzip/,
    ],
  ])('ignores and counts %s', (_name, envelope, reason, detail) => {
    const reader = createResponseReader();
    const reading = reader.read(envelope);
    expect(reading.events).toEqual([
      {
        type: 'payload-ignore',
        reason,
        detail: expect.stringMatching(detail),
        sequence: undefined,
        last: false,
      },
    ]);
    expect(reading.final).toBeUndefined();
    expect(reading.failure).toBeUndefined();
    const counts = reader.counts.ignoredPayloads;
    expect(counts.empty + counts.notJson + counts.invalid).toBe(1);
    expect(reader.counts.responses).toBe(0);
  });

  it('ends normally on an unusable final payload, keeping what was recognised before', () => {
    const reader = createResponseReader();
    reader.read(
      response({
        audio_info: { duration: 1600 },
        result: {
          text: 'Done. And',
          utterances: [utterance('Done.', 0, 600, true), utterance('And', 1000, 1600, false)],
        },
      }),
    );
    const reading = reader.read(response('', FRAME_FLAGS.LAST_WITH_SEQUENCE, 9));
    expect(reading.events).toMatchObject([
      { type: 'payload-ignore', reason: 'empty', last: true, sequence: 9 },
    ]);
    expect(reading.final).toEqual({
      text: 'Done. And',
      utterances: [utterance('Done.', 0, 600, true)],
      response: undefined,
      audioDurationMs: 1600,
    });
    expect(reader.counts.ignoredPayloads.empty).toBe(1);
  });
});

describe('error frames and foreign frames', () => {
  // Header 0x11 0xf0 0x10 0x00 (error, JSON, no compression), code, message size, message.
  const errorFrame = (code: number, message: string) => {
    const text = Buffer.from(message);
    const head = Buffer.alloc(12);
    head.writeUInt32BE(0x11f01000, 0);
    head.writeUInt32BE(code, 4);
    head.writeUInt32BE(text.byteLength, 8);
    return envelopeOf(Buffer.concat([head, text]));
  };

  it('fails the stream on a service error, saying whether to retry and carrying the log id', () => {
    const reading = createResponseReader().read(errorFrame(55000031, 'busy'), { logId: 'log-1' });
    expect(reading.events).toEqual([]);
    expect(reading.final).toBeUndefined();
    expect(reading.failure).toMatchObject({
      code: 'ASR_SERVICE_ERROR',
      serviceCode: 55000031,
      serviceMessage: 'busy',
      retryable: true,
      logId: 'log-1',
      message: 'service error 55000031 (server busy): busy',
    });
  });

  it('ignores an error frame carrying 20000000 (success)', () => {
    const reader = createResponseReader();
    const reading = reader.read(errorFrame(20000000, 'OK'));
    expect(reading.events).toEqual([
      {
        type: 'payload-ignore',
        reason: 'success-code',
        detail: 'error frame with code 20000000 (success): OK',
        sequence: undefined,
        last: false,
      },
    ]);
    expect(reading.failure).toBeUndefined();
    expect(reader.counts.ignoredPayloads.successCode).toBe(1);
  });

  it('fails on a frame type only clients send', () => {
    const audio = envelopeOf(Buffer.from('112000000000000105', 'hex'));
    expect(createResponseReader().read(audio).failure).toMatchObject({
      code: 'ASR_UNEXPECTED_FRAME',
      message: 'the service sent a audio-only-request frame, which only clients send',
    });
  });
});

it('hands out counters as snapshots', () => {
  const reader = createResponseReader();
  const before = reader.counts;
  reader.read(response(''));
  expect(before.ignoredPayloads.empty).toBe(0);
  expect(reader.counts.ignoredPayloads.empty).toBe(1);
});
