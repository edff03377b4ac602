// pnpm --filter @class-assistant/asr-protocol bench
//
// 1. Codec throughput, against a baseline measured in the same run on the same bytes:
//    - a 200 ms audio packet (6400 bytes of real speech), gzip and none, vs raw zlib gzip+gunzip;
//    - a response frame (a late-lecture partial: 20 utterances with words), vs JSON + raw zlib.
// 2. The client's added latency: from a frame leaving the server to the client's event, vs a bare
//    `ws` client receiving the same frames from the same server in the same run. Frames go every
//    10 ms (20 times the service's pace, to gather samples quickly); the first 20 are warm-up.
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import WebSocket, { WebSocketServer } from 'ws';
import { decodeFrame, encodeFrame, type JsonObject } from '../src/frame-codec.ts';
import { connectAsrStream } from '../src/stream-client.ts';
import { buildAsrResponsePayload } from '../src/testing/response-builder.ts';
import { parseWav } from '../src/wav.ts';

/** Time per call of `operation` in µs, over `ms` milliseconds of repeated calls. */
function timeOnce(operation: () => void, ms: number): number {
  let ops = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let index = 0; index < 50; index += 1) operation();
    ops += 50;
    elapsed = performance.now() - start;
  }
  return (elapsed * 1000) / ops;
}

/**
 * Measures both operations in alternating rounds and keeps each one's fastest round: load from
 * other processes only ever adds time, so the minimum is the steadiest estimate of the cost, and
 * alternating lets frequency changes hit both sides alike.
 */
function compare(
  ours: () => void,
  baseline: () => void,
  rounds = 9,
  roundMs = 120,
): [number, number] {
  for (let index = 0; index < 300; index += 1) {
    ours();
    baseline();
  }
  const oursTimes: number[] = [];
  const baselineTimes: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    oursTimes.push(timeOnce(ours, roundMs));
    baselineTimes.push(timeOnce(baseline, roundMs));
  }
  return [Math.min(...oursTimes), Math.min(...baselineTimes)];
}

const rows: string[][] = [];
function row(name: string, ours: number, baselineName: string, baseline: number, unit = 'µs/op') {
  rows.push([
    name,
    `${ours.toFixed(2)} ${unit}`,
    baselineName,
    `${baseline.toFixed(2)} ${unit}`,
    `${(ours / baseline).toFixed(2)}x`,
  ]);
}
function compareRow(name: string, ours: () => void, baselineName: string, baseline: () => void) {
  const [oursMicros, baselineMicros] = compare(ours, baseline);
  row(name, oursMicros, baselineName, baselineMicros);
}

// --- codec ----------------------------------------------------------------------------------------
const wav = parseWav(
  await readFile(new URL('../test/fixtures/lecture-mono-16k.wav', import.meta.url)),
);
const packet = wav.data.slice(32 * 1800, 32 * 1800 + 6400); // 200 ms in the middle of speech
let sink = 0;

const audioFrame = (compression: 'none' | 'gzip') => () => {
  const bytes = encodeFrame({
    type: 'audio-only-request',
    flags: 0,
    serialization: 'none',
    compression,
    payload: packet,
  });
  sink += (decodeFrame(bytes).payload as Uint8Array).byteLength;
};
const rawGzip = () => {
  sink += gunzipSync(gzipSync(packet)).byteLength;
};
compareRow(
  'audio packet 6400 B, gzip: encode+decode',
  audioFrame('gzip'),
  'zlib gzipSync+gunzipSync',
  rawGzip,
);
compareRow(
  'audio packet 6400 B, none: encode+decode',
  audioFrame('none'),
  'zlib gzipSync+gunzipSync',
  rawGzip,
);
compareRow(
  'audio packet 6400 B, none: encode+decode',
  audioFrame('none'),
  'copy into a new frame buffer',
  () => {
    const out = new Uint8Array(packet.byteLength + 8);
    out.set(packet, 8);
    sink += out.subarray(8).byteLength;
  },
);

const words = 'today we look at how plants turn light water and carbon dioxide into sugar'.split(
  ' ',
);
const utterances = Array.from({ length: 20 }, (_, index) => ({
  text: words.slice(0, 8 + (index % 6)).join(' '),
  start_time: index * 3000,
  end_time: index * 3000 + 2500,
  definite: index < 19,
}));
const response: JsonObject = buildAsrResponsePayload({ utterances, audioMs: 60_000 });
const responseJson = JSON.stringify(response);
const responseBytes = new TextEncoder().encode(responseJson);

