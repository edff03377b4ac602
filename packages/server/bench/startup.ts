// `pnpm bench` (bench/startup.ts): time from spawning to a healthy /api/health and the idle
// memory of the backend, against a bare node:http server started the same way (`node <file>`)
// and measured in the same rounds, taken in turn. Idle memory is read 20 s after the healthy
// answer (V8 gives back what start-up used once the process idles), the programs side by side.
//   - the built bin as npm users get it: package.json, bin/ and dist/ (built here with tsup)
//     copied to a folder without src/, so the bin runs dist/main.js, and beside it the
//     workspace's packages as npm installs them (their dist/, their package.json with the
//     publishConfig exports pnpm publishes); the other dependencies are the workspace's own;
//   - the bin from source (type stripping), as `pnpm start` runs it.
// Each program's first start fills Node's compile cache (a fresh NODE_COMPILE_CACHE folder for
// the run) and is reported on its own; the medians are of the later starts.
//   BENCH_RUNS=11 pnpm --filter @class-assistant/server exec node bench/startup.ts
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../test/support/ports.ts';
import { printTable } from './table.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

interface Program {
  name: string;
  /** Arguments of `node` for a port; the URL path that answers when it is ready. */
  args: (port: number) => string[];
  path: string;
}

interface Start {
  ms: number;
  rssMiB: number;
}

/** Spawns `node args`, waits for 200 at `path`, then `idleMs` more, reads its resident memory. */
async function startOnce(program: Program, env: NodeJS.ProcessEnv, idleMs = 0): Promise<Start> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}${program.path}`;
  const begin = performance.now();
  const child: ChildProcess = spawn(process.execPath, program.args(port), {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${program.name} exited:\n${stderr}`);
      const ok = await fetch(url).then(
        (response) => response.arrayBuffer().then(() => response.ok),
        () => false,
      );
      if (ok) break;
      if (performance.now() - begin > 30_000) throw new Error(`${program.name}: never healthy`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const ms = performance.now() - begin;
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    return { ms, rssMiB: await residentMiB(child.pid!) };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/** VmRSS of a Linux process, NaN elsewhere. */
async function residentMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
  return kib === undefined ? Number.NaN : Number(kib) / 1024;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const root = await mkdtemp(join(tmpdir(), 'class-assistant-startup-'));
  try {
    // The root's tsup, as `pnpm build` runs it.
    const tsup = createRequire(join(PACKAGE, '..', '..', 'package.json')).resolve(
      'tsup/dist/cli-default.js',
    );
    const modules = join(PACKAGE, 'node_modules');
    const workspace = (await readdir(join(modules, '@class-assistant'))).map((name) =>
      join(modules, '@class-assistant', name),
    );
    for (const folder of [PACKAGE, ...workspace]) {
      const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8'));
      if (manifest.scripts?.build !== 'tsup') continue;
      await promisify(execFile)(process.execPath, [tsup], { cwd: folder, maxBuffer: 1 << 22 });
    }
    // The package as published: no src/, so bin/ runs dist/.
    const published = join(root, 'package');
    await mkdir(published);
    for (const entry of ['package.json', 'bin', 'dist', 'assets', '.env.example']) {
      await cp(join(PACKAGE, entry), join(published, entry), { recursive: true });
    }
    await mkdir(join(published, 'node_modules', '@class-assistant'), { recursive: true });
    for (const name of await readdir(modules)) {
      if (name === '@class-assistant') continue;
      await symlink(join(modules, name), join(published, 'node_modules', name), 'dir');
    }
    for (const folder of workspace) {
      const copy = join(published, 'node_modules', '@class-assistant', basename(folder));
      const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8'));
      await mkdir(copy);
      for (const entry of new Set(['node_modules', ...(manifest.files ?? [])])) {
        if (existsSync(join(folder, entry))) await symlink(join(folder, entry), join(copy, entry));
      }
      if (manifest.publishConfig?.exports) manifest.exports = manifest.publishConfig.exports;
      await writeFile(join(copy, 'package.json'), JSON.stringify(manifest, null, 2));
    }
    const hello = join(root, 'hello.mjs');
    await writeFile(
      hello,
      `import { createServer } from 'node:http';
createServer((request, response) => response.end('{"status":"healthy"}')).listen(Number(process.argv[2]), '127.0.0.1');
`,
    );
    const settings = join(root, '.env');
    await writeFile(settings, 'ASR_MODE=mock\nLOG_LEVEL=warn\n');
    const backend = (bin: string) => (port: number) => [
      bin,
      '--port',
      String(port),
      '--env-file',
      settings,
      '--data-dir',
      join(root, `data-${port}`),
    ];
    const programs: Program[] = [
      {
        name: 'node:http server, node hello.mjs (baseline)',
        args: (port) => [hello, String(port)],
        path: '/',
      },
      {
        name: 'built bin (dist), npm layout',
        args: backend(join(published, 'bin', 'class-assistant-backend.js')),
        path: '/api/health',
      },
      {
        name: 'bin from source (type stripping)',
        args: backend(join(PACKAGE, 'bin', 'class-assistant-backend.js')),
        path: '/api/health',
      },
    ];
    const env = { ...process.env, NODE_COMPILE_CACHE: join(root, 'compile-cache') };
    const first = new Map<Program, Start>();
    const later = new Map<Program, Start[]>(programs.map((program) => [program, []]));
    // The bin writes its compile cache once it has started, after answering the first request:
    // the first start runs on for a while so that the cache is written before it is stopped.
    for (const program of programs) first.set(program, await startOnce(program, env, 2_000));
    for (let round = 0; round < RUNS; round++) {
      for (const program of programs) later.get(program)!.push(await startOnce(program, env));
    }
    const IDLE_MS = 20_000;
    const idle = new Map<Program, number[]>(programs.map((program) => [program, []]));
    for (let round = 0; round < 3; round++) {
      const measured = await Promise.all(
        programs.map((program) => startOnce(program, env, IDLE_MS)),
      );
      for (const [index, program] of programs.entries())
        idle.get(program)!.push(measured[index]!.rssMiB);
    }
    const baseMs = median(later.get(programs[0]!)!.map((start) => start.ms));
    const baseMiB = median(idle.get(programs[0]!)!);
    const rows: string[][] = [
      ['', 'first start ms', 'ms', 'vs node:http', 'idle RSS MiB', 'vs node:http'],
    ];
    for (const program of programs) {
      const ms = median(later.get(program)!.map((start) => start.ms));
      const mib = median(idle.get(program)!);
      rows.push([
        program.name,
        first.get(program)!.ms.toFixed(0),
        ms.toFixed(0),
        `${(ms / baseMs).toFixed(2)}x`,
        mib.toFixed(1),
        `${(mib / baseMiB).toFixed(2)}x`,
      ]);
    }
    printTable(
      `@class-assistant/server start-up (node ${process.version}): spawn to a healthy answer, median of ${RUNS} rounds taken in turn; idle RSS 20 s later, median of 3`,
      rows,
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
