// The launcher (its steps are in apps/desktop/README.md): take the data folder's instance lock
// (or open the Class Assistant that already runs with it), clean up stale backends, start the
// backend silently, wait until it is healthy, open the app window (or print the address), and
// when the window closes or the launcher is stopped, stop the backend gracefully and clean up
// again.
import { type ChildProcess, spawn } from 'node:child_process';
import { access, appendFile, constants, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { authorization, readApiToken } from './api-token.ts';
import { postShutdown, readHealth, readShutdownToken, requestLoginPath } from './backend-client.ts';
import {
  appWindowArguments,
  type Environment,
  findBrowser,
  hasDisplay,
  macDefaultBrowserCommand,
  profileInUse,
} from './browser.ts';
import { cleanupStaleBackends } from './cleanup.ts';
import {
  acquireInstanceLock,
  type InstanceLock,
  type InstanceRecord,
  LOCK_FILE,
} from './instance-lock.ts';
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
  /** The app's version, told to the backend (its /api/health and the UI show it). */
  appVersion?: string;
  /**
   * Also stop stale backends by name (default true). The release build's check turns it off:
   * it must never touch another installation's backend.
   */
  cleanupByName?: boolean;
}

/**
 * Waits until `child` itself answers GET /api/health healthy (the answer names its pid: another
 * backend on the port does not count), the process exits, or `timeoutMs` passes.
 */
async function waitForHealth(
  system: LauncherSystem,
  url: string,
  child: ChildProcess,
  timeoutMs: number,
  token: string,
): Promise<'healthy' | 'exited' | 'timeout'> {
  const deadline = Date.now() + timeoutMs;
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  while (Date.now() < deadline) {
    if (gone()) return 'exited';
    const health = await readHealth(system, url, 1000, token);
    if (health?.status === 'healthy' && health.pid === child.pid && !gone()) return 'healthy';
    await system.sleep(50);
  }
  return gone() ? 'exited' : 'timeout';
}

/** Resolves once `child` has exited (at once when it already has). */
function whenExited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Stops the backend we started: POST /api/shutdown with its run's token (from `dataDir`;
 * graceful everywhere), then a signal.
 */
