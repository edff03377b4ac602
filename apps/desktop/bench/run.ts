// pnpm bench (apps/desktop): cold start of the packaged backend to healthy, the UI's first paint
// in Chromium, and the size of what ships — each against a baseline measured in the same run.
//   BENCH_RUNS=9 pnpm --filter @class-assistant/desktop bench
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { serverPackage } from '../src/launcher/development.ts';
import { buildRelease } from '../src/release/build-release.ts';
import { hostTarget } from '../src/release/targets.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../test/support/chromium.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const REPO = join(import.meta.dirname, '..', '..', '..');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const ms = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} ms`.padStart(9);
const ratio = (value: number, baseline: number) => `${(value / baseline).toFixed(1)}x`.padStart(7);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`.padStart(11);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`.padStart(11);

/** Spawns a program and measures until `url` answers 200. */
async function coldStart(
  file: string,
  args: string[],
  url: string,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const started = performance.now();
  const child: ChildProcess = spawn(file, args, { stdio: 'ignore', env });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${file} exited with ${child.exitCode}`);
      try {
        const response = await fetch(url);
        if (response.ok) {
          await response.arrayBuffer();
          return performance.now() - started;
        }
      } catch {
        // Not listening yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
      if (performance.now() - started > 60_000)
        throw new Error(`${file} did not answer within 60 s`);
    }
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'desktop-bench-'));
  try {
    const target = hostTarget();
    if (!target) throw new Error('no release target for this machine');
    console.log(
      `desktop bench: ${RUNS} runs each, median; Node ${process.version}, ${process.platform}-${process.arch}\n`,
    );
    const version = (
      JSON.parse(await readFile(join(REPO, 'apps', 'desktop', 'app.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    const release = await buildRelease({
      version,
      target,
      repoRoot: REPO,
      outDir: join(work, 'release'),
      zip: false,
      check: false,
      log: () => {},
    });

    // ---- cold start to healthy
    const plain = `require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.argv[1]), '127.0.0.1')`;
    const server = await serverPackage();
    const rows: Array<[string, number[]]> = [
      ['plain node http server (baseline)', []],
      ['packaged backend (single executable)', []],
      ['backend from source (node + type stripping)', []],
    ];
    for (let run = 0; run < RUNS; run++) {
      const data = join(work, `data-${run}`);
      await mkdir(data, { recursive: true });
      await writeFile(join(data, '.env'), 'ASR_MODE=mock\nLOG_LEVEL=warn\n');
      const env = { ...process.env };
      let port = await freePort();
      rows[0]![1].push(
        await coldStart(
          process.execPath,
          ['-e', plain, String(port)],
          `http://127.0.0.1:${port}/`,
          env,
        ),
      );
      port = await freePort();
      rows[1]![1].push(
        await coldStart(
          release.backend,
          [
            '--port',
            String(port),
            '--settings-file',
            join(data, '.env'),
            '--data-dir',
            join(data, 'packaged'),
          ],
          `http://127.0.0.1:${port}/api/health`,
          env,
        ),
      );
      port = await freePort();
      rows[2]![1].push(
        await coldStart(
          process.execPath,
          [
            server.bin,
            '--port',
            String(port),
            '--settings-file',
            join(data, '.env'),
            '--data-dir',
            join(data, 'source'),
          ],
          `http://127.0.0.1:${port}/api/health`,
          env,
        ),
      );
    }
    const baseline = median(rows[0]![1]);
    console.log('cold start to a healthy answer');
    for (const [name, values] of rows) {
      console.log(`  ${name.padEnd(46)}${ms(median(values))}${ratio(median(values), baseline)}`);
    }

    // ---- UI first paint
    const port = await freePort();
    const data = join(work, 'ui-data');
    await mkdir(data, { recursive: true });
    await writeFile(join(data, '.env'), 'ASR_MODE=mock\nLOG_LEVEL=warn\n');
    const backend = spawn(
      release.backend,
      ['--port', String(port), '--settings-file', join(data, '.env'), '--data-dir', data],
      {
        stdio: 'ignore',
      },
    );
    const blankPort = await freePort();
    const blank = spawn(
      process.execPath,
      [
        '-e',
        `require('node:http').createServer((q, s) => { s.setHeader('content-type', 'text/html'); s.end('<!doctype html><meta charset=utf-8><title>blank</title><p>课堂助手 正在连接后端…</p>'); }).listen(${blankPort}, '127.0.0.1')`,
      ],
      { stdio: 'ignore' },
    );
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      for (const url of [`http://127.0.0.1:${port}/api/health`, `http://127.0.0.1:${blankPort}/`]) {
        for (let attempt = 0; ; attempt++) {
          try {
            await fetch(url);
            break;
          } catch {
            if (attempt > 500) throw new Error(`${url} did not start`);
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
      }
      const paints: Record<'blank' | 'app', { fcp: number[]; ready: number[] }> = {
        blank: { fcp: [], ready: [] },
        app: { fcp: [], ready: [] },
      };
      for (let run = 0; run < RUNS; run++) {
        for (const kind of ['blank', 'app'] as const) {
          const context = await browser.newContext({ viewport: { width: 320, height: 80 } });
          const page = await context.newPage();
          await page.goto(
            kind === 'app' ? `http://127.0.0.1:${port}/` : `http://127.0.0.1:${blankPort}/`,
          );
          if (kind === 'app') await page.locator('.bar[data-connection="online"]').waitFor();
          const timing = await page.evaluate(
            () =>
              new Promise<{ fcp: number; now: number }>((resolve) => {
                const now = performance.now();
                new PerformanceObserver((list) => {
                  const paint = list.getEntriesByName('first-contentful-paint')[0];
                  if (paint) resolve({ fcp: paint.startTime, now });
                }).observe({ type: 'paint', buffered: true });
              }),
          );
          paints[kind].fcp.push(timing.fcp);
          paints[kind].ready.push(timing.now);
          await context.close();
        }
      }
      const base = median(paints.blank.fcp);
      console.log('\nUI in Chromium (320x80, fresh context each run)');
      console.log(`  ${'first contentful paint, a page of the same text'.padEnd(46)}${ms(base)}`);
      console.log(
        `  ${'first contentful paint, the bar'.padEnd(46)}${ms(median(paints.app.fcp))}${ratio(median(paints.app.fcp), base)}`,
      );
      console.log(
        `  ${'the bar connected to the live stream'.padEnd(46)}${ms(median(paints.app.ready))}${ratio(median(paints.app.ready), base)}`,
      );
    } finally {
      await browser.close();
      backend.kill('SIGKILL');
      blank.kill('SIGKILL');
    }

    // ---- what ships
    const uiDir = join(release.outDir, 'backend', 'ui');
    console.log('\nshipped UI assets                                   raw       gzip -9');
    let raw = 0;
    let zipped = 0;
    const walk = async (folder: string, prefix: string): Promise<void> => {
      for (const entry of (await readdir(folder, { withFileTypes: true })).sort((a, b) =>
        a.name.localeCompare(b.name),
      )) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) {
          await walk(path, `${prefix}${entry.name}/`);
          continue;
        }
        const bytes = await readFile(path);
        const gz = gzipSync(bytes, { level: 9 }).byteLength;
        raw += bytes.byteLength;
        zipped += gz;
        console.log(`  ${(prefix + entry.name).padEnd(42)}${kib(bytes.byteLength)}${kib(gz)}`);
      }
    };
    await walk(uiDir, '');
    console.log(
      `  ${'total'.padEnd(42)}${kib(raw)}${kib(zipped)}   (${(zipped / raw).toFixed(2)} of raw)`,
    );
    const nodeBinary = (await stat(process.execPath)).size;
    console.log('\nthe release');
    console.log(`  ${'node binary of the same version (baseline)'.padEnd(42)}${mib(nodeBinary)}`);
    for (const [name, path] of [
      ['launcher (single executable)', release.launcher],
      ['backend (single executable)', release.backend],
      [
        'backend/lib/material-worker.js',
        join(release.outDir, 'backend', 'lib', 'material-worker.js'),
      ],
    ] as const) {
      const size = (await stat(path)).size;
      console.log(`  ${name.padEnd(42)}${mib(size)}${ratio(size, nodeBinary)}`);
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