compareRow(
  `response ${responseBytes.byteLength} B JSON, gzip: encode+decode`,
  () => {
    const bytes = encodeFrame({
      type: 'full-server-response',
      flags: 0,
      serialization: 'json',
      compression: 'gzip',
      payload: response,
    });
    sink += Object.keys(decodeFrame(bytes).payload).length;
  },
  'JSON + zlib gzip/gunzip',
  () => {
    const bytes = gzipSync(Buffer.from(JSON.stringify(response)));
    sink += Object.keys(JSON.parse(gunzipSync(bytes).toString('utf8'))).length;
  },
);
compareRow(
  `response ${responseBytes.byteLength} B JSON, none: encode+decode`,
  () => {
    const bytes = encodeFrame({
      type: 'full-server-response',
      flags: 0,
      serialization: 'json',
      compression: 'none',
      payload: response,
    });
    sink += Object.keys(decodeFrame(bytes).payload).length;
  },
  'JSON.stringify + JSON.parse',
  () => {
    sink += Object.keys(JSON.parse(Buffer.from(JSON.stringify(response)).toString('utf8'))).length;
  },
);

// --- client latency -------------------------------------------------------------------------------
const FRAMES = 320;
/** The first frames warm up the JIT (and zod's compiled parsers) on both sides: not counted. */
const WARMUP = 20;
const SPACING_MS = 10;

interface Sent {
  at: number[];
}

async function withServer(run: (url: string, sent: Sent) => Promise<number[]>): Promise<number[]> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((resolve) => server.on('listening', () => resolve()));
  const sent: Sent = { at: [] };
  server.on('connection', (socket) => {
    socket.once('message', () => {
      let index = 0;
      const timer = setInterval(() => {
        if (index >= FRAMES) {
          clearInterval(timer);
          return;
        }
        const last = index === FRAMES - 1;
        const frame = encodeFrame({
          type: 'full-server-response',
          ...(last ? { flags: 3 as const, sequence: FRAMES } : { flags: 0 as const }),
          serialization: 'json',
          compression: 'gzip',
          payload: { ...response, bench_index: index },
        });
        sent.at[index] = performance.now();
        socket.send(frame);
        index += 1;
      }, SPACING_MS);
    });
  });
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    return await run(url, sent);
  } finally {
    for (const client of server.clients) client.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const bare = await withServer(
  (url, sent) =>
    new Promise((resolve) => {
      const latencies: number[] = [];
      const socket = new WebSocket(`${url}/api/v3/sauc/bigmodel`, { perMessageDeflate: false });
      socket.on('open', () =>
        socket.send(new Uint8Array([0x11, 0x10, 0x10, 0x00, 0, 0, 0, 2, 0x7b, 0x7d])),
      );
      socket.on('message', () => {
        latencies.push(performance.now() - (sent.at[latencies.length] as number));
        if (latencies.length === FRAMES) {
          socket.close();
          resolve(latencies);
        }
      });
    }),
);

const ours = await withServer(async (url, sent) => {
  const latencies: number[] = [];
  const stream = await connectAsrStream({
    url,
    endpoint: 'bigmodel',
    appKey: 'a',
    accessKey: 'b',
    resourceId: 'r',
  });
  stream.on('response-receive', (event) => {
    const index = (event.response as { bench_index?: number }).bench_index ?? 0;
    latencies.push(performance.now() - (sent.at[index] as number));
  });
  await stream.finish({ timeoutMs: 60_000 });
  return latencies;
});

const percentile = (values: number[], p: number) => {
  const sorted = values.slice(WARMUP).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
};
for (const p of [50, 99]) {
  row(
    `latency send->event p${p} (${FRAMES - WARMUP} gzip responses)`,
    percentile(ours, p) * 1000,
    'bare ws send->message',
    percentile(bare, p) * 1000,
    'µs',
  );
}
const added = (percentile(ours, 50) - percentile(bare, 50)) * 1000;

// --- table ----------------------------------------------------------------------------------------
const header = ['measure', 'asr-protocol', 'baseline', 'baseline value', 'ratio'];
const widths = header.map((title, column) =>
  Math.max(title.length, ...rows.map((cells) => (cells[column] ?? '').length)),
);
const line = (cells: string[]) =>
  `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
console.log(line(header));
console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
for (const cells of rows) console.log(line(cells));
console.log(
  `\nclient added latency (p50, decode + validate + events): ${added.toFixed(0)} µs per response`,
);
console.log(
  `(ratio = asr-protocol / baseline; lower is faster. node ${process.version}; checksum ${sink % 1000})`,
);
