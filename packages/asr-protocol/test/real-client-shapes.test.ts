// The test server against clients shaped like those in the wild, over real sockets. Frames are
// built byte by byte here, not with this package's codec, and replies are read the way such
// clients read them: the payload size at the fixed offset 8, the payload from offset 12.
//
// - "Device gateway" client: a full request with legacy and unknown fields (an `app` group,
//   `reqid`, `workflow`, `sequence`, `audio.codec: "pcm"`, `audio.sample_rate`, no `model_name`),
//   JSON + gzip everywhere, audio frames with the JSON bit set, no sequences, a gzipped empty last
//   packet.
// - "Input method" client: every frame numbered (request 1, audio 2.., the last one negative with
//   flags 0b0011), no compression, options the endpoint does not support.
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  type AsrTestServer,
  type AsrTestServerOptions,
  createAsrTestServer,
} from '../src/testing/index.ts';
import { readWavFile } from '../src/wav.ts';

const SCRIPT = [
  { text: 'Good morning, class.', start_time: 0, end_time: 1300 },
  { text: 'Today we talk about photosynthesis.', start_time: 1700, end_time: 4000 },
];
const PACKET_BYTES = 6400; // 200 ms of 16 kHz mono s16le

let lecture: Uint8Array;
beforeAll(async () => {
  lecture = (
    await readWavFile(new URL('./fixtures/lecture-mono-16k.wav', import.meta.url).pathname)
  ).data;
});

const servers: AsrTestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(options: AsrTestServerOptions = {}): Promise<AsrTestServer> {
  const server = await createAsrTestServer({ utterances: SCRIPT, ...options });
  servers.push(server);
  return server;
}

const u32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value >>> 0);
  return bytes;
};

/** Header bytes, then an optional sequence, the payload size and the payload. */
function frame(header: number[], payload: Uint8Array, sequence?: number): Buffer {
  const numbered = sequence === undefined ? [] : [u32(sequence)];
  return Buffer.concat([Buffer.from(header), ...numbered, u32(payload.byteLength), payload]);
}

/** A reply as a fixed-offset reader sees it; `undefined` when the sizes do not add up. */
interface FixedOffsetReply {
  type: number;
  flags: number;
  /** The 4 bytes after the header: the sequence, or the error code. */
  word: number;
  payload: Buffer;
}

function readAtFixedOffset(message: Buffer): FixedOffsetReply | undefined {
  if (message.byteLength < 12) return undefined;
  const size = message.readUInt32BE(8);
  if (message.byteLength !== 12 + size) return undefined;
  return {
    type: message[1]! >> 4,
    flags: message[1]! & 0x0f,
    word: message.readInt32BE(4),
    payload: message.subarray(12),
  };
}

/** Connects, sends every frame, and resolves with every message once the server closes. */
async function exchange(
  server: AsrTestServer,
  endpoint: string,
  frames: Buffer[],
): Promise<Buffer[]> {
  const socket = new WebSocket(`${server.url}/api/v3/sauc/${endpoint}`, {
    headers: {
      'X-Api-App-Key': '1234567890',
      'X-Api-Access-Key': 'token',
      'X-Api-Resource-Id': 'volc.bigasr.sauc.duration',
      'X-Api-Connect-Id': '0f0e0d0c-0b0a-4908-8706-050403020100',
    },
  });
  const messages: Buffer[] = [];
  socket.on('message', (data) => messages.push(data as Buffer));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.on('open', resolve);
    socket.on('error', reject);
  });
  for (const bytes of frames) socket.send(bytes);
  await closed;
  return messages;
}

const packets = (audio: Uint8Array) =>
  Array.from({ length: Math.ceil(audio.byteLength / PACKET_BYTES) }, (_, index) =>
    audio.subarray(index * PACKET_BYTES, (index + 1) * PACKET_BYTES),
  );

