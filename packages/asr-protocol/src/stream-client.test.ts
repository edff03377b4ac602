import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { splitPcm } from './audio-packets.ts';
import type { AsrEndpoint } from './endpoints.ts';
import { type AsrProtocolError, isAsrProtocolError } from './errors.ts';
import type { AsrFrame } from './frame-codec.ts';
import { type AsrStream, connectAsrStream } from './stream-client.ts';
import { ASR_STREAM_EVENT_TYPES, type AsrStreamEvent } from './stream-events.ts';
import type { AsrStreamOptions } from './stream-options.ts';
import {
  type AsrTestServer,
  type AsrTestServerOptions,
  createAsrTestServer,
} from './testing/index.ts';
import { readWavFile } from './wav.ts';
import type {
  WebSocketConstructor,
  WebSocketLike,
  WebSocketLikeOptions,
} from './web-socket-like.ts';

const SCRIPT = [
  { text: 'Good morning, class.', start_time: 0, end_time: 1300 },
  { text: 'Today we talk about photosynthesis.', start_time: 1700, end_time: 4000 },
];

let lecture: Uint8Array;
beforeAll(async () => {
  lecture = (
    await readWavFile(new URL('../test/fixtures/lecture-mono-16k.wav', import.meta.url).pathname)
  ).data;
});

const servers: AsrTestServer[] = [];
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  for (const server of servers.splice(0)) await server.close();
});

async function startServer(options: AsrTestServerOptions = {}): Promise<AsrTestServer> {
  const server = await createAsrTestServer({ utterances: SCRIPT, ...options });
  servers.push(server);
  return server;
}

function connect(
  server: AsrTestServer,
  options: Partial<AsrStreamOptions> = {},
): Promise<AsrStream> {
  return connectAsrStream({
    url: server.url,
    appKey: 'app',
    accessKey: 'secret',
    resourceId: 'volc.bigasr.sauc.duration',
    ...options,
  });
}

/** Records every event of a stream, from now on. */
function record(stream: AsrStream): AsrStreamEvent[] {
  const events: AsrStreamEvent[] = [];
  for (const type of ASR_STREAM_EVENT_TYPES) {
    stream.on(type, (event) => events.push(event as AsrStreamEvent));
  }
  return events;
}

async function sendAll(stream: AsrStream, audio: Uint8Array, packetMs = 200): Promise<void> {
  for (const packet of splitPcm(audio, { packetMs })) await stream.sendAudio(packet);
}

