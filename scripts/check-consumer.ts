// What a user of the published packages gets, checked end to end before a release:
// packs the server, its three libraries and this machine's libvosk package with pnpm (as
// `pnpm publish` would: prepack builds dist/, workspace versions are written out), installs the
// tarballs with plain npm into an empty folder outside the workspace, starts the installed
// `class-assistant-backend` on a free port and checks what /api/health reports.
//
//   pnpm check:consumer [--keep]     (--keep leaves the temporary folder for a look)
//
// Each check is one named step in STEPS; add a step to check more of the installed packages.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');

/** The libvosk package npm should install on this machine (see packages/libvosk-*). */
function hostLibvosk(): string {
  if (process.platform === 'darwin') return 'libvosk-darwin-universal';
  return `libvosk-${process.platform}-${process.arch}`;
}

/** What the steps share. */
interface Consumer {
  /** The temporary folder: tarballs/, app/ (the npm project), data/ and .env of the backend. */
  root: string;
  tarballs: string[];
  app: string;
  /** The running backend, once started. */
  backend?: { child: ChildProcess; base: string; output: () => string };
}

interface Step {
  name: string;
  run(consumer: Consumer): Promise<string | undefined>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

async function health(base: string): Promise<Record<string, unknown> | undefined> {
  try {
    const response = await fetch(`${base}/api/health`);
    return response.ok ? ((await response.json()) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const STEPS: Step[] = [
  {
    name: 'pack the server, its libraries and the libvosk package of this machine (pnpm pack)',
    async run(consumer) {
      const folder = join(consumer.root, 'tarballs');
      const packages = ['transcript-core', 'asr-protocol', 'agent-std', 'server', hostLibvosk()];
      for (const name of packages) {
        await run('pnpm', ['pack', '--pack-destination', folder], {
          cwd: join(ROOT, 'packages', name),
          maxBuffer: 64 * 1024 * 1024,
        });
      }
      consumer.tarballs = (await readdir(folder))
        .filter((file) => file.endsWith('.tgz'))
        .map((file) => join(folder, file));
      if (consumer.tarballs.length !== packages.length) {
        throw new Error(
          `expected ${packages.length} tarballs, got ${consumer.tarballs.join(', ')}`,
        );
      }
      return consumer.tarballs.map((file) => file.slice(folder.length + 1)).join(', ');
    },
  },
  {
    name: 'install the tarballs with plain npm into an empty folder',
    async run(consumer) {
      await writeFile(
        join(consumer.app, 'package.json'),
        `${JSON.stringify({ name: 'class-assistant-consumer-check', private: true, type: 'module' }, null, 2)}\n`,
      );
      const { stderr } = await run(
        'npm',
        ['install', '--no-audit', '--no-fund', '--loglevel=error', ...consumer.tarballs],
        { cwd: consumer.app, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, CI: 'true' } },
      );
      const installed = await readdir(join(consumer.app, 'node_modules', '@class-assistant'));
      if (!installed.includes(hostLibvosk())) {
        throw new Error(
          `npm did not install @class-assistant/${hostLibvosk()} (got ${installed.join(', ')}). ${stderr}`,
        );
      }
      return `node_modules/@class-assistant: ${installed.join(', ')}`;
    },
  },
  {
    name: 'start the installed class-assistant-backend on a free port',
    async run(consumer) {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      await writeFile(join(consumer.root, '.env'), 'ASR_MODE=mock\n');
      const bin = join(consumer.app, 'node_modules', '.bin', 'class-assistant-backend');
      let output = '';
      const {
        CLASS_ASSISTANT_NATIVE_MODULES: _ignored,
        NODE_PATH: _path,
        ...environment
      } = process.env;
      const child = spawn(
        bin,
        [
          '--port',
          String(port),
          '--settings-file',
          join(consumer.root, '.env'),
          '--data-dir',
          join(consumer.root, 'data'),
        ],
        { cwd: consumer.app, env: environment, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      consumer.backend = { child, base, output: () => output };
      const started = Date.now();
      while (!(await health(base))) {
        if (child.exitCode !== null)
          throw new Error(`the backend exited (${child.exitCode}):\n${output}`);
        if (Date.now() - started > 30_000)
          throw new Error(`no answer from ${base} in 30 s:\n${output}`);
        await new Promise((done) => setTimeout(done, 200));
      }
      return base;
    },
  },
  {
    name: '/api/health reports libvosk (vosk) available from the npm install',
    async run(consumer) {
      const body = (await health(consumer.backend!.base)) as {
        audio: { native_modules: Array<{ name: string; available: boolean; detail: string }> };
      };
      const modules = body.audio.native_modules;
      const vosk = modules.find((module) => module.name === 'vosk');
      const koffi = modules.find((module) => module.name === 'koffi');
      if (!vosk?.available) throw new Error(`vosk is not available: ${vosk?.detail}`);
      if (!koffi?.available) throw new Error(`koffi is not available: ${koffi?.detail}`);
      if (
        !vosk.detail.startsWith(
          join(consumer.app, 'node_modules', '@class-assistant', hostLibvosk()),
        )
      ) {
        throw new Error(`libvosk was found outside the installed ${hostLibvosk()}: ${vosk.detail}`);
      }
      return vosk.detail;
    },
  },
];

async function main(): Promise<number> {
  const keep = process.argv.includes('--keep');
  const root = await mkdtemp(join(tmpdir(), 'class-assistant-consumer-'));
  const consumer: Consumer = { root, tarballs: [], app: join(root, 'app') };
  await mkdir(consumer.app, { recursive: true });
  let failed = false;
  try {
    for (const step of STEPS) {
      const started = Date.now();
      try {
        const detail = await step.run(consumer);
        process.stdout.write(
          `✓ ${step.name} (${((Date.now() - started) / 1000).toFixed(1)} s)${detail ? `\n    ${detail}` : ''}\n`,
        );
      } catch (error) {
        failed = true;
        const reason = error as Error & { stderr?: string };
        process.stdout.write(
          `✗ ${step.name}\n    ${reason.message}${reason.stderr ? `\n${reason.stderr}` : ''}\n`,
        );
        break;
      }
    }
  } finally {
    const backend = consumer.backend;
    if (backend && backend.child.exitCode === null) {
      const exited = new Promise((done) => backend.child.once('exit', done));
      backend.child.kill('SIGTERM');
      await exited;
    }
    if (keep) process.stdout.write(`kept ${root}\n`);
    else await rm(root, { recursive: true, force: true });
  }
  process.stdout.write(failed ? 'check:consumer failed\n' : 'check:consumer passed\n');
  return failed ? 1 : 0;
}

process.exitCode = await main();
