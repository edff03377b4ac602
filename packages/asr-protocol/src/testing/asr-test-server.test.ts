// The test server against a bare `ws` client speaking raw frames: what the real service would do
// with a client that is not this package's.
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { isAsrProtocolError } from '../errors.ts';
import { type AsrFrame, decodeFrame, encodeFrame, FRAME_FLAGS } from '../frame-codec.ts';
import { type AsrTestServer, type AsrTestServerOptions, createAsrTestServer } from './index.ts';

const servers: AsrTestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const AUTH = { 'X-Api-App-Key': 'a', 'X-Api-Access-Key': 'b', 'X-Api-Resource-Id': 'r' };
const REQUEST = {
  audio: { format: 'pcm' },
  request: { model_name: 'bigmodel', show_utterances: true },
};

async function start(options: AsrTestServerOptions = {}): Promise<AsrTestServer> {
  const server = await createAsrTestServer(options);
  servers.push(server);
  return server;
}

interface RawClient {
  socket: WebSocket;
  /** Frames that decoded. */
  frames: AsrFrame[];
  /** Codes of frames that did not decode (e.g. ASR_PAYLOAD_EMPTY), in order. */
  undecodable: string[];
  send(frame: AsrFrame | Uint8Array | string): void;
  /** Resolves with every frame once the server closes the connection. */
  closed: Promise<{ frames: AsrFrame[]; code: number }>;
  /** Resolves once `count` frames have arrived. */
  received(count: number): Promise<AsrFrame[]>;
}

async function open(
  server: AsrTestServer,
  path = '/api/v3/sauc/bigmodel',
  headers: Record<string, string> = AUTH,
) {
  const socket = new WebSocket(`${server.url}${path}`, { headers });
  const frames: AsrFrame[] = [];
  const undecodable: string[] = [];
  const waiters: Array<{ count: number; resolve(frames: AsrFrame[]): void }> = [];
  socket.on('message', (data) => {
    try {
      frames.push(decodeFrame(data as Buffer));
    } catch (error) {
      undecodable.push(isAsrProtocolError(error) ? error.code : String(error));
      return;
    }
    for (const waiter of [...waiters]) {
      if (frames.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(frames);
      }
    }
  });
  const closed = new Promise<{ frames: AsrFrame[]; code: number }>((resolve) =>
    socket.on('close', (code) => resolve({ frames, code })),
  );
  await new Promise<void>((resolve, reject) => {
    socket.on('open', () => resolve());
    socket.on('error', reject);
  });
  const client: RawClient = {
    socket,
    frames,
    undecodable,
    send(frame) {
      socket.send(
        typeof frame === 'string' || frame instanceof Uint8Array ? frame : encodeFrame(frame),
      );
    },
    closed,
    received(count) {
      if (frames.length >= count) return Promise.resolve(frames);
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
  };
  return client;
}

const request = (payload: object = REQUEST): AsrFrame => ({
  type: 'full-client-request',
  flags: 0,
  serialization: 'json',
  compression: 'gzip',
  payload: payload as Record<string, never>,
});
const audio = (bytes: number, flags: 0 | 2 = 0): AsrFrame => ({
  type: 'audio-only-request',
  flags,
  serialization: 'none',
  compression: 'gzip',
  payload: new Uint8Array(bytes),
});

async function handshakeStatus(
  server: AsrTestServer,
  path: string,
  headers: Record<string, string>,
) {
  return new Promise<{ status: number; body: string; logId: string | undefined }>((resolve) => {
    const socket = new WebSocket(`${server.url}${path}`, { headers });
    socket.on('unexpected-response', (request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => {
        resolve({
          status: response.statusCode ?? 0,
          body,
          logId: response.headers['x-tt-logid'] as string,
        });
        request.destroy();
      });
    });
    socket.on('error', () => {});
  });
}