/** The request a device gateway sends: legacy names, unknown fields, no model name. */
const gatewayRequest = (audio: object = {}) => ({
  app: { appid: '1234567890', token: 'token' },
  user: { uid: 'streaming_asr_service' },
  request: {
    reqid: '5d3f0c57-3a1c-4f57-9d0e-1b2f6a7c8d9e',
    workflow: 'audio_in,resample,partition,vad,fe,decode,itn,nlu_punctuate',
    show_utterances: true,
    result_type: 'single',
    sequence: 1,
    end_window_size: 200,
    corpus: { boosting_table_name: '', correct_table_name: '' },
  },
  audio: {
    format: 'pcm',
    codec: 'pcm',
    rate: 16000,
    bits: 16,
    channel: 1,
    sample_rate: 16000,
    ...audio,
  },
});

/** Its framing: JSON + gzip on every frame (audio too), no sequences, a gzipped empty last one. */
function gatewayFrames(request: object, audio: Uint8Array): Buffer[] {
  const json = gzipSync(JSON.stringify(request));
  return [
    frame([0x11, 0x10, 0x11, 0x00], json),
    ...packets(audio).map((packet) => frame([0x11, 0x20, 0x11, 0x00], gzipSync(packet))),
    frame([0x11, 0x22, 0x11, 0x00], gzipSync(Buffer.alloc(0))),
  ];
}

/** An input method's framing: every frame numbered, the last one negative, no compression. */
function inputMethodFrames(request: object, audio: Uint8Array): Buffer[] {
  const audioPackets = packets(audio);
  return [
    frame([0x11, 0x11, 0x10, 0x00], Buffer.from(JSON.stringify(request)), 1),
    ...audioPackets.map((packet, index) => frame([0x11, 0x21, 0x00, 0x00], packet, index + 2)),
    frame([0x11, 0x23, 0x00, 0x00], Buffer.alloc(0), -(audioPackets.length + 2)),
  ];
}

const INPUT_METHOD_REQUEST = {
  user: { uid: 'input-method' },
  audio: { format: 'pcm', rate: 16000, bits: 16, channel: 1 },
  request: {
    model_name: 'bigmodel',
    enable_itn: true,
    enable_punc: true,
    enable_ddc: false,
    enable_word: false,
    res_type: 'full',
    nbest: 1,
    use_vad: true,
    enable_nonstream: true,
  },
};