async function rejection(promise: Promise<unknown>): Promise<AsrProtocolError> {
  try {
    await promise;
  } catch (error) {
    if (isAsrProtocolError(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

const completedTexts = (events: AsrStreamEvent[]) =>
  events.flatMap((event) => (event.type === 'utterance-complete' ? [event.utterance.text] : []));

describe.each<AsrEndpoint>(['bigmodel', 'bigmodel_async', 'bigmodel_nostream'])(
  'endpoint %s',
  (endpoint) => {
    it('streams a real recording and yields each definite utterance once, then the final result', async () => {
      const server = await startServer();
      const stream = await connect(server, { endpoint });
      expect(stream.state).toBe('streaming');
      const events = record(stream);
      await sendAll(stream, lecture);
      const result = await stream.finish();

      expect(stream.state).toBe('closed');
      expect(completedTexts(events)).toEqual([
        'Good morning, class.',
        'Today we talk about photosynthesis.',
      ]);
      expect(result.text).toBe('Good morning, class. Today we talk about photosynthesis.');
      expect(
        result.utterances.map((utterance) => [utterance.start_time, utterance.end_time]),
      ).toEqual([
        [0, 1300],
        [1700, 4000],
      ]);
      expect(result.audioDurationMs).toBe(4397);
      expect(result.stats.ignoredPayloads).toEqual({
        empty: 0,
        notJson: 0,
        invalid: 0,
        successCode: 0,
      });
      expect(
        events.filter((event) => event.type === 'state-change').map((event) => event.state),
      ).toEqual(['finishing', 'closed']);
      expect(events.at(-1)).toMatchObject({
        type: 'end',
        state: 'closed',
        result: { text: result.text },
      });

      // What went over the wire, as the server saw it.
      const [connection] = server.connections;
      expect(connection?.endpoint).toBe(endpoint);
      expect(Buffer.from(connection?.audio ?? [])).toEqual(Buffer.from(lecture));
      expect(stream.logId).toBe(connection?.logId);
      expect(result.logId).toBe(connection?.logId);
    });
  },
);

describe('wire behaviour', () => {
  it('sends the four auth headers, a UUID connect id, the request, then audio, then one last packet', async () => {
    const server = await startServer();
    const stream = await connect(server, {
      request: {
        audio: { format: 'pcm', rate: 16000, bits: 16, channel: 1 },
        request: { model_name: 'bigmodel', show_utterances: true, end_window_size: 600 },
      },
    });
    await sendAll(stream, lecture.subarray(0, 6400 * 3));
    await stream.finish();
    const connection = server.connections[0];
    expect(connection?.headers).toMatchObject({
      'x-api-app-key': 'app',
      'x-api-access-key': 'secret',
      'x-api-resource-id': 'volc.bigasr.sauc.duration',
    });
    expect(connection?.headers['x-api-connect-id']).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(connection?.headers['x-api-connect-id']).toBe(stream.connectId);
    expect(connection?.request).toEqual({
      audio: { format: 'pcm', rate: 16000, bits: 16, channel: 1 },
      request: { model_name: 'bigmodel', show_utterances: true, end_window_size: 600 },
    });
    const frames = connection?.frames ?? [];
    expect(frames.map((frame) => [frame.type, frame.flags, frame.compression])).toEqual([
      ['full-client-request', 0, 'gzip'],
      ['audio-only-request', 0, 'gzip'],
      ['audio-only-request', 0, 'gzip'],
      ['audio-only-request', 0, 'gzip'],
      ['audio-only-request', 2, 'gzip'],
    ]);
    expect(frames.every((frame) => frame.sequence === undefined)).toBe(true);
    expect(frames.at(-1)?.payload).toEqual(new Uint8Array(0));
  });

  it('uses the given connect id', async () => {
    const server = await startServer();
    const stream = await connect(server, { connectId: 'class-42-attempt-2' });
    stream.close();
    expect(server.connections[0]?.headers['x-api-connect-id']).toBe('class-42-attempt-2');
  });

  it('flushes audio queued before finish() in order and flags the last queued packet as last', async () => {
    const server = await startServer();
    const stream = await connect(server, { endpoint: 'bigmodel' });
    const sends = splitPcm(lecture).map((packet) => stream.sendAudio(packet));
    const finished = stream.finish();
    const refused = await rejection(stream.sendAudio(new Uint8Array(640)));
    expect(refused.code).toBe('ASR_STREAM_NOT_WRITABLE');
    expect(refused.message).toMatch(/nothing is sent after the last packet/);
    await Promise.all(sends);
    const result = await finished;

    const frames = server.connections[0]?.frames ?? [];
    const audioFrames = frames.filter((frame) => frame.type === 'audio-only-request');
    expect(audioFrames).toHaveLength(splitPcm(lecture).length);
    expect(audioFrames.slice(0, -1).every((frame) => frame.flags === 0)).toBe(true);
    expect(audioFrames.at(-1)?.flags).toBe(2);
    expect(Buffer.from(server.connections[0]?.audio ?? [])).toEqual(Buffer.from(lecture));
    expect(result.stats.audioPacketsSent).toBe(audioFrames.length);
    expect(result.stats.audioBytesSent).toBe(lecture.byteLength);
    expect(result.stats.audioMsSent).toBeCloseTo(4397.25, 1);
    expect(result.stats.audioBytesQueued).toBe(0);
  });

  it('numbers frames when asked: request 1, audio 2.., last packet negative with flags 0b0011', async () => {
    const server = await startServer();
    const stream = await connect(server, { sequenceNumbers: true, compression: 'none' });
    await sendAll(stream, lecture.subarray(0, 6400 * 2));
    await stream.finish();
    const frames = server.connections[0]?.frames ?? [];
    expect(frames.map((frame) => [frame.flags, frame.sequence, frame.compression])).toEqual([
      [1, 1, 'none'],
      [1, 2, 'none'],
      [1, 3, 'none'],
      [3, -4, 'none'],
    ]);
  });

  it('copies audio, so a reused buffer does not change what is sent', async () => {
    const server = await startServer();
    const stream = await connect(server);
    const buffer = new Uint8Array(640).fill(7);
    const sent = stream.sendAudio(buffer);
    buffer.fill(9);
    await sent;
    await stream.finish();
    expect(Buffer.from(server.connections[0]?.audio ?? [])).toEqual(Buffer.alloc(640, 7));
  });

  /** The sequence of each response to 600 ms of audio, and the final text. */
  async function responseSequences(sequencedPartials: boolean) {
    const server = await startServer({ sequencedPartials });
    const stream = await connect(server, { endpoint: 'bigmodel' });
    const sequences: Array<number | undefined> = [];
    stream.on('response-receive', (event) => sequences.push(event.sequence));
    await sendAll(stream, lecture.subarray(0, 6400 * 3));
    const result = await stream.finish();
    return { sequences, result };
  }

  it('reads partials sent with sequences (flags 0b0001) as well as without', async () => {
    const { sequences, result } = await responseSequences(true);
    expect(sequences).toEqual([1, 2, 3, 4, 5]);
    expect(result.text).toBe('Good morning,');
  });

  it('reads partials sent without sequences (flags 0b0000) too', async () => {
    const { sequences, result } = await responseSequences(false);
    expect(sequences).toEqual([1, undefined, undefined, undefined, 2]);
    expect(result.text).toBe('Good morning,');
  });

  it('sends vendor fields next to the validated request; the service lists them as unknown', async () => {
    const server = await startServer();
    const plain = await connect(server);
    await sendAll(plain, lecture.subarray(0, 6400));
    await plain.finish();
    const stream = await connect(server, {
      vendorFields: { app: { cluster: 'volcengine_streaming_common' }, request: { reqid: 'r-1' } },
    });
    await sendAll(stream, lecture.subarray(0, 6400));
    await stream.finish();
    expect(server.connections[0]?.warnings).toEqual([]);
    expect(server.connections[1]?.request).toEqual({
      audio: { format: 'pcm', codec: 'raw', rate: 16000, bits: 16, channel: 1 },
      request: { model_name: 'bigmodel', show_utterances: true, reqid: 'r-1' },
      app: { cluster: 'volcengine_streaming_common' },
    });
    expect(server.connections[1]?.warnings.map((warning) => [warning.path, warning.kind])).toEqual([
      ['request.reqid', 'unknown-field'],
      ['app', 'unknown-field'],
    ]);
  });

  it('refuses a vendor field the request schema knows, before connecting', async () => {
    const server = await startServer();
    const failure = await rejection(
      connect(server, { vendorFields: { request: { show_utterances: false } } }),
    );
    expect(failure.code).toBe('ASR_INVALID_OPTIONS');
    expect(failure.message).toContain(
      'vendorFields.request.show_utterances: the request schema knows',
    );
    expect(server.connections).toHaveLength(0);
  });

  it('gives events what a reconnecting caller needs: audio acknowledged and utterance times', async () => {
    const server = await startServer();
    const stream = await connect(server, { endpoint: 'bigmodel' });
    const events = record(stream);
    await sendAll(stream, lecture.subarray(0, 32 * 3000));
    await stream.finish();
    const first = events.find((event) => event.type === 'utterance-complete');
    expect(first).toMatchObject({
      utterance: { text: 'Good morning, class.', start_time: 0, end_time: 1300, definite: true },
      audioDurationMs: 2200,
    });
    const durations = events.flatMap((event) =>
      event.type === 'response-receive' ? [event.audioDurationMs] : [],
    );
    // One reply per packet (15 of 200 ms), then the final one after the empty last packet.
    expect(durations).toEqual([
      0, 200, 400, 600, 800, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2400, 2600, 2800, 3000, 3000,
    ]);
  });

  it('reports partials as the latest non-definite text, cleared when the sentence completes', async () => {
    const server = await startServer();
    const stream = await connect(server, { endpoint: 'bigmodel' });
    const partials: string[] = [];
    stream.on('partial-update', (event) => partials.push(event.text));
    await sendAll(stream, lecture.subarray(0, 32 * 2400));
    await stream.finish();
    expect(partials).toEqual([
      'Good',
      'Good morning,',
      'Good morning, class.',
      'Today',
      'Today we',
      '',
    ]);
  });

  it('falls back to result.text for partials when the service sends no utterances', async () => {
    const server = await startServer();
    const stream = await connect(server, {
      endpoint: 'bigmodel',
      request: { audio: { format: 'pcm' }, request: { model_name: 'bigmodel' } },
    });
    const events = record(stream);
    await sendAll(stream, lecture.subarray(0, 32 * 1600));
    const result = await stream.finish();
    expect(
      events.filter((event) => event.type === 'partial-update').map((event) => event.text),
    ).toEqual(['Good', 'Good morning,', 'Good morning, class.']);
    expect(completedTexts(events)).toEqual([]);
    expect(result).toMatchObject({ text: 'Good morning, class.', utterances: [] });
  });

  it('bigmodel_async answers only when the result changes; bigmodel answers every packet', async () => {
    const silenceAfter = new Uint8Array(32 * 6000);
    silenceAfter.set(lecture.subarray(0, 32 * 1300));
    const count = async (endpoint: AsrEndpoint) => {
      const server = await startServer({ utterances: [SCRIPT[0] as (typeof SCRIPT)[0]] });
      const stream = await connect(server, { endpoint });
      await sendAll(stream, silenceAfter);
      return (await stream.finish()).stats.responses;
    };
    // 30 packets + the empty last one: bigmodel answers the request, each packet and the end.
    expect(await count('bigmodel')).toBe(32);
    // bigmodel_async: the request, 7 changes while the sentence grows (0.2-1.4 s), the change to
    // definite (at 2.2 s, 800 ms after its end), then the final: nothing during the silence.
    expect(await count('bigmodel_async')).toBe(10);
  });

  it('bigmodel_nostream returns results only past 15 s of audio and at the last packet', async () => {
    const server = await startServer({
      utterances: [
        { text: 'First point.', start_time: 1000, end_time: 3000 },
        { text: 'Second point.', start_time: 16000, end_time: 18000 },
      ],
    });
    const stream = await connect(server, { endpoint: 'bigmodel_nostream' });
    const completions: Array<[string, number | undefined]> = [];
    stream.on('utterance-complete', (event) =>
      completions.push([event.utterance.text, event.audioDurationMs]),
    );
    await sendAll(stream, new Uint8Array(32 * 20000));
    const result = await stream.finish();
    expect(completions).toEqual([
      ['First point.', 15000],
      ['Second point.', 20000],
    ]);
    expect(result.stats.responses).toBe(102);
  });

  it('accepts an injected WebSocket constructor and uses it', async () => {
    const server = await startServer();
    const urls: string[] = [];
    let sent = 0;
    // A wrapper, not a subclass: anything with the WebSocketLike shape can be injected.
    class CountingSocket implements WebSocketLike {
      readonly #inner: WebSocket;
      constructor(url: string, options: WebSocketLikeOptions) {
        urls.push(url);
        this.#inner = new WebSocket(url, options);
      }
      get readyState() {
        return this.#inner.readyState;
      }
      on(event: string, listener: (...args: never[]) => void): this {
        this.#inner.on(event, listener as () => void);
        return this;
      }
      send(data: Uint8Array, callback: (error?: Error) => void): void {
        sent += 1;
        this.#inner.send(data, callback);
      }
      close(code?: number): void {
        this.#inner.close(code);
      }
      terminate(): void {
        this.#inner.terminate();
      }
    }
    const stream = await connect(server, {
      WebSocket: CountingSocket satisfies WebSocketConstructor,
    });
    await sendAll(stream, lecture.subarray(0, 6400));
    await stream.finish();
    expect(urls).toEqual([`${server.url}/api/v3/sauc/bigmodel_async`]);
    expect(sent).toBe(3);
  });

  it('keeps a path prefix of the base URL', async () => {
    const server = await startServer();
    const refused = await rejection(connect(server, { url: `${server.url}/proxy/` }));
    expect(refused).toMatchObject({ code: 'ASR_HANDSHAKE_FAILED', status: 404 });
    expect(server.refusals[0]?.path).toBe('/proxy/api/v3/sauc/bigmodel_async');
  });
});

describe('iteration', () => {
  it('yields every event in order and ends after `end`', async () => {
    const server = await startServer();
    const stream = await connect(server, { endpoint: 'bigmodel' });
    const seen: string[] = [];
    const consumer = (async () => {
      for await (const event of stream) {
        seen.push(
          event.type === 'utterance-complete' ? `utterance:${event.utterance.text}` : event.type,
        );
      }
    })();
    await sendAll(stream, lecture.subarray(0, 32 * 2400));
    await stream.finish();
    await consumer;
    // The last packet ends the sentence being spoken: it comes out definite as heard so far.
    expect(seen.filter((type) => type.startsWith('utterance:'))).toEqual([
      'utterance:Good morning, class.',
      'utterance:Today we',
    ]);
    expect(seen.at(-1)).toBe('end');
    expect(seen.at(-2)).toBe('state-change');
    expect(seen.filter((type) => type === 'response-receive')).toHaveLength(14);
  });

  it('yields the error event and ends on failure', async () => {
    const server = await startServer({
      faults: [{ type: 'error', code: 45000081, at: { afterPackets: 2 } }],
    });
    const stream = await connect(server);
    const types: string[] = [];
    const consumer = (async () => {
      for await (const event of stream) types.push(event.type);
    })();
    await sendAll(stream, lecture);
    await rejection(stream.finish());
    await consumer;
    expect(types.slice(-3)).toEqual(['state-change', 'error', 'end']);
  });

  it('answers concurrent next() calls in order, none left pending', async () => {
    const server = await startServer();
    const stream = await connect(server, { endpoint: 'bigmodel' });
    const events = record(stream);
    const iterator = stream[Symbol.asyncIterator]();
    const first = iterator.next();
    const second = iterator.next();
    const third = iterator.next();
    await sendAll(stream, lecture.subarray(0, 32 * 1000));
    await stream.finish();
    const results = await Promise.all([first, second, third]);
    expect(results.map((result) => result.done)).toEqual([false, false, false]);
    // The stream's first three events, each once, in order.
    expect(results.map((result) => result.value)).toEqual(events.slice(0, 3));
    // After the end, every waiting and later call finishes.
    for (;;) if ((await iterator.next()).done) break;
    const late = await Promise.all([iterator.next(), iterator.next()]);
    expect(late.map((result) => result.done)).toEqual([true, true]);
  });

  it('finishes every pending next() when the consumer returns early', async () => {
    const server = await startServer({ faults: [{ type: 'silence', at: { afterRequest: true } }] });
    const stream = await connect(server);
    const iterator = stream[Symbol.asyncIterator]();
    const pending = [iterator.next(), iterator.next()];
    await iterator.return?.();
    expect((await Promise.all(pending)).map((result) => result.done)).toEqual([true, true]);
    stream.close();
  });

  it('stops early when the loop breaks, leaving the stream running', async () => {
    const server = await startServer();
    const stream = await connect(server, { endpoint: 'bigmodel' });
    const sending = sendAll(stream, lecture);
    for await (const event of stream) {
      if (event.type === 'response-receive') break;
    }
    await sending;
    expect((await stream.finish()).utterances).toHaveLength(2);
  });
});

describe('ignored payloads', () => {
  it('counts empty and non-JSON responses and carries on', async () => {
    const server = await startServer({
      faults: [
        { type: 'empty-payload', at: { afterPackets: 2 } },
        { type: 'non-json-payload', at: { afterPackets: 3 } },
        { type: 'non-json-payload', body: '[1,2]', at: { afterPackets: 4 } },
        { type: 'response', payload: { result: { text: 42 } }, at: { afterPackets: 5 } },
      ],
    });
    const stream = await connect(server);
    const events = record(stream);
    await sendAll(stream, lecture);
    const result = await stream.finish();
    expect(result.stats.ignoredPayloads).toEqual({
      empty: 1,
      notJson: 2,
      invalid: 1,
      successCode: 0,
    });
    expect(completedTexts(events)).toHaveLength(2);
    expect(
      events.filter((event) => event.type === 'payload-ignore').map((event) => event.reason),
    ).toEqual(['empty', 'not-json', 'not-json', 'invalid']);
  });

  it('ignores and counts a response flagged gzip whose payload is not gzip (a proxy page)', async () => {
    const page = new TextEncoder().encode('<html>502 Bad Gateway</html>');
    const server = await startServer({
      faults: [{ type: 'raw', bytes: gzipFlaggedResponse(0b0000, page), at: { afterPackets: 2 } }],
    });
    const stream = await connect(server);
    const events = record(stream);
    await sendAll(stream, lecture);
    const result = await stream.finish();
    expect(result.utterances).toHaveLength(2);
    expect(result.stats.ignoredPayloads).toMatchObject({ notJson: 1 });
    const ignored = events.filter((event) => event.type === 'payload-ignore');
    expect(ignored).toMatchObject([
      { reason: 'not-json', last: false, detail: expect.stringMatching(/gzip/) },
    ]);
  });

  it('ends normally when the final response is flagged gzip but is not gzip', async () => {
    const page = new TextEncoder().encode('<html>502 Bad Gateway</html>');
    const server = await startServer({
      faults: [
        { type: 'silence', at: { onLastPacket: true } },
        { type: 'raw', bytes: gzipFlaggedResponse(0b0011, page, 9), at: { onLastPacket: true } },
      ],
    });
    const stream = await connect(server, { endpoint: 'bigmodel' });
    const events = record(stream);
    await sendAll(stream, lecture.subarray(0, 32 * 3000));
    const result = await stream.finish();
    expect(result.response).toBeUndefined();
    expect(result.utterances.map((utterance) => utterance.text)).toEqual(['Good morning, class.']);
    expect(result.stats.ignoredPayloads.notJson).toBe(1);
    expect(events.find((event) => event.type === 'payload-ignore')).toMatchObject({
      reason: 'not-json',
      last: true,
      sequence: 9,
    });
    expect(stream.state).toBe('closed');
  });

  it('ignores an error frame carrying 20000000 (success)', async () => {
    const server = await startServer({
      faults: [{ type: 'raw', bytes: errorFrame(20000000, 'OK'), at: { afterPackets: 1 } }],
    });
    const stream = await connect(server);
    await sendAll(stream, lecture.subarray(0, 6400 * 3));
    const result = await stream.finish();
    expect(result.stats.ignoredPayloads.successCode).toBe(1);
  });

  it('ends normally when the final response itself is empty, keeping what was already recognised', async () => {
    const server = await startServer({
      faults: [{ type: 'empty-payload', final: true, at: { onLastPacket: true } }],
    });
    const stream = await connect(server, { endpoint: 'bigmodel' });
    await sendAll(stream, lecture.subarray(0, 32 * 3000));
    const result = await stream.finish();
    expect(result.response).toBeUndefined();
    expect(result.utterances.map((utterance) => utterance.text)).toEqual(['Good morning, class.']);
    expect(result.text).toBe('Good morning, class. Today we talk');
    expect(result.stats.ignoredPayloads.empty).toBe(1);
    expect(stream.state).toBe('closed');
  });
});

// A full server response flagged JSON + gzip whose payload is `body` as it is (not gzipped).
function gzipFlaggedResponse(flags: number, body: Uint8Array, sequence?: number): Uint8Array {
  const head = sequence === undefined ? 8 : 12;
  const bytes = new Uint8Array(head + body.byteLength);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0x11901100 | (flags << 16));
  if (sequence !== undefined) view.setInt32(4, sequence);
  view.setUint32(head - 4, body.byteLength);
  bytes.set(body, head);
  return bytes;
}

function errorFrame(code: number, message: string): Uint8Array {
  const text = new TextEncoder().encode(message);
  const bytes = new Uint8Array(12 + text.byteLength);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0x11f01000);
  view.setUint32(4, code);
  view.setUint32(8, text.byteLength);
  bytes.set(text, 12);
  return bytes;
}

describe('service errors', () => {
  it.each([
    [55000031, true, 'server busy'],
    [55000123, true, 'internal service error'],
    [45000081, true, 'timeout waiting for packets'],
    [45000001, false, 'invalid request parameters'],
    [45000151, false, 'audio format incorrect'],
  ])('error frame %i fails the stream with retryable=%s', async (code, retryable, meaning) => {
    const server = await startServer({
      faults: [{ type: 'error', code, message: 'from the test', at: { afterPackets: 3 } }],
    });
    const stream = await connect(server);
    const events = record(stream);
    await sendAll(stream, lecture);
    const finishFailure = await rejection(stream.finish());
    const sendFailure = await rejection(stream.sendAudio(new Uint8Array(2)));
    for (const failure of [sendFailure, finishFailure, stream.error]) {
      expect(failure).toMatchObject({
        code: 'ASR_SERVICE_ERROR',
        serviceCode: code,
        serviceMessage: 'from the test',
        retryable,
        logId: server.connections[0]?.logId,
        message: `service error ${code} (${meaning}): from the test`,
      });
    }
    expect(stream.state).toBe('failed');
    expect(events.slice(-2).map((event) => event.type)).toEqual(['error', 'end']);
    expect(events.at(-1)).toMatchObject({ type: 'end', state: 'failed', result: undefined });
  });

  it('fails on a malformed frame from the server with the codec error', async () => {
    const server = await startServer({
      faults: [{ type: 'raw', bytes: new Uint8Array([0x11, 0x91, 0x10]), at: { afterPackets: 1 } }],
    });
    const stream = await connect(server);
    await sendAll(stream, lecture);
    const failure = await rejection(stream.finish());
    expect(failure.code).toBe('ASR_FRAME_TRUNCATED');
    expect(stream.state).toBe('failed');
  });

  it('fails when the server sends a client frame type', async () => {
    const audioFrame = new Uint8Array([0x11, 0x20, 0x00, 0x00, 0, 0, 0, 1, 5]);
    const server = await startServer({
      faults: [{ type: 'raw', bytes: audioFrame, at: { afterPackets: 1 } }],
    });
    const stream = await connect(server);
    await sendAll(stream, lecture);
    expect((await rejection(stream.finish())).code).toBe('ASR_UNEXPECTED_FRAME');
  });
});

describe('connection faults', () => {
  it('surfaces an abrupt close mid-stream as a retryable ASR_CONNECTION_CLOSED (1006)', async () => {
    const server = await startServer({ faults: [{ type: 'close', at: { afterAudioMs: 1000 } }] });
    const stream = await connect(server, { endpoint: 'bigmodel' });
    let acknowledged: number | undefined;
    stream.on('response-receive', (event) => {
      acknowledged = event.audioDurationMs;
    });
    await sendAll(stream, lecture);
    const failure = await rejection(stream.finish());
    expect(failure).toMatchObject({
      code: 'ASR_CONNECTION_CLOSED',
      closeCode: 1006,
      retryable: true,
    });
    expect(acknowledged).toBe(800);
    expect(stream.state).toBe('failed');
  });

  it('drops only the first connection when told to: a reconnect then completes', async () => {
    const server = await startServer({
      faults: [{ type: 'close', at: { afterAudioMs: 1000 }, connection: 1 }],
    });
    const first = await connect(server);
    await sendAll(first, lecture);
    expect((await rejection(first.finish())).retryable).toBe(true);
    const second = await connect(server);
    await sendAll(second, lecture);
    expect((await second.finish()).utterances).toHaveLength(2);
    expect(server.connections.map((connection) => connection.lastPacketReceived)).toEqual([
      false,
      true,
    ]);
  });

  it('times out finish() when the service goes silent', async () => {
    const server = await startServer({ faults: [{ type: 'silence', at: { afterPackets: 2 } }] });
    const stream = await connect(server, { finishTimeoutMs: 300 });
    const events = record(stream);
    await sendAll(stream, lecture.subarray(0, 6400 * 4));
    const failure = await rejection(stream.finish());
    expect(failure).toMatchObject({ code: 'ASR_FINISH_TIMEOUT', retryable: true });
    expect(failure.message).toBe('no final response within 300 ms of finish()');
    expect(events.at(-1)).toMatchObject({ type: 'end', state: 'failed' });
    expect(server.connections[0]?.lastPacketReceived).toBe(true);
  });

  it('times out finish() from when it is called, even while the server stops reading; pending sends fail too', async () => {
    const server = await startServer({
      faults: [{ type: 'stop-reading', at: { afterRequest: true } }],
    });
    const stream = await connect(server, { compression: 'none' });
    // Far more than the socket buffers hold: the writes back up and never complete.
    const packet = new Uint8Array(64 * 1024).fill(1);
    const sends = Array.from({ length: 400 }, () => stream.sendAudio(packet));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stream.stats.audioBytesQueued).toBeGreaterThan(0);
    const failure = await rejection(stream.finish({ timeoutMs: 500 }));
    expect(failure).toMatchObject({ code: 'ASR_FINISH_TIMEOUT', retryable: true });
    expect(failure.message).toBe('no final response within 500 ms of finish()');
    expect(stream.state).toBe('failed');
    const outcomes = await Promise.allSettled(sends);
    const rejected = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(rejected.length).toBeGreaterThan(0);
    for (const outcome of rejected) {
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({
        code: 'ASR_FINISH_TIMEOUT',
      });
    }
  }, 20_000);

  it('refuses a finish timeout that is not a positive number of ms, and stays usable', async () => {
    const server = await startServer();
    const stream = await connect(server);
    await sendAll(stream, lecture.subarray(0, 6400));
    for (const timeoutMs of [-5, 0, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, '100']) {
      const failure = await rejection(stream.finish({ timeoutMs: timeoutMs as number }));
      expect(failure.code, String(timeoutMs)).toBe('ASR_INVALID_OPTIONS');
      expect(failure.message).toMatch(/timeoutMs/);
    }
    expect((await rejection(stream.finish(null as never))).code).toBe('ASR_INVALID_OPTIONS');
    expect(stream.state).toBe('streaming');
    expect((await stream.finish({ timeoutMs: 5000 })).utterances.length).toBeGreaterThan(0);
  });

  it('takes a per-call finish timeout', async () => {
    const server = await startServer({ faults: [{ type: 'silence', at: { afterRequest: true } }] });
    const stream = await connect(server);
    await sendAll(stream, lecture.subarray(0, 6400));
    expect((await rejection(stream.finish({ timeoutMs: 100 }))).message).toMatch(/within 100 ms/);
  });

  it('applies backpressure: sendAudio() waits while the server is not reading', async () => {
    const server = await startServer({
      faults: [{ type: 'stop-reading', at: { afterRequest: true }, resumeAfterMs: 1500 }],
    });
    const stream = await connect(server, { compression: 'none' });
    const packet = new Uint8Array(64 * 1024).fill(1);
    const total = 600; // 39 MB: far more than the socket buffers hold
    let resolved = 0;
    const sends = Array.from({ length: total }, () =>
      stream.sendAudio(packet).then(() => (resolved += 1)),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const whilePaused = resolved;
    expect(whilePaused).toBeLessThan(total);
    expect(stream.stats.audioBytesQueued).toBeGreaterThan(0);
    await Promise.all(sends);
    await stream.finish();
    expect(server.connections[0]?.audio.byteLength).toBe(total * packet.byteLength);
  }, 30_000);
});

describe('handshake failures', () => {
  it('surfaces 401 with status, body and log id, not retryable', async () => {
    const server = await startServer({ auth: { appKey: 'app', accessKey: 'right' } });
    const failure = await rejection(connect(server, { accessKey: 'wrong' }));
    expect(failure).toMatchObject({
      code: 'ASR_HANDSHAKE_FAILED',
      status: 401,
      body: '{"error":"invalid X-Api-App-Key or X-Api-Access-Key"}',
      retryable: false,
    });
    expect(failure.logId).toMatch(/^test-log-1-/);
    expect(failure.message).toBe(
      'the service refused the connection: HTTP 401 Unauthorized: {"error":"invalid X-Api-App-Key or X-Api-Access-Key"}',
    );
    expect(server.connections).toHaveLength(0);
  });

  it('surfaces 403 for a resource not granted', async () => {
    const server = await startServer({ auth: { resourceIds: ['volc.bigasr.sauc.concurrent'] } });
    expect(await rejection(connect(server))).toMatchObject({
      code: 'ASR_HANDSHAKE_FAILED',
      status: 403,
    });
  });

  it('marks 5xx and 429 refusals retryable', async () => {
    const server = await startServer({
      handshake: ({ connection }) =>
        connection === 1
          ? { status: 503, body: 'maintenance' }
          : { status: 429, body: 'slow down' },
    });
    expect(await rejection(connect(server))).toMatchObject({
      status: 503,
      body: 'maintenance',
      retryable: true,
    });
    expect(await rejection(connect(server))).toMatchObject({ status: 429, retryable: true });
  });

  it('fails with ASR_CONNECTION_FAILED when nothing listens', async () => {
    const server = await startServer();
    const url = server.url;
    await server.close();
    servers.splice(0);
    const failure = await rejection(
      connectAsrStream({ url, appKey: 'a', accessKey: 'b', resourceId: 'r' }),
    );
    expect(failure).toMatchObject({ code: 'ASR_CONNECTION_FAILED', retryable: true });
    expect(failure.message).toMatch(/ECONNREFUSED/);
  });

  it('times out a handshake nobody answers', async () => {
    const { url } = await silentTcpServer();
    const failure = await rejection(
      connectAsrStream({
        url,
        appKey: 'a',
        accessKey: 'b',
        resourceId: 'r',
        handshakeTimeoutMs: 200,
      }),
    );
    expect(failure).toMatchObject({ code: 'ASR_HANDSHAKE_TIMEOUT', retryable: true });
  });
});

async function silentTcpServer(): Promise<{ url: string }> {
  const sockets = new Set<Socket>();
  const server: Server = createTcpServer((socket) => {
    sockets.add(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  return { url: `ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}

describe('refused before anything is sent', () => {
  it('an invalid request: ASR_INVALID_REQUEST naming the field, no connection made', async () => {
    const server = await startServer();
    const failure = await rejection(
      connect(server, {
        endpoint: 'bigmodel',
        request: {
          audio: { format: 'pcm', rate: 16000 },
          request: { model_name: 'bigmodel', enable_nonstream: true, end_window_size: 100 },
        },
      }),
    );
    expect(failure.code).toBe('ASR_INVALID_REQUEST');
    expect(failure.issues?.map((issue) => issue.path)).toEqual([
      'request.end_window_size',
      'request.enable_nonstream',
    ]);
    const endpointFailure = await rejection(
      connect(server, {
        endpoint: 'bigmodel',
        request: {
          audio: { format: 'pcm' },
          request: { model_name: 'bigmodel', enable_nonstream: true },
        },
      }),
    );
    expect(endpointFailure.issues?.map((issue) => issue.path)).toEqual([
      'request.enable_nonstream',
    ]);
    expect(server.connections).toHaveLength(0);
    expect(server.refusals).toHaveLength(0);
  });

  it.each([
    [{ appKey: '' }, 'appKey: must be a non-empty string'],
    [{ resourceId: undefined as unknown as string }, 'resourceId: must be a non-empty string'],
    [
      { endpoint: 'bigmodel_v2' as AsrEndpoint },
      'endpoint: must be bigmodel, bigmodel_async or bigmodel_nostream',
    ],
    [{ url: 'ftp://example.com' }, 'url: scheme must be ws, wss, http or https'],
    [{ url: 'not a url' }, 'url: not a valid URL'],
    [{ finishTimeoutMs: -1 }, 'finishTimeoutMs: must be a positive number'],
    [{ handshakeTimeoutMs: 2 ** 31 }, 'handshakeTimeoutMs: must be a positive number'],
    [{ appKey: '中文' }, 'appKey: must be visible ASCII'],
    [{ appKey: 'kéy' }, 'appKey: must be visible ASCII'],
    [{ accessKey: 'key\r\nX-Evil: 1' }, 'accessKey: must be visible ASCII'],
    [{ resourceId: 'volc bigasr\n' }, 'resourceId: must be visible ASCII'],
    [{ connectId: 'id\u0000' }, 'connectId: must be visible ASCII'],
    [{ url: 'ws://example.com/#fragment' }, 'url: must not have a #fragment'],
    [{ url: 42 as unknown as string }, 'url: must be a string'],
  ])('bad options %j', async (options, message) => {
    const server = await startServer();
    const failure = await rejection(connect(server, options));
    expect(failure.code).toBe('ASR_INVALID_OPTIONS');
    expect(failure.message).toContain(message);
    expect(server.refusals).toHaveLength(0);
  });
});

describe('refused before anything is sent: what the message leaves out', () => {
  it('never echoes a key in the error message', async () => {
    const server = await startServer();
    const failure = await rejection(connect(server, { accessKey: 'sécret-value' }));
    expect(failure.code).toBe('ASR_INVALID_OPTIONS');
    expect(failure.message).not.toContain('sécret');
    expect(failure.message).toContain('character 2');
  });

  it('wraps a WebSocket constructor that throws in a coded error', async () => {
    const server = await startServer();
    class Throwing {
      constructor() {
        throw new SyntaxError('proxy agent refused the URL');
      }
    }
    const failure = await rejection(
      connect(server, { WebSocket: Throwing as unknown as WebSocketConstructor }),
    );
    expect(failure).toMatchObject({ code: 'ASR_CONNECTION_FAILED', retryable: false });
    expect(failure.message).toMatch(/proxy agent refused the URL/);
    expect(failure.cause).toBeInstanceOf(SyntaxError);
  });
});

describe('ending', () => {
  it('close() ends the stream at once; pending promises reject with ASR_STREAM_CLOSED', async () => {
    const server = await startServer({ faults: [{ type: 'silence', at: { afterRequest: true } }] });
    const stream = await connect(server);
    await sendAll(stream, lecture.subarray(0, 6400));
    const finishing = stream.finish();
    stream.close();
    expect(stream.state).toBe('closed');
    expect((await rejection(finishing)).code).toBe('ASR_STREAM_CLOSED');
    expect((await rejection(stream.sendAudio(new Uint8Array(2)))).code).toBe(
      'ASR_STREAM_NOT_WRITABLE',
    );
    await server.connections[0]?.closed;
    stream.close(); // idempotent
  });

  it('an AbortSignal closes the stream and rejects with ASR_ABORTED carrying the reason', async () => {
    const server = await startServer();
    const controller = new AbortController();
    const stream = await connect(server, { signal: controller.signal });
    const events = record(stream);
    await sendAll(stream, lecture.subarray(0, 6400));
    const finishing = stream.finish();
    controller.abort(new Error('class ended'));
    const failure = await rejection(finishing);
    expect(failure).toMatchObject({ code: 'ASR_ABORTED', cause: new Error('class ended') });
    expect(stream.state).toBe('closed');
    expect(events.at(-1)).toMatchObject({
      type: 'end',
      state: 'closed',
      error: { code: 'ASR_ABORTED' },
    });
  });

  it('an already-aborted signal refuses to connect', async () => {
    const server = await startServer();
    const failure = await rejection(connect(server, { signal: AbortSignal.abort() }));
    expect(failure.code).toBe('ASR_ABORTED');
    expect(server.connections).toHaveLength(0);
  });

  it('aborting during the handshake rejects the connect', async () => {
    const { url } = await silentTcpServer();
    const controller = new AbortController();
    const connecting = connectAsrStream({
      url,
      appKey: 'a',
      accessKey: 'b',
      resourceId: 'r',
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 50);
    expect((await rejection(connecting)).code).toBe('ASR_ABORTED');
  });

  it('finish() called twice returns the same promise; after the end it returns the result', async () => {
    const server = await startServer();
    const stream = await connect(server);
    await sendAll(stream, lecture.subarray(0, 6400));
    const first = stream.finish();
    expect(stream.finish()).toBe(first);
    const result = await first;
    expect(await stream.finish()).toBe(result);
  });

  it('refuses audio after the service sent its final result on its own', async () => {
    const server = await startServer({
      faults: [
        {
          type: 'response',
          payload: { result: { text: 'done' } },
          flags: 3,
          sequence: 9,
          at: { afterPackets: 1 },
        },
      ],
    });
    const stream = await connect(server);
    await stream.sendAudio(lecture.subarray(0, 6400));
    const ended = new Promise((resolve) => stream.on('end', resolve));
    await ended;
    expect(stream.state).toBe('closed');
    expect((await stream.finish()).text).toBe('done');
    expect((await rejection(stream.sendAudio(new Uint8Array(2)))).code).toBe(
      'ASR_STREAM_NOT_WRITABLE',
    );
  });

  it('ignores empty audio', async () => {
    const server = await startServer();
    const stream = await connect(server);
    await stream.sendAudio(new Uint8Array(0));
    await stream.sendAudio(lecture.subarray(0, 640));
    await stream.finish();
    const frames: AsrFrame[] = server.connections[0]?.frames ?? [];
    expect(frames.map((frame) => frame.type)).toEqual([
      'full-client-request',
      'audio-only-request',
      'audio-only-request',
    ]);
  });
});
