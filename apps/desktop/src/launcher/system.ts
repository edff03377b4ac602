// The operating-system calls the launcher makes, behind one interface so the cleanup logic can be
// exercised with the Windows and macOS command outputs on any machine.
import { execFile } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { connect } from 'node:net';

/** The result of running a command. */
export interface RunResult {
  /** Exit code; null when the program could not be started or was killed. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the program could not be started (ENOENT: not installed). */
  error?: string;
}

/** The OS calls of the launcher. */
export interface LauncherSystem {
  platform: NodeJS.Platform;
  /** This process (never stopped by a cleanup). */
  selfPid: number;
  /** This user's id (POSIX), to tell our processes from another user's. */
  uid: number | undefined;
  /** This user as Windows' tasklist names it (`DOMAIN\user`). */
  userName: string | undefined;
  run(file: string, args: readonly string[], timeoutMs?: number): Promise<RunResult>;
  readText(path: string): Promise<string | undefined>;
  listDir(path: string): Promise<string[]>;
  readLink(path: string): Promise<string | undefined>;
  /** Sends a signal; false when the process does not exist or may not be signalled. */
  signal(pid: number, signal: NodeJS.Signals): boolean;
  /** True while the process exists (also another user's, which cannot be signalled). */
  isAlive(pid: number): boolean;
  /** True when a TCP connection to 127.0.0.1:`port` is accepted. */
  isListening(port: number): Promise<boolean>;
  fetch: typeof fetch;
  sleep(ms: number): Promise<void>;
}

/** The real system. */
export function nodeSystem(): LauncherSystem {
  return {
    platform: process.platform,
    selfPid: process.pid,
    uid: process.getuid?.(),
    userName:
      process.platform === 'win32' && process.env.USERNAME
        ? `${process.env.USERDOMAIN ?? ''}\\${process.env.USERNAME}`
        : undefined,
    run(file, args, timeoutMs = 15_000) {
      return new Promise((resolve) => {
        execFile(
          file,
          [...args],
          { timeout: timeoutMs, windowsHide: true, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' },
          (error, stdout, stderr) => {
            const failure = error as (NodeJS.ErrnoException & { code?: string | number }) | null;
            if (failure && typeof failure.code === 'string') {
              resolve({
                code: null,
                stdout: stdout ?? '',
                stderr: stderr ?? '',
                error: failure.code,
              });
              return;
            }
            resolve({
              code: failure ? (typeof failure.code === 'number' ? failure.code : 1) : 0,
              stdout: stdout ?? '',
              stderr: stderr ?? '',
            });
          },
        );
      });
    },
    async readText(path) {
      try {
        return await readFile(path, 'utf8');
      } catch {
        return undefined;
      }
    },
    async listDir(path) {
      try {
        return await readdir(path);
      } catch {
        return [];
      }
    },
    async readLink(path) {
      try {
        return await readlink(path);
      } catch {
        return undefined;
      }
    },
    signal(pid, signal) {
      try {
        process.kill(pid, signal);
        return true;
      } catch {
        return false;
      }
    },
    isAlive(pid) {
      try {
        process.kill(pid, 0);
        return true;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === 'EPERM';
      }
    },
    isListening(port) {
      return new Promise((resolve) => {
        const socket = connect({ host: '127.0.0.1', port });
        const done = (listening: boolean) => {
          socket.destroy();
          resolve(listening);
        };
        socket.setTimeout(1000, () => done(false));
        socket.once('connect', () => done(true));
        socket.once('error', () => done(false));
      });
    },
    fetch: (input, init) => fetch(input, init),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
}