describe('handshake', () => {
  it('answers with X-Api-Connect-Id and X-Tt-Logid and records the headers', async () => {
    const server = await start();
    const socket = new WebSocket(`${server.url}/api/v3/sauc/bigmodel_async`, {
      headers: { ...AUTH, 'X-Api-Connect-Id': 'abc-123' },
    });
    const headers = await new Promise<Record<string, unknown>>((resolve) =>
      socket.on('upgrade', (response) => resolve(response.headers)),
    );
    socket.close();
    expect(headers['x-api-connect-id']).toBe('abc-123');
    expect(headers['x-tt-logid']).toBe(server.connections[0]?.logId);
    expect(server.connections[0]).toMatchObject({
      index: 1,
      endpoint: 'bigmodel_async',
      headers: {
        'x-api-app-key': 'a',
        'x-api-access-key': 'b',
        'x-api-resource-id': 'r',
        'x-api-connect-id': 'abc-123',
      },
    });
  });

  it.each([
    ['X-Api-App-Key', 401, 'missing header x-api-app-key'],
    ['X-Api-Access-Key', 401, 'missing header x-api-access-key'],
    ['X-Api-Resource-Id', 401, 'missing header x-api-resource-id'],
  ])('refuses a handshake without %s', async (header, status, error) => {
    const server = await start();
    const headers: Record<string, string> = { ...AUTH };
    delete headers[header];
    const refusal = await handshakeStatus(server, '/api/v3/sauc/bigmodel', headers);
    expect(refusal).toMatchObject({ status, body: JSON.stringify({ error }) });
    expect(refusal.logId).toMatch(/^test-log-1-/);
    expect(server.refusals).toEqual([
      expect.objectContaining({ status, path: '/api/v3/sauc/bigmodel' }),
    ]);
  });

  it('refuses unknown paths with 404', async () => {
    const server = await start();
    expect((await handshakeStatus(server, '/api/v2/asr', AUTH)).status).toBe(404);
  });
});

describe('strict decoding of client frames', () => {
  it.each<[string, (client: RawClient) => void, number, RegExp]>([
    [
      'a malformed frame',
      (client) => client.send(new Uint8Array([0x11, 0x10, 0x10])),
      45000001,
      /malformed frame: ASR_FRAME_TRUNCATED/,
    ],
    [
      'a text message',
      (client) => client.send('{"audio":{}}'),
      45000001,
      /text messages are not part of the protocol/,
    ],
    [
      'audio before the request',
      (client) => client.send(audio(640)),
      45000001,
      /audio arrived before the full client request/,
    ],
    [
      'a request that is not JSON',
      (client) =>
        client.send({
          type: 'full-client-request',
          flags: 0,
          serialization: 'none',
          compression: 'none',
          payload: new Uint8Array(3),
        }),
      45000001,
      /must be JSON/,
    ],
    [
      'a request at 8 kHz',
      (client) =>
        client.send(
          request({ audio: { format: 'pcm', rate: 8000 }, request: { model_name: 'bigmodel' } }),
        ),
      45000151,
      /audio\.rate: must be 16000/,
    ],
    [
      'a request with a wrong model',
      (client) => client.send(request({ audio: { format: 'pcm' }, request: { model_name: 'x' } })),
      45000001,
      /request\.model_name/,
    ],
    [
      'a repeated request',
      (client) => {
        client.send(request());
        client.send(request());
      },
      45000001,
      /repeated full client request/,
    ],
    [
      'a last packet with no audio',
      (client) => {
        client.send(request());
        client.send(audio(0, 2));
      },
      45000002,
      /no audio was received/,
    ],
    [
      'a server frame type from the client',
      (client) =>
        client.send({
          type: 'full-server-response',
          flags: 0,
          serialization: 'json',
          compression: 'none',
          payload: {},
        }),
      45000001,
      /a client may not send a full-server-response frame/,
    ],
  ])('answers %s with an error frame, then closes', async (_name, act, code, message) => {
    const server = await start();
    const client = await open(server);
    act(client);
    const { frames } = await client.closed;
    const error = frames.at(-1);
    expect(error?.type).toBe('error');
    expect(error?.type === 'error' && error.payload.code).toBe(code);
    expect(error?.type === 'error' && error.payload.message).toMatch(message);
    expect(error?.compression).toBe('none');
  });

  it('answers 45000081 when packets stop coming', async () => {
    const server = await start({ packetTimeoutMs: 150 });
    const client = await open(server);
    client.send(request());
    client.send(audio(640));
    const { frames } = await client.closed;
    expect(frames.at(-1)).toMatchObject({ type: 'error', payload: { code: 45000081 } });
  });
});

