// `pnpm bench`: the backend's speed and memory against baselines measured in the same run.
//   1. requests/s and p99 of /api/health and /api/monitor_status while a mock class runs,
//      against a bare node:http server answering the same JSON;
//   2. parse time and peak memory of a 100-slide .pptx and a 300-page .pdf, against unzipping
//      every entry / PDF.js opening every page, each in a fresh process; and the same files
//      uploaded through POST /api/upload_ppt (worker thread, written to data/cite).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import {
  buildPdf,
  buildPptx,
  lecturePages,
  lectureSlides,
} from '../test/support/office-builders.ts';
import { freePort } from '../test/support/ports.ts';
import { printTable } from './table.ts';

const run = promisify(execFile);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const BIN = here('../bin/class-assistant-backend.js');
const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const children: ChildProcess[] = [];

function start(args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: 'ignore' });
  children.push(child);
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Milliseconds from spawning until `url` answers 200. */
async function timeToHealthy(
  spawnChild: () => ChildProcess,
  url: string,
): Promise<{ ms: number; child: ChildProcess }> {
  const begin = performance.now();
  const child = spawnChild();
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.status === 200) return { ms: performance.now() - begin, child };
    } catch {
      // Not listening yet.
    }
    if (performance.now() - begin > 30_000) throw new Error(`${url} never became healthy`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function backend(root: string, port: number): Promise<ChildProcess> {
  await writeFile(
    join(root, '.env'),
    'ASR_MODE=mock\nMOCK_INTERVAL_MS=200\nMOCK_LOOP=true\nLOG_LEVEL=warn\n',
  );
  return start([
    BIN,
    '--port',
    String(port),
    '--data-dir',
    join(root, 'data'),
    '--env-file',
    join(root, '.env'),
  ]);
}

const fixed = (value: number, digits = 0) => value.toFixed(digits);
/** autocannon measures latency in whole milliseconds. */
const latency = (ms: number) => (ms < 1 ? '<1' : String(ms));

async function load(url: string) {
  const result = await autocannon({ url, connections: 10, duration: DURATION_S });
  if (result.errors > 0 || result.non2xx > 0)
    throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx`);
  return { rps: result.requests.average, p99: result.latency.p99 };
}

async function parse(file: string, mode: string) {
  const { stdout } = await run(process.execPath, [here('./parse-once.ts'), file, mode], {
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as { ms: number; maxRssMb: number; characters: number };
}

async function main() {
  const root = await mkdtemp(join(tmpdir(), 'class-assistant-bench-'));
  const rows: string[][] = [];
  try {
    // 1: HTTP throughput (start-up and idle memory: bench/startup.ts).
    const helloPort = await freePort();
    const hello = start([here('./hello-server.ts'), String(helloPort)]);
    await timeToHealthy(() => hello, `http://127.0.0.1:${helloPort}/`);
    const backendPort = await freePort();
    let server: ChildProcess | undefined;
    server = await backend(root, backendPort);
    const base = `http://127.0.0.1:${backendPort}`;
    await timeToHealthy(() => server!, `${base}/api/health`);
    const started = await fetch(`${base}/api/start_monitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"course_name":"bench"}',
    });
    if (((await started.json()) as { status: string }).status !== 'started')
      throw new Error('the mock class did not start');

    const baseline = await load(`http://127.0.0.1:${helloPort}/`);
    const health = await load(`${base}/api/health`);
    const status = await load(`${base}/api/monitor_status`);
    const lines = (
      (await (await fetch(`${base}/api/transcript?limit=1`)).json()) as { total: number }
    ).total;

    rows.push(['HTTP (10 connections, mock class running)', 'req/s', 'p99 ms', 'vs node:http']);
    rows.push(['node:http hello (baseline)', fixed(baseline.rps), latency(baseline.p99), '1.00x']);
    rows.push([
      'GET /api/health',
      fixed(health.rps),
      latency(health.p99),
      `${fixed(health.rps / baseline.rps, 2)}x`,
    ]);
    rows.push([
      'GET /api/monitor_status',
      fixed(status.rps),
      latency(status.p99),
      `${fixed(status.rps / baseline.rps, 2)}x`,
    ]);
    rows.push(['', '', '', '']);
    // 2: material parsing.
    const pptx = join(root, 'lecture-100-slides.pptx');
    const pdf = join(root, 'lecture-300-pages.pdf');
    await writeFile(pptx, await buildPptx(lectureSlides(100)));
    await writeFile(pdf, buildPdf(lecturePages(300)));
    const idle = await parse(pptx, 'read');
    rows.push(['Material parsing (fresh process each)', 'ms', 'peak RSS MB', 'vs baseline']);
    for (const [label, file, baselineMode, baselineLabel] of [
      ['100-slide .pptx', pptx, 'unzip', 'jszip inflates every entry'],
      ['300-page .pdf', pdf, 'pdf-open', 'PDF.js opens every page'],
    ] as const) {
      const size = (await stat(file)).size;
      const reference = await parse(file, baselineMode);
      const ours = await parse(file, 'extract');
      rows.push([
        `${label} (${fixed(size / 1024)} KiB): ${baselineLabel}`,
        fixed(reference.ms),
        fixed(reference.maxRssMb),
        '1.00x',
      ]);
      rows.push([
        `${label}: extract text (${ours.characters} chars)`,
        fixed(ours.ms),
        fixed(ours.maxRssMb),
        `${fixed(ours.ms / reference.ms, 2)}x`,
      ]);
      const form = new FormData();
      form.append(
        'file',
        new Blob([new Uint8Array(await readFile(file))]),
        file.split('/').at(-1)!,
      );
      const uploadStart = performance.now();
      const uploaded = await fetch(`${base}/api/upload_ppt`, { method: 'POST', body: form });
      if (uploaded.status !== 200)
        throw new Error(`upload of ${label} failed: ${await uploaded.text()}`);
      rows.push([
        `${label}: POST /api/upload_ppt (worker)`,
        fixed(performance.now() - uploadStart),
        '',
        '',
      ]);
    }
    rows.push([`node process reading the file (idle baseline)`, '', fixed(idle.maxRssMb), '']);
    rows.push(['', '', '', '']);
    rows.push([`mock class: ${lines} transcript lines written during the run`, '', '', '']);
    await stop(server);
    server = undefined;
    await stop(hello);
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await rm(root, { recursive: true, force: true });
  }
  printTable(
    `@class-assistant/server benchmark (node ${process.version}, ${DURATION_S} s per HTTP run)`,
    rows,
  );
}

await main();
