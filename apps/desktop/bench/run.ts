// pnpm bench (apps/desktop): cold start of the packaged backend to healthy and its idle memory
// (against a bare node:http server, with `node -e` and as a single executable of the same Node),
// the UI's first paint in Chromium, and the size of what ships — each against a baseline
// measured in the same run.
//   BENCH_RUNS=9 pnpm --filter @class-assistant/desktop bench
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { serverPackage } from '../src/launcher/development.ts';
import { buildRelease } from '../src/release/build-release.ts';
import { freePort } from '../src/release/free-port.ts';
import { makeSea } from '../src/release/sea.ts';
import { hostTarget } from '../src/release/targets.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../test/support/chromium.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const REPO = join(import.meta.dirname, '..', '..', '..');

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const ms = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} ms`.padStart(9);
const ratio = (value: number, baseline: number) => `${(value / baseline).toFixed(2)}x`.padStart(9);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`.padStart(11);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`.padStart(11);

/** VmRSS of a Linux process in bytes, NaN elsewhere. */
async function resident(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
  return kib === undefined ? Number.NaN : Number(kib) * 1024;
}

/**
 * Spawns a program and measures until `url` answers 200; then, after `idleMs` more, its resident
 * memory.
 */
async function coldStart(
  file: string,
  args: string[],
  url: string,
  env: NodeJS.ProcessEnv,
  idleMs = 0,
): Promise<{ ms: number; rss: number }> {
  const started = performance.now();
  const child: ChildProcess = spawn(file, args, { stdio: 'ignore', env });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${file} exited with ${child.exitCode}`);
      try {
        const response = await fetch(url);
        if (response.ok) {
          await response.arrayBuffer();
          break;
        }
      } catch {
        // Not listening yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
      if (performance.now() - started > 60_000)
        throw new Error(`${file} did not answer within 60 s`);
    }
    const ms = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    return { ms, rss: await resident(child.pid!) };
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

    // ---- cold start to healthy, idle memory
    const plain = `require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.argv.at(-1)), '127.0.0.1')`;
    // The same server as a single executable of the same Node: the packaged backend's baseline.
    const plainScript = join(work, 'plain-server.cjs');
    await writeFile(plainScript, `${plain};\n`);
    const plainSea = join(work, 'plain-server');
    await makeSea({
      nodeBinary: process.execPath,
      script: plainScript,
      output: plainSea,
      workDir: work,
      windows: false,
      useCodeCache: true,
    });
    const server = await serverPackage();
    const backendArgs = (port: number, data: string, name: string) => [
      '--port',
      String(port),
      '--settings-file',
      join(data, '.env'),
      '--data-dir',
      join(data, name),
    ];
    const programs: Array<{
      name: string;
      file: string;
      args: (port: number, data: string) => string[];
      path: string;
      /** Started in the folder of its earlier starts: every start but the very first. */
      existingData?: boolean;
    }> = [
      {
        name: 'node:http server, node -e (baseline)',
        file: process.execPath,
        args: (port) => ['-e', plain, String(port)],
        path: '/',
      },
      {
        name: 'node:http server as a single executable',
        file: plainSea,
        args: (port) => [String(port)],
        path: '/',
      },
      {
        name: 'packaged backend (single executable)',
        file: release.backend,
        args: (port, data) => backendArgs(port, data, 'packaged'),
        path: '/api/health',
      },
      {
        name: '  the same, data folder of an earlier start',
        file: release.backend,
        args: (port, data) => backendArgs(port, data, 'packaged'),
        path: '/api/health',
        existingData: true,
      },
      {
        name: 'backend from source (node + type stripping)',
        file: process.execPath,
        args: (port, data) => [server.bin, ...backendArgs(port, data, 'source')],
        path: '/api/health',
      },
    ];
    // Each start in a new data folder (the first start creates the class library's index and
    // the keyword file), except the program that starts where it started before.
    const run = async (index: number, round: string, idleMs = 0) => {
      const program = programs[index]!;
      const data = join(work, program.existingData ? `data-${index}` : `data-${round}-${index}`);
      await mkdir(data, { recursive: true });
      await writeFile(join(data, '.env'), 'ASR_MODE=mock\nLOG_LEVEL=warn\n');
      const port = await freePort();
      return coldStart(
        program.file,
        program.args(port, data),
        `http://127.0.0.1:${port}${program.path}`,
        { ...process.env },
        idleMs,
      );
    };
    for (const [index, program] of programs.entries()) {
      if (program.existingData) await run(index, 'first');
    }
    // Start times: the programs one after the other, RUNS rounds taken in turn.
    const starts = programs.map(() => [] as number[]);
    for (let round = 0; round < RUNS; round++) {
      for (const [index, times] of starts.entries()) times.push((await run(index, `${round}`)).ms);
    }
    // Idle memory: V8 gives back what start-up used once the process has been idle for a
    // while (its memory reducer); read 20 s after the healthy answer, the programs side by side.
    const IDLE_MS = 20_000;
    const idle = programs.map(() => [] as number[]);
    for (let round = 0; round < 3; round++) {
      const measured = await Promise.all(
        programs.map((_, index) => run(index, `idle-${round}`, IDLE_MS)),
      );
      for (const [index, result] of measured.entries()) idle[index]!.push(result.rss);
    }
    const startMs = (index: number) => median(starts[index]!);
    const rss = (index: number) => median(idle[index]!);
    console.log(
      `cold start to a healthy answer (median of ${RUNS}); idle memory 20 s later (median of 3)`,
    );
    console.log(
      `  ${''.padEnd(46)}${'ms'.padStart(9)}${'vs node -e'.padStart(11)}${'vs SEA'.padStart(9)}${'idle RSS'.padStart(11)}${'vs SEA'.padStart(9)}`,
    );
    programs.forEach(({ name }, index) => {
      console.log(
        `  ${name.padEnd(46)}${ms(startMs(index))}${ratio(startMs(index), startMs(0)).padStart(11)}${ratio(startMs(index), startMs(1))}${mib(rss(index))}${ratio(rss(index), rss(1))}`,
      );
    });

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
    let scriptZipped = 0;
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
        if (/^index-.*\.js$/.test(entry.name)) scriptZipped += gz;
        console.log(`  ${(prefix + entry.name).padEnd(42)}${kib(bytes.byteLength)}${kib(gz)}`);
      }
    };
    await walk(uiDir, '');
    console.log(
      `  ${'total'.padEnd(42)}${kib(raw)}${kib(zipped)}   (${(zipped / raw).toFixed(2)} of raw)`,
    );
    // The shipped UI before it moved to Preact components (hand-written DOM, commit 30abfd3),
    // each file gzip -9 as built then: all of it, and the app's script alone. The move was
    // allowed to add at most 15 %.
    const BEFORE_COMPONENTS = { all: 88_377, script: 81_215 };
    console.log(
      `  ${'all of it vs before components'.padEnd(42)}${kib(zipped)}${ratio(zipped, BEFORE_COMPONENTS.all)}`,
    );
    console.log(
      `  ${'app script vs before components'.padEnd(42)}${kib(scriptZipped)}${ratio(scriptZipped, BEFORE_COMPONENTS.script)}`,
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
