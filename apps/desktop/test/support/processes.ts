// Real child processes and ports for the launcher, cleanup and release tests.
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';

export { freePort } from '../../src/release/free-port.ts';

/** Polls until `check` returns something other than undefined/false. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  what: string,
  timeoutMs = 20_000,
): Promise<Exclude<T, false | undefined>> {
  const start = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as Exclude<T, false | undefined>;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A running child with its output collected. */
export interface Running {
  child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();

/** Spawns a process that is killed after the test if still running. */
export function start(file: string, args: string[], options: SpawnOptions = {}): Running {
  const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  running.add(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, output: () => output, exited };
}

/** Kills what the test left running. */
export function killAll(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/** A plain Node process listening on `port` (not a Class Assistant backend). */
export function stranger(port: number, options: { ignoreSigterm?: boolean } = {}): Running {
  const code = `
    ${options.ignoreSigterm ? "process.on('SIGTERM', () => {});" : ''}
    require('node:http').createServer((q, s) => s.end('not the backend')).listen(${port}, '127.0.0.1', () => console.log('listening'));
  `;
  return start(process.execPath, ['-e', code]);
}

/** True while something accepts connections on 127.0.0.1:`port`. */
export async function listening(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

/**
 * The environment a launcher under test runs in: this machine's without a display, a chosen
 * browser or an API_TOKEN (the launcher reads each), plus `extra`.
 */
export function launcherEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const {
    DISPLAY: _display,
    WAYLAND_DISPLAY: _wayland,
    CLASS_ASSISTANT_BROWSER: _browser,
    API_TOKEN: _token,
    ...rest
  } = process.env;
  return { ...rest, ...extra };
}