async function stopBackend(
  system: LauncherSystem,
  child: ChildProcess,
  url: string,
  dataDir: string,
  timeoutMs = 15_000,
): Promise<'graceful' | 'killed'> {
  if (child.exitCode !== null || child.signalCode !== null) return 'graceful';
  // The backend writes its token just after it starts listening: a stop right after the
  // health check may have to wait a moment for it.
  let token: string | undefined;
  for (let attempt = 0; attempt < 20 && !token; attempt++) {
    if (attempt > 0) await system.sleep(100);
    if (child.exitCode !== null || child.signalCode !== null) return 'graceful';
    token = await readShutdownToken(system, dataDir);
  }
  const asked = token !== undefined && (await postShutdown(system, url, token));
  if (!asked && system.platform !== 'win32') child.kill('SIGTERM');
  let timer: ReturnType<typeof setTimeout> | undefined;
  const done = await Promise.race([
    whenExited(child).then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (done) return 'graceful';
  child.kill('SIGKILL');
  await whenExited(child);
  return 'killed';
}

/** True for a file this user may run (on Windows: any file). */
async function isExecutable(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * True when another process holds `path` open: Windows refuses to delete such a file. A file
 * nobody holds is deleted (the browser's stale profile lock).
 */
async function lockHeld(path: string): Promise<boolean> {
  try {
    await rm(path);
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'EBUSY' || code === 'EPERM';
  }
}

/**
 * The address the app window opens. With an API token, a one-time ticket the backend trades for
 * the window's cookie: the token itself would sit on the browser's command line, which every
 * user of the computer can read. Undefined when the backend gives no ticket.
 */
async function windowAddress(
  system: LauncherSystem,
  url: string,
  token: string,
): Promise<string | undefined> {
  if (token === '') return `${url}/`;
  const path = await requestLoginPath(system, url, token);
  return path === undefined ? undefined : `${url}${path}`;
}

/** What to print when there is no window: the address, and how to get in with an API token. */
function addressToOpen(url: string, token: string): string {
  return token === '' ? `${url}/` : `${url}/?token=<your API_TOKEN>`;
}

/** The browser for the app window, or why there is none (undefined: `--no-window`). */
async function chooseBrowser(options: LauncherOptions): Promise<{ browser?: string; why: string }> {
  if (options.window === 'never') return { why: '' };
  if (!hasDisplay(options.system.platform, options.environment)) {
    return { why: ' (no display to open a window on)' };
  }
  const browser =
    options.browser ??
    (await findBrowser(options.system.platform, options.environment, isExecutable));
  return browser
    ? { browser, why: '' }
    : {
        why: ' (no Chromium, Chrome, Edge or Brave found; set CLASS_ASSISTANT_BROWSER to use another)',
      };
}

/**
 * Another launcher runs Class Assistant with this data folder: open its window (or print its
 * address) and leave it running. 1 when it does not answer; 'retry' when it stopped meanwhile.
 * What it says goes to the launcher log too (a packaged launcher on Windows has no console).
 */
async function openRunningInstance(
  options: LauncherOptions,
  record: InstanceRecord,
): Promise<number | 'retry'> {
  const { system, layout } = options;
  const say = (line: string) => {
    options.print(line);
    void appendFile(layout.logFile, `${new Date().toISOString()} [second launch] ${line}\n`).catch(
      () => {},
    );
  };
  say(`Class Assistant is already running with this data folder (launcher process ${record.pid}).`);
  const token = await readApiToken(system, layout.envFile, options.environment);
  // It may still be starting: wait for its backend, as a launch would.
  const deadline = Date.now() + 60_000;
  let ready = false;
  while (!ready && Date.now() < deadline) {
    if (!system.isAlive(record.pid)) return 'retry';
    const health = await readHealth(system, record.url, 1000, token);
    ready = health?.status === 'healthy' && health.launcher_pid === record.pid;
    if (!ready) await system.sleep(200);
  }
  if (!ready) {
    if (!system.isAlive(record.pid)) return 'retry';
    say(
      `It does not answer at ${record.url}/. Close it (or wait until it has started), or start this one with --data-dir <another folder>; its lock is ${join(layout.dataDir, LOCK_FILE)}.`,
    );
    return 1;
  }
  const { browser, why } = await chooseBrowser(options);
  const address = browser ? await windowAddress(system, record.url, token) : undefined;
  if (browser && address) {
    await mkdir(layout.profileDir, { recursive: true });
    // The same profile: a browser already showing the app takes the request and opens a window.
    const window = spawn(
      browser,
      appWindowArguments({
        url: address,
        profileDir: layout.profileDir,
        width: 320,
        height: 80,
      }),
      { stdio: 'ignore', windowsHide: false, detached: system.platform !== 'win32' },
    );
    window.on('error', () => undefined);
    window.unref();
    say(`opened its window (${browser}); it keeps running.`);
  } else {
    say(
      `Open ${addressToOpen(record.url, token)} in Chromium, Chrome or Edge${browser ? ' (it gave no address for a window)' : why}; it keeps running.`,
    );
  }
  return 0;
}

/** Runs the app until its window closes or `stopSignal` resolves; returns the exit code. */
export async function runLauncher(options: LauncherOptions): Promise<number> {
  const { layout, system, port } = options;
  const url = `http://127.0.0.1:${port}`;
  await mkdir(layout.dataDir, { recursive: true });
  await mkdir(dirname(layout.logFile), { recursive: true });

  // One launcher per data folder: a second launch opens the running app, never stops it (and
  // starts afresh when that app stops meanwhile).
  for (let attempt = 0; ; attempt++) {
    const instance = await acquireInstanceLock({ dataDir: layout.dataDir, port, system });
    if (instance.kind === 'running') {
      const opened = await openRunningInstance(options, instance.record);
      if (opened !== 'retry') return opened;
      if (attempt >= 2) throw new Error('the running Class Assistant keeps coming and going');
      continue;
    }
    const { lock } = instance;
    try {
      return await runWithLock(options, url, lock, instance.stale);
    } finally {
      await lock.release();
    }
  }
}

async function runWithLock(
  options: LauncherOptions,
  url: string,
  lock: InstanceLock,
  stale: InstanceRecord | undefined,
): Promise<number> {
  const { layout, system, port, print } = options;
  // The log starts afresh only now: a second launch must not wipe the running one's.
  await writeFile(layout.logFile, '');
  const log = (line: string) => {
    print(line);
    void appendFile(layout.logFile, `${new Date().toISOString()} ${line}\n`).catch(() => {});
  };
  if (stale) {
    log(
      `the previous launcher (process ${stale.pid}) is gone${stale.backend_pid ? `; its backend (process ${stale.backend_pid}) is stale` : ''}`,
    );
  }

  await options.prepare?.();

  // The backend's API token (API_TOKEN in its settings or environment), read again at each
  // start: a restart takes a changed setting.
  let apiToken = await readApiToken(system, layout.envFile, options.environment);
  const cleanup = (graceMs?: number) =>
    cleanupStaleBackends({
      system,
      port,
      apiToken,
      byName: options.cleanupByName !== false,
      backendExecutable: layout.backend.file,
      ...(stale?.backend_pid ? { orphans: [stale.backend_pid] } : {}),
      ...(graceMs !== undefined ? { graceMs } : {}),
    });
  const before = await cleanup();
  for (const message of before.messages) log(`cleanup: ${message}`);
  if (before.liveInstance) {
    const other = before.liveInstance;
    log(
      `Port ${port} is used by another running Class Assistant (${other.locked ? `backend process ${other.pid ?? '?'}, which needs an API_TOKEN these settings do not have` : other.launcherPid === null ? `backend process ${other.pid}, started without the launcher, with a class in progress` : `launcher process ${other.launcherPid}`}${other.dataDir ? `, data folder ${other.dataDir}` : ''}), which was left running. Use it at ${url}/, or start this one with --port <another port>.`,
    );
    return 1;
  }
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
        env: {
          ...process.env,
          // Who owns it (a later launch tells a live backend from a stale one) and what it ships in.
          CLASS_ASSISTANT_LAUNCHER_PID: String(system.selfPid),
          ...(options.appVersion ? { CLASS_ASSISTANT_APP_VERSION: options.appVersion } : {}),
        },
      },
    );
    let errors = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      errors = `${errors}${chunk.toString('utf8')}`.slice(-4000);
    });
    child.on('error', (error) => {
      errors += `\n${error.message}`;
    });
    if (child.pid !== undefined) void lock.setBackend(child.pid).catch(() => undefined);
    return { child, errors: () => errors.trim() };
  };

  let backend = startBackend();
  const health = await waitForHealth(system, url, backend.child, 60_000, apiToken);
  if (health !== 'healthy') {
    log(
      health === 'exited'
        ? `The backend stopped while starting: ${backend.errors() || `exit code ${backend.child.exitCode}`}`
        : 'The backend did not become healthy within 60 s.',
    );
    log(`Details: ${layout.dataDir}/_startup.log`);
    if (backend.child.exitCode === null)
      await stopBackend(system, backend.child, url, layout.dataDir);
    return 1;
  }
  log(`backend ready at ${url} (log: ${layout.dataDir}/_startup.log)`);

  if (freshSettings && layout.kind === 'development') {
    // `pnpm start` in a fresh clone runs the scripted demo class: no microphone, model or key.
    try {
      await system.fetch(`${url}/api/settings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authorization(apiToken) },
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

  // Restart a backend that dies while the window is open (the page reconnects by itself); after
  // three restarts, or one that fails, give up: the launcher stops with a non-zero code.
  let restarts = 0;
  let stopping = false;
  let gaveUp: (reason: string) => void = () => undefined;
  const backendLost = new Promise<string>((resolve) => {
    gaveUp = resolve;
  });
  const watchBackend = () => {
    backend.child.once('exit', async (code, signal) => {
      if (stopping) return;
      if (restarts >= 3) {
        log(`The backend stopped again (${code ?? signal}); not restarting it any more.`);
        gaveUp(`the backend kept stopping (last: ${code ?? signal})`);
        return;
      }
      restarts++;
      log(`The backend stopped unexpectedly (${code ?? signal}): starting it again.`);
      apiToken = await readApiToken(system, layout.envFile, options.environment);
      backend = startBackend();
      const again = await waitForHealth(system, url, backend.child, 60_000, apiToken);
      if (stopping) return;
      if (again === 'healthy') {
        log('backend ready again');
        watchBackend();
      } else {
        log(
          `The backend could not start again: ${backend.errors() || (again === 'timeout' ? 'not healthy within 60 s' : `exit code ${backend.child.exitCode}`)}`,
        );
        gaveUp('the backend could not start again');
      }
    });
  };
  watchBackend();

  let windowClosed: Promise<string> = new Promise(() => {});
  let window: ChildProcess | undefined;
  const { browser, why } = await chooseBrowser(options);
  const address = browser ? await windowAddress(system, url, apiToken) : undefined;
  if (browser && !address) {
    log(`The backend gave no address for the window (POST /api/login_ticket).`);
  }
  if (browser && address) {
    await mkdir(layout.profileDir, { recursive: true });
    window = spawn(
      browser,
      appWindowArguments({ url: address, profileDir: layout.profileDir, width: 320, height: 80 }),
      { stdio: 'ignore', windowsHide: false },
    );
    const opened = window;
    const openedAt = Date.now();
    log(`opened the app window (${browser})`);
    windowClosed = new Promise((resolve) => {
      opened.once('error', (error) => {
        log(`The browser could not start (${error.message}). Open ${url}/ yourself.`);
      });
      opened.once('exit', async () => {
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
  } else if (!browser && options.window !== 'never' && system.platform === 'darwin') {
    // A Mac without Chrome or Edge: the page in the default browser (Safari has no app window
    // to open from here). Started from Finder there is no terminal to print an address to.
    const address = await windowAddress(system, url, apiToken);
    if (address) {
      const opener = macDefaultBrowserCommand(address);
      spawn(opener.file, opener.args, { stdio: 'ignore', detached: true }).unref();
      log(
        `opened ${url}/ in the default browser${why}: the app stops when its backend is stopped (Ctrl-C here, or 退出 / Quit in the app).`,
      );
    } else {
      log(`The backend gave no address for the window (POST /api/login_ticket).`);
    }
  } else {
    log(
      `Class Assistant is running: open ${addressToOpen(url, apiToken)} in Chromium, Chrome or Edge${browser ? '' : why}.`,
    );
    log('Press Ctrl-C to stop.');
  }

  const lost = backendLost.then((reason) => ({ lost: true as const, reason }));
  const outcome = await Promise.race([
    windowClosed.then((reason) => ({ lost: false as const, reason })),
    options.stopSignal.then((reason) => ({ lost: false as const, reason })),
    lost,
  ]);
  stopping = true;
  // From now on a new launch waits for this one to finish instead of opening a closing app.
  await lock.setStopping().catch(() => undefined);
  if (outcome.lost) {
    log(`Class Assistant stops: ${outcome.reason}. Details: ${layout.dataDir}/_startup.log`);
    if (window && window.exitCode === null && window.signalCode === null) window.kill();
  } else {
    log(`${outcome.reason}: stopping the backend`);
  }
  const how = await stopBackend(system, backend.child, url, layout.dataDir);
  if (how === 'killed') log('the backend did not stop in time and was killed');
  const after = await cleanup(5000);
  for (const message of after.messages) log(`cleanup: ${message}`);
  log('stopped');
  return outcome.lost ? 1 : 0;
}
