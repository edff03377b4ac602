// The launcher (backend.md 1.7–1.9, design.md 7): clean up stale backends, start the backend
// silently, wait until it is healthy, open the app window (or print the address), and when the
// window closes or the launcher is stopped, stop the backend gracefully and clean up again.
import { type ChildProcess, spawn } from 'node:child_process';
import { access, appendFile, constants, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  appWindowArguments,
  type Environment,
  findBrowser,
  hasDisplay,
  profileInUse,
} from './browser.ts';
import { cleanupStaleBackends } from './cleanup.ts';
import type { LauncherLayout } from './layout.ts';
import type { LauncherSystem } from './system.ts';

/** Options of {@link runLauncher}. */
export interface LauncherOptions {
  layout: LauncherLayout;
  system: LauncherSystem;
  environment: Environment;
  port: number;
  /** `never`: only print the address (also when there is no display or no browser). */
  window: 'auto' | 'never';
  /** A browser to use instead of searching. */
  browser?: string;
  /** Show the backend's own console output. */
  verbose?: boolean;
  /** One line for the student (console and the launcher log). */
  print(line: string): void;
  /** Resolves the wait for the window; the launcher then stops everything (Ctrl-C, tests). */
  stopSignal: Promise<string>;
  /** Runs once the backend is healthy, with its address. */
  onReady?(url: string): void;
  /** Before the first start: prepare the UI (development builds it when stale). */
  prepare?(): Promise<void>;
}

