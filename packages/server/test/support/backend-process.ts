// The `class-assistant-backend` bin as its own process, on a free port, with its own settings
// file and data folder: for tests that need a process environment of their own.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './harness.ts';
import { freePort } from './ports.ts';

const BIN = fileURLToPath(new URL('../../bin/class-assistant-backend.js', import.meta.url));

/** A running backend process. */
export interface BackendProcess {
  base: string;
  root: string;
  dataDir: string;
  child: ChildProcess;
  /** Kills it and removes its folder. */
  stop(): Promise<void>;
}

/**
 * Starts the bin with `settings` lines in its .env and `environment`; resolves once healthy.
 * With `root`, runs on that folder (a backend started again on the data of a killed one) and
 * leaves it in place when stopped.
 */
export async function startBackendProcess(
  settings: string[],
  environment: NodeJS.ProcessEnv = process.env,
  options: { root?: string } = {},
): Promise<BackendProcess> {
  const root = options.root ?? (await mkdtemp(join(tmpdir(), 'class-assistant-process-')));
  await writeFile(join(root, '.env'), `${settings.join('\n')}\n`);
  const port = await freePort();
  const dataDir = join(root, 'data');
  const child = spawn(
    process.execPath,
    [BIN, '--port', String(port), '--settings-file', join(root, '.env'), '--data-dir', dataDir],
    { env: environment, stdio: 'ignore' },
  );
  const base = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    if (!options.root) await rm(root, { recursive: true, force: true });
  };
  try {
    await waitFor(
      async () => (await fetch(`${base}/api/health`).catch(() => undefined))?.ok,
      20_000,
      'the backend to answer',
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { base, root, dataDir, child, stop };
}
