// The `class-assistant-backend` bin as a child process with its output collected, for tests of
// what a user sees on the command line.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The bin's path. */
export const BIN = fileURLToPath(new URL('../../bin/class-assistant-backend.js', import.meta.url));

/** A started bin: the process, its exit code to come, and what it printed so far. */
export interface BinProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
}

/** Starts the bin with `args`, the test's environment plus `env`. */
export function spawnBin(args: readonly string[], env: Record<string, string> = {}): BinProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}