/** Waits until GET /api/health answers healthy, the process exits, or `timeoutMs` passes. */
export async function waitForHealth(
  system: LauncherSystem,
  url: string,
  child: ChildProcess,
  timeoutMs: number,
): Promise<'healthy' | 'exited' | 'timeout'> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return 'exited';
    try {
      const response = await system.fetch(`${url}/api/health`, {
        signal: AbortSignal.timeout(1000),
      });
      if (response.ok && ((await response.json()) as { status?: string }).status === 'healthy') {
        return 'healthy';
      }
    } catch {
      // Not listening yet.
    }
    await system.sleep(50);
  }
  return 'timeout';
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Stops the backend we started: POST /api/shutdown (graceful everywhere), then a signal. */
export async function stopBackend(
  system: LauncherSystem,
  child: ChildProcess,
  url: string,
  timeoutMs = 15_000,
): Promise<'graceful' | 'killed'> {
  if (child.exitCode !== null || child.signalCode !== null) return 'graceful';
  let asked = false;
  try {
    const answer = await system.fetch(`${url}/api/shutdown`, {
      method: 'POST',
      signal: AbortSignal.timeout(2000),
    });
    asked = answer.status === 202;
  } catch {
    asked = false;
  }
  if (!asked && system.platform !== 'win32') child.kill('SIGTERM');
  let timer: ReturnType<typeof setTimeout> | undefined;
  const done = await Promise.race([
    exited(child).then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (done) return 'graceful';
  child.kill('SIGKILL');
  await exited(child);
  return 'killed';
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function lockHeld(path: string): Promise<boolean> {
  try {
    await rm(path);
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'EBUSY' || code === 'EPERM';
  }
}

/** Runs the app until its window closes or `stopSignal` resolves; returns the exit code. */
export async function runLauncher(options: LauncherOptions): Promise<number> {
  const { layout, system, port, print } = options;
  const url = `http://127.0.0.1:${port}`;
  await mkdir(layout.dataDir, { recursive: true });
  await mkdir(dirname(layout.logFile), { recursive: true });
  await writeFile(layout.logFile, '');
  const log = (line: string) => {
    print(line);
    void appendFile(layout.logFile, `${new Date().toISOString()} ${line}\n`).catch(() => {});
  };

  await options.prepare?.();

  const before = await cleanupStaleBackends({ system, port });
  for (const message of before.messages) log(`cleanup: ${message}`);
  if (!before.portFree) {
    log(
      `Port ${port} is in use by a program that could not be stopped${before.failed.length > 0 ? ` (process ${before.failed.join(', ')})` : ''}. Close it, or start with --port <another port>.`,
    );
    return 1;
  }

  let freshSettings = true;
  try {
    await stat(layout.envFile);
    freshSettings = false;
  } catch {
    freshSettings = true;
  }

  const startBackend = () => {
    const child = spawn(
      layout.backend.file,
      [
        ...layout.backend.args,
        '--port',
        String(port),
        '--settings-file',
        layout.envFile,
        '--data-dir',
        layout.dataDir,
        '--ui-dir',
        layout.uiDir,
      ],
      {
        stdio: options.verbose ? 'inherit' : ['ignore', 'ignore', 'pipe'],
        windowsHide: true,
        // Its own process group: a Ctrl-C in the terminal reaches the launcher, which stops the
        // backend in order (on Windows a detached console program would get a window).
        detached: system.platform !== 'win32',
        env: { ...process.env },
      },
    );
    let errors = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      errors = `${errors}${chunk.toString('utf8')}`.slice(-4000);
    });
    child.on('error', (error) => {
      errors += `\n${error.message}`;
    });
    return { child, errors: () => errors.trim() };
  };

  let backend = startBackend();
  const health = await waitForHealth(system, url, backend.child, 60_000);
  if (health !== 'healthy') {
    log(
      health === 'exited'
        ? `The backend stopped while starting: ${backend.errors() || `exit code ${backend.child.exitCode}`}`
        : 'The backend did not become healthy within 60 s.',
    );
    log(`Details: ${layout.dataDir}/_startup.log`);
    if (backend.child.exitCode === null) await stopBackend(system, backend.child, url);
    return 1;
  }
  log(`backend ready at ${url} (log: ${layout.dataDir}/_startup.log)`);

  if (freshSettings && layout.kind === 'development') {
    // `pnpm start` in a fresh clone runs the scripted demo class: no microphone, model or key.
    try {
      await system.fetch(`${url}/api/settings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fields: { ASR_MODE: 'mock' } }),
      });
      log(
        `settings: created ${layout.envFile} with ASR_MODE=mock (the demo class); change it in the settings panel`,
      );
    } catch {
      // The settings panel still offers the demo mode.
    }
  }
  options.onReady?.(url);

  // Restart a backend that dies while the window is open (the page reconnects by itself).
  let restarts = 0;
  let stopping = false;
  const watchBackend = () => {
    backend.child.once('exit', async (code, signal) => {
      if (stopping) return;
      if (restarts >= 3) {
        log(`The backend stopped again (${code ?? signal}); not restarting it any more.`);
        return;
      }
      restarts++;
      log(`The backend stopped unexpectedly (${code ?? signal}): starting it again.`);
      backend = startBackend();
      if ((await waitForHealth(system, url, backend.child, 60_000)) === 'healthy') {
        log('backend ready again');
        watchBackend();
      } else {
        log(`The backend could not start again: ${backend.errors()}`);
      }
    });
  };
  watchBackend();

  let windowClosed: Promise<string> = new Promise(() => {});
  const browser =
    options.window === 'never' || !hasDisplay(system.platform, options.environment)
      ? undefined
      : (options.browser ??
        (await findBrowser(system.platform, options.environment, isExecutable)));
  if (browser) {
    await mkdir(layout.profileDir, { recursive: true });
    const window = spawn(
      browser,
      appWindowArguments({ url: `${url}/`, profileDir: layout.profileDir, width: 320, height: 80 }),
      { stdio: 'ignore', windowsHide: false },
    );
    const openedAt = Date.now();
    log(`opened the app window (${browser})`);
    windowClosed = new Promise((resolve) => {
      window.once('error', (error) => {
        log(`The browser could not start (${error.message}). Open ${url}/ yourself.`);
      });
      window.once('exit', async () => {
        // A browser already running with this profile takes the window over and exits at once:
        // wait for that browser instead.
        const io = {
          readLink: system.readLink,
          isAlive: system.isAlive,
          lockHeld,
        };
        if (Date.now() - openedAt < 10_000) {
          while (await profileInUse(system.platform, layout.profileDir, io))
            await system.sleep(1000);
        }
        resolve('the window was closed');
      });
    });
  } else {
    const why =
      options.window === 'never'
        ? ''
        : !hasDisplay(system.platform, options.environment)
          ? ' (no display to open a window on)'
          : ' (no Chromium, Chrome, Edge or Brave found; set CLASS_ASSISTANT_BROWSER to use another)';
    log(`Class Assistant is running: open ${url}/ in Chromium, Chrome or Edge${why}.`);
    log('Press Ctrl-C to stop.');
  }

  const reason = await Promise.race([windowClosed, options.stopSignal]);
  stopping = true;
  log(`${reason}: stopping the backend`);
  const how = await stopBackend(system, backend.child, url);
  if (how === 'killed') log('the backend did not stop in time and was killed');
  const after = await cleanupStaleBackends({ system, port, graceMs: 5000 });
  for (const message of after.messages) log(`cleanup: ${message}`);
  log('stopped');
  return 0;
}