describe('replies', () => {
  const script = [{ text: 'Open your books.', start_time: 0, end_time: 600 }];

  it('numbers every reply by default, like the real service: request 1, partials 2.., final 0b0011 positive', async () => {
    const server = await start({ utterances: script });
    const client = await open(server);
    client.send(request());
    for (let index = 0; index < 3; index += 1) client.send(audio(6400));
    client.send(audio(6400, 2));
    const { frames } = await client.closed;
    expect(frames.map((frame) => [frame.flags, frame.sequence])).toEqual([
      [1, 1],
      [1, 2],
      [1, 3],
      [1, 4],
      [3, 5],
    ]);
  });

  it('with sequencedPartials false: request reply 0b0001 seq 1, partials 0b0000, final 0b0011 with a positive sequence', async () => {
    const server = await start({ utterances: script, sequencedPartials: false });
    const client = await open(server);
    client.send(request());
    for (let index = 0; index < 3; index += 1) client.send(audio(6400));
    client.send(audio(6400, 2));
    const { frames } = await client.closed;
    expect(frames.map((frame) => [frame.flags, frame.sequence])).toEqual([
      [1, 1],
      [0, undefined],
      [0, undefined],
      [0, undefined],
      [3, 2],
    ]);
    expect(
      frames.every((frame) => frame.compression === 'gzip' && frame.serialization === 'json'),
    ).toBe(true);
    const final = frames.at(-1);
    expect(final?.type === 'full-server-response' && final.payload).toEqual({
      audio_info: { duration: 800 },
      result: {
        text: 'Open your books.',
        utterances: [
          {
            definite: true,
            start_time: 0,
            end_time: 600,
            text: 'Open your books.',
            words: [
              { text: 'Open', start_time: 0, end_time: 200, blank_duration: 0 },
              { text: 'your', start_time: 200, end_time: 400, blank_duration: 0 },
              { text: 'books.', start_time: 400, end_time: 600, blank_duration: 0 },
            ],
          },
        ],
      },
    });
  });

  it('numbers partials when sequencedPartials is set', async () => {
    const server = await start({ utterances: script, sequencedPartials: true });
    const client = await open(server);
    client.send(request());
    client.send(audio(6400));
    client.send(audio(6400, 2));
    const { frames } = await client.closed;
    expect(frames.map((frame) => [frame.flags, frame.sequence])).toEqual([
      [1, 1],
      [1, 2],
      [3, 3],
    ]);
  });

  it('answers in the client compression and omits utterances unless asked', async () => {
    const server = await start({ utterances: script });
    const client = await open(server);
    client.send({
      ...request({ audio: { format: 'pcm' }, request: { model_name: 'bigmodel' } }),
      compression: 'none',
    } as AsrFrame);
    client.send({ ...audio(6400 * 4, 2), compression: 'none' } as AsrFrame);
    const { frames } = await client.closed;
    expect(frames.every((frame) => frame.compression === 'none')).toBe(true);
    const final = frames.at(-1);
    expect(final?.type === 'full-server-response' && final.payload).toEqual({
      audio_info: { duration: 800 },
      result: { text: 'Open your books.' },
    });
  });

  /**
   * A client that gzips its requests but reads every reply as plain JSON, as the doubao provider
   * of xiaozhi-esp32-server does: the 4-byte header, the sequence when flags say so, the 4-byte
   * size, then the payload parsed as UTF-8 JSON whatever the header's compression bits say.
   * Resolves with the texts it read, once the server closes.
   */
  async function plainReadingClient(server: AsrTestServer): Promise<string[]> {
    const socket = new WebSocket(`${server.url}/api/v3/sauc/bigmodel`, { headers: AUTH });
    const texts: string[] = [];
    socket.on('message', (data: Buffer) => {
      let offset = (data[0]! & 0x0f) * 4;
      const type = data[1]! >> 4;
      if (type !== 0b1001) return;
      if ((data[1]! & 0b0001) !== 0) offset += 4;
      const size = data.readUInt32BE(offset);
      try {
        const reply = JSON.parse(data.subarray(offset + 4, offset + 4 + size).toString('utf8'));
        texts.push(reply.result?.text ?? '');
      } catch {
        // Not JSON to this client: no result.
      }
    });
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      socket.on('open', () => resolve());
      socket.on('error', reject);
    });
    socket.send(encodeFrame(request({ ...REQUEST, request: { model_name: 'bigmodel' } })));
    socket.send(encodeFrame(audio(6400 * 4, 2)));
    await closed;
    return texts;
  }

  it('replyCompression none answers uncompressed to a client that gzips its requests', async () => {
    // By default the replies are gzipped like the requests: this client reads none of them.
    expect(await plainReadingClient(await start({ utterances: script }))).toEqual([]);
    const plain = await start({ utterances: script, replyCompression: 'none' });
    const texts = await plainReadingClient(plain);
    expect(texts.at(-1)).toBe('Open your books.');
    expect(plain.connections[0]?.frames.every((frame) => frame.compression === 'gzip')).toBe(true);
  });

  it('replyCompression gzip gzips the replies to a client that sends uncompressed', async () => {
    const server = await start({ utterances: script, replyCompression: 'gzip' });
    const client = await open(server);
    client.send({ ...request(), compression: 'none' } as AsrFrame);
    client.send({ ...audio(6400 * 4, 2), compression: 'none' } as AsrFrame);
    const { frames } = await client.closed;
    const replies = frames.filter((frame) => frame.type === 'full-server-response');
    expect(replies.length).toBeGreaterThan(1);
    expect(replies.every((frame) => frame.compression === 'gzip')).toBe(true);
    expect(replies.at(-1)?.payload).toMatchObject({ result: { text: 'Open your books.' } });
  });

  it('refuses a replyCompression it does not know, naming the choices', async () => {
    await expect(createAsrTestServer({ replyCompression: 'deflate' as 'gzip' })).rejects.toThrow(
      `replyCompression must be one of 'client', 'none', 'gzip', got "deflate"`,
    );
  });

  it('with result_type single, does not repeat sentences already sent as definite', async () => {
    const server = await start({
      utterances: [...script, { text: 'Page ten.', start_time: 1000, end_time: 1400 }],
      definiteLagMs: 0,
    });
    const client = await open(server);
    client.send(
      request({
        audio: { format: 'pcm' },
        request: { model_name: 'bigmodel', show_utterances: true, result_type: 'single' },
      }),
    );
    for (let index = 0; index < 8; index += 1) client.send(audio(6400));
    client.send(audio(0, 2));
    const { frames } = await client.closed;
    const texts = frames.map((frame) =>
      frame.type === 'full-server-response' && frame.serialization === 'json'
        ? ((frame.payload.result as { text: string }).text ?? '')
        : '',
    );
    // Packets of 200 ms; definite as soon as a sentence's end is heard (definiteLagMs 0).
    expect(texts).toEqual([
      '',
      'Open',
      'Open your',
      'Open your books.',
      '',
      '',
      'Page',
      'Page ten.',
      '',
      '',
    ]);
  });

  it('uses the request end_window_size as the silence before a sentence is definite', async () => {
    const server = await start({ utterances: script });
    const client = await open(server);
    client.send(
      request({
        audio: { format: 'pcm' },
        request: { model_name: 'bigmodel', show_utterances: true, end_window_size: 200 },
      }),
    );
    for (let index = 0; index < 5; index += 1) client.send(audio(6400));
    await client.received(6);
    const definiteAt = client.frames.findIndex(
      (frame) =>
        frame.type === 'full-server-response' &&
        JSON.stringify(frame.payload).includes('"definite":true'),
    );
    expect(definiteAt).toBe(4); // after 800 ms of audio: 600 ms end + 200 ms window
    client.socket.close();
  });

  it('with referenceAudio, a connection resending from the middle hears what lies there', async () => {
    // 3 s of distinct bytes (a noise floor): sentences at 0.2-1.0 s and 1.6-2.4 s.
    const reference = new Uint8Array(96000);
    let state = 12345;
    for (let index = 0; index < reference.length; index += 1) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      reference[index] = state >>> 24;
    }
    const server = await start({
      referenceAudio: reference,
      definiteLagMs: 0,
      utterances: [
        { text: 'First sentence.', start_time: 200, end_time: 1000 },
        { text: 'Second sentence.', start_time: 1600, end_time: 2400 },
      ],
    });
    const sendFrom = async (startMs: number) => {
      const client = await open(server);
      client.send(
        request({
          audio: { format: 'pcm' },
          request: { model_name: 'bigmodel', show_utterances: true },
        }),
      );
      for (let at = startMs * 32; at < reference.length; at += 6400) {
        client.send({
          type: 'audio-only-request',
          flags: 0,
          serialization: 'none',
          compression: 'gzip',
          payload: reference.slice(at, at + 6400),
        });
      }
      client.send(audio(0, 2));
      const { frames } = await client.closed;
      const final = frames.at(-1);
      return final?.type === 'full-server-response' && final.serialization === 'json'
        ? (final.payload.result as { utterances: Array<{ text: string; start_time: number }> })
            .utterances
        : [];
    };
    const whole = await sendFrom(0);
    expect(whole.map((u) => [u.text, u.start_time])).toEqual([
      ['First sentence.', 200],
      ['Second sentence.', 1600],
    ]);
    const resent = await sendFrom(1100);
    expect(resent.map((u) => [u.text, u.start_time])).toEqual([['Second sentence.', 500]]);
    expect(server.connections.map((connection) => connection.referenceOffsetMs)).toEqual([0, 1100]);
  });

  it('records the request, every frame and the audio bytes', async () => {
    const server = await start();
    const client = await open(server);
    client.send(request());
    client.send({ ...audio(4), payload: new Uint8Array([1, 2, 3, 4]) } as AsrFrame);
    client.send({ ...audio(2, 2), payload: new Uint8Array([5, 6]) } as AsrFrame);
    await client.closed;
    const [connection] = server.connections;
    expect(connection?.request).toEqual(REQUEST);
    expect([...(connection?.audio ?? [])]).toEqual([1, 2, 3, 4, 5, 6]);
    expect(connection?.frames.map((frame) => frame.type)).toEqual([
      'full-client-request',
      'audio-only-request',
      'audio-only-request',
    ]);
    expect(connection).toMatchObject({ packets: 2, lastPacketReceived: true, framesSent: 3 });
  });

  it('delays replies by responseDelayMs, keeping their order', async () => {
    const server = await start({
      utterances: script,
      responseDelayMs: 30,
      sequencedPartials: false,
    });
    const client = await open(server);
    client.send(request());
    client.send(audio(6400));
    client.send(audio(6400, FRAME_FLAGS.LAST));
    const { frames } = await client.closed;
    expect(frames.map((frame) => frame.flags)).toEqual([1, 0, 3]);
  });
});

