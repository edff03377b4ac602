// `pnpm bench` (bench/flood.ts): the backend's memory after a flood of 3,000 connections to its
// live channels that connect and leave — half `GET /api/events` streams (the first event read,
// then gone), half `WS /api/ws/alerts` sockets (opened, then gone), 200 at a time, so most are
// one subscriber too many and refused (503). Resident memory and the JS heap are read after
// garbage collection (bench/memory-probe.ts) before the flood, right after it and after 10 s
// idle; the ratios are against the same backend before the flood, measured in the same run.
// The subscribers' bookkeeping is printed too: what the backend still holds once they left.
//   pnpm --filter @class-assistant/server exec node bench/flood.ts
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { freePort } from '../test/support/ports.ts';
import { printTable } from './table.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const CONNECTIONS = Number(process.env.BENCH_FLOOD ?? 3000);
const AT_ONCE = Number(process.env.BENCH_FLOOD_AT_ONCE ?? 1000);

interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
}

function memory(child: ChildProcess): Promise<Memory> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve(message as Memory));
    child.send('memory');
  });
}

async function healthy(base: string): Promise<void> {
  const begin = Date.now();
  for (;;) {
    const response = await fetch(`${base}/api/health`).catch(() => undefined);
    if (response?.ok) return;
    if (Date.now() - begin > 30_000) throw new Error('the backend never became healthy');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One event stream: opened, its first event read, left. The HTTP status. */
async function eventStream(base: string): Promise<number> {
  const controller = new AbortController();
  const response = await fetch(`${base}/api/events`, { signal: controller.signal });
  if (response.status !== 200) {
    await response.arrayBuffer();
    return response.status;
  }
  await response.body?.getReader().read();
  controller.abort();
  return 200;
}

/** One alert socket: opened, left. 101 or the refusal's status. */
function alertSocket(base: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${base.replace('http', 'ws')}/api/ws/alerts`);
    socket.on('open', () => {
      socket.terminate();
      resolve(101);
    });
    socket.on('unexpected-response', (_request, response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    socket.on('error', () => resolve(0));
  });
}

async function flood(base: string): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      while (next < CONNECTIONS) {
        const index = next++;
        const status = await (index % 2 === 0 ? eventStream(base) : alertSocket(base)).catch(
          () => 0,
        );
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

async function main() {
  const root = await mkdtemp(join(tmpdir(), 'class-assistant-flood-'));
  const port = await freePort();
  await writeFile(join(root, '.env'), 'ASR_MODE=mock\nLOG_LEVEL=warn\n');
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      here('./memory-probe.ts'),
      here('../bin/class-assistant-backend.js'),
      '--port',
      String(port),
      '--data-dir',
      join(root, 'data'),
      '--settings-file',
      join(root, '.env'),
    ],
    { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
  );
  const base = `http://127.0.0.1:${port}`;
  const rows: string[][] = [];
  try {
    await healthy(base);
    // Every route the flood uses has run once: what it compiles and caches is in the baseline.
    await eventStream(base);
    await alertSocket(base);
    const before = await memory(child);
    const statuses = await flood(base);
    const after = await memory(child);
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const idle = await memory(child);
    const health = (await (await fetch(`${base}/api/health`)).json()) as { status: string };
    if (health.status !== 'healthy') throw new Error('the backend is not healthy after the flood');
    const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
    const ratio = (value: number, baseline: number) => `${(value / baseline).toFixed(2)}x`;
    const answered = [...statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${count}x ${status === 0 ? 'failed' : status}`)
      .join(', ');
    rows.push(['after GC', 'RSS MiB', 'vs before', 'JS heap MiB', 'vs before']);
    for (const [label, sample] of [
      ['before the flood', before],
      ['right after it', after],
      ['after 10 s idle', idle],
    ] as const) {
      rows.push([
        label,
        mib(sample.rss),
        ratio(sample.rss, before.rss),
        mib(sample.heapUsed),
        ratio(sample.heapUsed, before.heapUsed),
      ]);
    }
    rows.push(['', '', '', '', '']);
    rows.push([`answers: ${answered}`, '', '', '', '']);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    await rm(root, { recursive: true, force: true });
  }
  printTable(
    `Backend memory after ${CONNECTIONS} connections to /api/events and /api/ws/alerts (${AT_ONCE} at a time) that connect and leave`,
    rows,
  );
}

await main();