describe('a device gateway (legacy request, gzip, no sequences)', () => {
  it('is answered with numbered partials and a final, every one readable at the fixed offset', async () => {
    const server = await start();
    const messages = await exchange(
      server,
      'bigmodel_async',
      gatewayFrames(gatewayRequest(), lecture),
    );
    const replies = messages.map(readAtFixedOffset);
    expect(replies.every((reply) => reply !== undefined)).toBe(true);
    const read = replies as FixedOffsetReply[];
    expect(read.every((reply) => reply.type === 0b1001)).toBe(true);
    // The request's reply is 1, partials follow in order, the final one is flagged 0b0011.
    expect(read.map((reply) => reply.word)).toEqual(read.map((_, index) => index + 1));
    expect(read.slice(0, -1).every((reply) => reply.flags === 0b0001)).toBe(true);
    expect(read.at(-1)?.flags).toBe(0b0011);
    expect(read.length).toBeGreaterThan(3);
    const results = read.map(
      (reply) =>
        (
          JSON.parse(gunzipSync(reply.payload).toString()) as {
            result: { text: string; utterances?: Array<{ text: string; definite: boolean }> };
          }
        ).result,
    );
    expect(results.map((result) => result.text)).toContain('Good morning,');
    // result_type single: each sentence is sent as definite once, never repeated.
    const definite = results.flatMap((result) =>
      (result.utterances ?? [])
        .filter((utterance) => utterance.definite)
        .map((utterance) => utterance.text),
    );
    expect(definite).toEqual(['Good morning, class.', 'Today we talk about photosynthesis.']);

    const [connection] = server.connections;
    expect(connection?.lastPacketReceived).toBe(true);
    expect(Buffer.from(connection?.audio ?? [])).toEqual(Buffer.from(lecture));
    expect(connection?.warnings.map((warning) => [warning.path, warning.kind])).toEqual([
      ['audio.codec', 'legacy-value'],
      ['audio.sample_rate', 'legacy-field'],
      ['request.model_name', 'missing-field'],
      ['request.reqid', 'unknown-field'],
      ['request.workflow', 'unknown-field'],
      ['request.sequence', 'unknown-field'],
      ['app', 'unknown-field'],
    ]);
  });

  it.each([
    ['an 8 kHz sample rate', { rate: 8000, sample_rate: 8000 }, 45000151],
    ['an unknown format', { format: 'flac' }, 45000151],
    ['8-bit samples', { bits: 8 }, 45000151],
  ])('is still refused for %s, with the code at the fixed offset', async (_name, audio, code) => {
    const server = await start();
    const messages = await exchange(
      server,
      'bigmodel_async',
      gatewayFrames(gatewayRequest(audio), lecture.subarray(0, PACKET_BYTES)),
    );
    const error = readAtFixedOffset(messages.at(-1) as Buffer);
    expect(error).toMatchObject({ type: 0b1111, word: code });
    expect(messages).toHaveLength(1);
  });

  it('is refused without an audio group, with 45000001', async () => {
    const server = await start();
    const { audio: _audio, ...request } = gatewayRequest();
    const messages = await exchange(server, 'bigmodel', gatewayFrames(request, new Uint8Array(0)));
    expect(readAtFixedOffset(messages.at(-1) as Buffer)).toMatchObject({
      type: 0b1111,
      word: 45000001,
    });
    expect(readAtFixedOffset(messages.at(-1) as Buffer)?.payload.toString()).toMatch(
      /^audio: is required/,
    );
  });
});

describe('an input method (every frame numbered, no compression)', () => {
  it('gets every reply, one per packet, numbered, then the final', async () => {
    const server = await start();
    const audio = lecture.subarray(0, PACKET_BYTES * 10);
    const messages = await exchange(
      server,
      'bigmodel',
      inputMethodFrames(INPUT_METHOD_REQUEST, audio),
    );
    const replies = messages.map(readAtFixedOffset);
    // The request's reply, one per audio packet, the final: 12, all readable.
    expect(replies).toHaveLength(12);
    expect(replies.every((reply) => reply !== undefined)).toBe(true);
    const read = replies as FixedOffsetReply[];
    expect(read.map((reply) => [reply.flags, reply.word])).toEqual([
      ...Array.from({ length: 11 }, (_, index) => [0b0001, index + 1]),
      [0b0011, 12],
    ]);
    const final = JSON.parse(read.at(-1)?.payload.toString() ?? '') as { result: { text: string } };
    expect(final.result.text).toBe('Good morning, class. Today');
    expect(server.connections[0]?.warnings.map((warning) => [warning.path, warning.kind])).toEqual([
      ['request.enable_word', 'unknown-field'],
      ['request.res_type', 'unknown-field'],
      ['request.nbest', 'unknown-field'],
      ['request.use_vad', 'unknown-field'],
      ['request.enable_nonstream', 'ignored-on-endpoint'],
    ]);
  });

  it('loses the partials when the server leaves them unnumbered (sequencedPartials: false)', async () => {
    const server = await start({ sequencedPartials: false });
    const audio = lecture.subarray(0, PACKET_BYTES * 10);
    const messages = await exchange(
      server,
      'bigmodel',
      inputMethodFrames(INPUT_METHOD_REQUEST, audio),
    );
    const readable = messages.map(readAtFixedOffset).filter((reply) => reply !== undefined);
    expect(messages).toHaveLength(12);
    // Only the request's reply and the final carry a sequence: 10 of 12 replies are misread.
    expect(readable.map((reply) => reply.flags)).toEqual([0b0001, 0b0011]);
  });
});