describe('faults', () => {
  it('injects an error with the chosen code at the chosen packet, on the chosen connection only', async () => {
    const server = await start({
      faults: [
        { type: 'error', code: 55000031, message: 'busy', at: { afterPackets: 2 }, connection: 2 },
      ],
    });
    const first = await open(server);
    first.send(request());
    first.send(audio(640));
    first.send(audio(640));
    first.send(audio(640, 2));
    expect((await first.closed).frames.at(-1)?.flags).toBe(3);
    const second = await open(server);
    second.send(request());
    second.send(audio(640));
    second.send(audio(640));
    const { frames } = await second.closed;
    expect(frames.at(-1)).toMatchObject({
      type: 'error',
      payload: { code: 55000031, message: 'busy' },
    });
    expect(frames).toHaveLength(3);
  });

  it('drops the TCP connection without a close frame', async () => {
    const server = await start({ faults: [{ type: 'close', at: { afterAudioMs: 400 } }] });
    const client = await open(server);
    client.send(request());
    client.send(audio(6400));
    client.send(audio(6400));
    expect((await client.closed).code).toBe(1006);
  });

  it('goes silent, sending not even the final response', async () => {
    const server = await start({ faults: [{ type: 'silence', at: { afterPackets: 1 } }] });
    const client = await open(server);
    client.send(request());
    client.send(audio(640));
    client.send(audio(640, 2));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(client.frames).toHaveLength(1);
    expect(server.connections[0]?.lastPacketReceived).toBe(true);
    client.socket.close();
  });

  it('sends empty and non-JSON payloads as extra responses', async () => {
    const server = await start({
      sequencedPartials: false,
      faults: [
        { type: 'empty-payload', at: { afterRequest: true } },
        { type: 'non-json-payload', body: 'oops', at: { afterPackets: 1 } },
      ],
    });
    const client = await open(server);
    client.send(request());
    client.send(audio(640));
    client.send(audio(640, 2));
    const { frames } = await client.closed;
    expect(client.undecodable).toEqual(['ASR_PAYLOAD_EMPTY', 'ASR_PAYLOAD_NOT_JSON']);
    expect(frames.map((frame) => frame.flags)).toEqual([1, 0, 3]);
  });
});
