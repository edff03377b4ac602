// Stale-backend cleanup (backend.md 1.8, 7.2): before the backend starts and when the window
// closes, stop (1) whatever listens on the backend's port, (2) stale processes named
// class-assistant-backend, and (3) on Windows, console windows titled ClassAssistant-Backend.
//
// Stale means: no live launcher owns it. A backend reports its launcher in /api/health
// (`launcher_pid`); one whose launcher runs is another running Class Assistant and is never
// stopped — a second launch must not end a class in progress. Our own backends are asked to stop
// over HTTP with their run's token (read from their data folder; never sent to another user's
// process), anything else is stopped politely, then by force.
import { join, resolve } from 'node:path';
import {
  type Command,
  listeningInodes,
  listeningPortsByInode,
  lsofListeningPortsCommand,
  lsofPortOwnersCommand,
  type NamedProcess,
  netstatCommand,
  parseLsofPorts,
  parseNetstatListeners,
  parseNetstatPortsOf,
  parseOwnerLine,
  parsePidLines,
  parsePidPathLines,
  parsePsProcesses,
  parseTasklistCsv,
  parseTasklistUser,
  procStatusUid,
  programName,
  psCommand,
  psUidCommand,
  socketInode,
  taskkillByTitleCommand,
  taskkillCommand,
  tasklistCommand,
  tasklistUserCommand,
  windowsListeningPortsCommand,
  windowsPortOwnersCommand,
  windowsProcessOwnerCommand,
  windowsProcessPathsCommand,
} from './process-queries.ts';
import type { LauncherSystem } from './system.ts';

/** The backend's executable name (without `.exe`). */
export const BACKEND_NAME = 'class-assistant-backend';
/** The console window title the original's backend ran under. */
export const BACKEND_WINDOW_TITLE = 'ClassAssistant-Backend';
/**
 * Where a backend keeps its run's shutdown token, in its data folder (the server's
 * SHUTDOWN_TOKEN_FILE; the app talks to the server over HTTP only, so it is named here again).
 */
export const SHUTDOWN_TOKEN_FILE = '_shutdown.token';

/** What /api/health says about the backend answering it. */
export interface BackendHealth {
  status: string;
  compatible_client?: string;
  pid?: number;
  launcher_pid?: number | null;
  data_dir?: string;
  app_version?: string | null;
  monitor?: { state?: string };
}

/**
 * A running Class Assistant: a backend whose launcher is alive, or one started without a
 * launcher (by hand) with a class in progress (`launcherPid` null).
 */
export interface LiveInstance {
  port: number;
  pid: number | undefined;
  launcherPid: number | null;
  dataDir: string | undefined;
}

/** What the cleanup did, for the log. */
export interface CleanupReport {
  /** Our backend on the port accepted POST /api/shutdown and stopped. */
  shutdownOverHttp: boolean;
  /** Processes stopped, with how. */
  stopped: Array<{ pid: number; reason: 'port' | 'name'; forced: boolean }>;
  /** Processes that would not stop (another user's, protected). */
  failed: number[];
  /** True when the port is free at the end. */
  portFree: boolean;
  /** A running Class Assistant holds the port: it was left running. */
  liveInstance?: LiveInstance;
  /** Processes named class-assistant-backend that are not stale, and why they were left. */
  leftAlone: Array<{ pid: number; why: string }>;
  messages: string[];
}

/** Options of {@link cleanupStaleBackends}. */
export interface CleanupOptions {
  system: LauncherSystem;
  port: number;
  /** Processes never stopped (the launcher itself, the browser it runs). */
  keep?: readonly number[];
  /** How long a graceful stop may take before it is forced (default 10 s). */
  graceMs?: number;
  /** Also stop stale processes named class-assistant-backend (default true). */
  byName?: boolean;
  /**
   * This launcher's backend program. A process named class-assistant-backend is only stopped by
   * name when it is this very program (the same installation) or one of `orphans`: another
   * installation's backend (the student's own app, while a release build checks a new one) is
   * never touched by name.
   */
  backendExecutable?: string;
  /** Backends a launcher that is gone recorded as its own (from its stale instance lock). */
  orphans?: readonly number[];
}

async function runCommand(system: LauncherSystem, command: Command) {
  return system.run(command.file, command.args);
}

/** The processes listening on 127.0.0.1:`port` (any address), by OS. */
export async function findPortOwners(system: LauncherSystem, port: number): Promise<number[]> {
  if (system.platform === 'win32') {
    const powershell = await runCommand(system, windowsPortOwnersCommand(port));
    if (!powershell.error && powershell.code === 0) return parsePidLines(powershell.stdout);
    const netstat = await runCommand(system, netstatCommand());
    return parseNetstatListeners(netstat.stdout, port);
  }
  if (system.platform === 'darwin') {
    return parsePidLines((await runCommand(system, lsofPortOwnersCommand(port))).stdout);
  }
  // Linux: the listening socket's inode in /proc/net/tcp{,6}, then the process holding it.
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const inode of listeningInodes((await system.readText(table)) ?? '', port))
      inodes.add(inode);
  }
  if (inodes.size === 0) return [];
  const owners: number[] = [];
  for (const entry of await system.listDir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    if ((await socketInodesOf(system, Number(entry))).some((inode) => inodes.has(inode))) {
      owners.push(Number(entry));
    }
  }
  return owners;
}

async function socketInodesOf(system: LauncherSystem, pid: number): Promise<string[]> {
  const fdFolder = join('/proc', String(pid), 'fd');
  const inodes: string[] = [];
  for (const fd of await system.listDir(fdFolder)) {
    const inode = socketInode((await system.readLink(join(fdFolder, fd))) ?? '');
    if (inode) inodes.push(inode);
  }
  return inodes;
}

/** The TCP ports process `pid` listens on, by OS. */
export async function listeningPortsOf(system: LauncherSystem, pid: number): Promise<number[]> {
  if (system.platform === 'win32') {
    const powershell = await runCommand(system, windowsListeningPortsCommand(pid));
    if (!powershell.error && powershell.code === 0) return parsePidLines(powershell.stdout);
    return parseNetstatPortsOf((await runCommand(system, netstatCommand())).stdout, pid);
  }
  if (system.platform === 'darwin') {
    return parseLsofPorts((await runCommand(system, lsofListeningPortsCommand(pid))).stdout);
  }
  const byInode = new Map<string, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const [inode, port] of listeningPortsByInode((await system.readText(table)) ?? '')) {
      byInode.set(inode, port);
    }
  }
  const ports = new Set<number>();
  for (const inode of await socketInodesOf(system, pid)) {
    const port = byInode.get(inode);
    if (port !== undefined) ports.add(port);
  }
  return [...ports];
}

/** Processes whose program is `name` (`name.exe` on Windows), with their executables. */
export async function findProcessesByName(
  system: LauncherSystem,
  name: string,
): Promise<NamedProcess[]> {
  if (system.platform === 'win32') {
    const powershell = await runCommand(system, windowsProcessPathsCommand(`${name}.exe`));
    if (!powershell.error && powershell.code === 0) {
      return parsePidPathLines(powershell.stdout, `${name}.exe`);
    }
    return parseTasklistCsv((await runCommand(system, tasklistCommand(`${name}.exe`))).stdout);
  }
  if (system.platform === 'darwin') {
    return parsePsProcesses((await runCommand(system, psCommand())).stdout, name);
  }
  const found: NamedProcess[] = [];
  for (const entry of await system.listDir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const exe = await system.readLink(join('/proc', entry, 'exe'));
    const argv0 =
      ((await system.readText(join('/proc', entry, 'cmdline'))) ?? '').split('\0')[0] ?? '';
    if ((exe && programName(exe) === name) || (argv0 !== '' && programName(argv0) === name)) {
      const path = exe?.replace(/ \(deleted\)$/, '');
      found.push({ pid: Number(entry), name, ...(path ? { path } : {}) });
    }
  }
  return found;
}

/**
 * True when process `pid` runs as this user. Unknown counts as another user's: a token is
 * only ever sent to a process known to be ours.
 */
export async function ownedByThisUser(system: LauncherSystem, pid: number): Promise<boolean> {
  if (system.platform === 'win32') {
    if (!system.userName) return false;
    // PowerShell answers in UTF-8 (a user named 张三 compares right); tasklist where it is missing.
    const powershell = await runCommand(system, windowsProcessOwnerCommand(pid));
    const user =
      !powershell.error && powershell.code === 0
        ? parseOwnerLine(powershell.stdout)
        : parseTasklistUser((await runCommand(system, tasklistUserCommand(pid))).stdout);
    return user !== undefined && user.toLowerCase() === system.userName.toLowerCase();
  }
  if (system.uid === undefined) return false;
  if (system.platform === 'darwin') {
    const answer = (await runCommand(system, psUidCommand(pid))).stdout.trim();
    return answer !== '' && Number(answer) === system.uid;
  }
  return procStatusUid((await system.readText(`/proc/${pid}/status`)) ?? '') === system.uid;
}

async function waitUntil(
  system: LauncherSystem,
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await system.sleep(100);
  }
}

/** Stops one process: politely (SIGTERM / taskkill), then by force after `graceMs`. */
export async function stopProcess(
  system: LauncherSystem,
  pid: number,
  graceMs: number,
): Promise<{ stopped: boolean; forced: boolean }> {
  const exited = () => !system.isAlive(pid);
  if (system.platform === 'win32') {
    // Without /F Windows asks the process's windows to close; a windowless backend ignores it.
    await runCommand(system, taskkillCommand(pid, false));
    if (await waitUntil(system, exited, Math.min(graceMs, 2000))) {
      return { stopped: true, forced: false };
    }
    await runCommand(system, taskkillCommand(pid, true));
    return { stopped: await waitUntil(system, exited, 5000), forced: true };
  }
  if (!system.signal(pid, 'SIGTERM')) return { stopped: exited(), forced: false };
  if (await waitUntil(system, exited, graceMs)) return { stopped: true, forced: false };
  system.signal(pid, 'SIGKILL');
  return { stopped: await waitUntil(system, exited, 5000), forced: true };
}

/** GET `url`/api/health: whatever JSON answers within `timeoutMs`, undefined when nothing does. */
export async function readHealth(
  system: LauncherSystem,
  url: string,
  timeoutMs = 2000,
): Promise<BackendHealth | undefined> {
  try {
    const response = await system.fetch(`${url}/api/health`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    return (await response.json()) as BackendHealth;
  } catch {
    return undefined;
  }
}

/** Asks 127.0.0.1:`port` for /api/health; the answer when a Class Assistant backend gives it. */
export async function backendHealth(
  system: LauncherSystem,
  port: number,
): Promise<BackendHealth | undefined> {
  const body = await readHealth(system, `http://127.0.0.1:${port}`);
  return body?.status === 'healthy' && body.compatible_client !== undefined ? body : undefined;
}

/** The run's shutdown token a backend keeps in its data folder, when it is there. */
export async function readShutdownToken(
  system: LauncherSystem,
  dataDir: string,
): Promise<string | undefined> {
  return (await system.readText(join(dataDir, SHUTDOWN_TOKEN_FILE)))?.trim() || undefined;
}

/** POST `url`/api/shutdown with the run's token; true when the backend said it would stop. */
export async function postShutdown(
  system: LauncherSystem,
  url: string,
  token: string,
): Promise<boolean> {
  try {
    const answer = await system.fetch(`${url}/api/shutdown`, {
      method: 'POST',
      headers: { 'x-shutdown-token': token },
      signal: AbortSignal.timeout(2000),
    });
    return answer.status === 202;
  } catch {
    return false;
  }
}

/** The launcher that owns a backend, when it is alive (and not this launcher). */
function liveLauncher(system: LauncherSystem, health: BackendHealth): number | undefined {
  const launcher = health.launcher_pid;
  if (typeof launcher !== 'number' || launcher === system.selfPid) return undefined;
  return system.isAlive(launcher) ? launcher : undefined;
}

/**
 * Who keeps a backend running: its live launcher's pid, null for a backend started without a
 * launcher that is in the middle of a class (someone is using it), undefined when it is stale.
 * A backend whose launcher is gone is stale even mid-class: it is asked to stop, which saves it.
 */
function keeper(system: LauncherSystem, health: BackendHealth): number | null | undefined {
  const launcher = liveLauncher(system, health);
  if (launcher !== undefined) return launcher;
  const ownerless = typeof health.launcher_pid !== 'number';
  const state = health.monitor?.state;
  return ownerless && (state === 'running' || state === 'paused') ? null : undefined;
}

/**
 * Asks the backend on `port` to stop with its run's token (from its data folder). Only for a
 * backend of this user: another user's process could claim our data folder to get our token.
 */
export async function requestShutdown(
  system: LauncherSystem,
  port: number,
  health: BackendHealth,
): Promise<boolean> {
  if (typeof health.pid !== 'number' || !health.data_dir) return false;
  const token = await readShutdownToken(system, health.data_dir);
  return token !== undefined && postShutdown(system, `http://127.0.0.1:${port}`, token);
}

function samePath(platform: NodeJS.Platform, a: string, b: string): boolean {
  const clean = (path: string) => resolve(path);
  return platform === 'win32' || platform === 'darwin'
    ? clean(a).toLowerCase() === clean(b).toLowerCase()
    : clean(a) === clean(b);
}

/** How a process named class-assistant-backend (or a recorded orphan) is doing. */
type BackendState =
  | { kind: 'live'; launcherPid: number | null; port: number }
  | { kind: 'stale'; port: number; health: BackendHealth }
  | { kind: 'silent' }
  | { kind: 'not-listening' };

async function backendState(system: LauncherSystem, pid: number): Promise<BackendState> {
  const ports = await listeningPortsOf(system, pid);
  if (ports.length === 0) return { kind: 'not-listening' };
  for (const port of ports) {
    const health = await backendHealth(system, port);
    if (!health || health.pid !== pid) continue;
    const launcherPid = keeper(system, health);
    return launcherPid !== undefined
      ? { kind: 'live', launcherPid, port }
      : { kind: 'stale', port, health };
  }
  return { kind: 'silent' };
}

/**
 * Frees the backend's port and stops stale backends, leaving any running Class Assistant alone.
 *
 * @example
 * const report = await cleanupStaleBackends({ system: nodeSystem(), port: 8765 });
 * if (!report.portFree) console.error(report.messages.join('\n'));
 */
export async function cleanupStaleBackends(options: CleanupOptions): Promise<CleanupReport> {
  const { system, port } = options;
  const graceMs = options.graceMs ?? 10_000;
  const keep = new Set([system.selfPid, ...(options.keep ?? [])]);
  const report: CleanupReport = {
    shutdownOverHttp: false,
    stopped: [],
    failed: [],
    portFree: true,
    leftAlone: [],
    messages: [],
  };
  const handled = (pid: number) =>
    keep.has(pid) ||
    report.stopped.some((entry) => entry.pid === pid) ||
    report.failed.includes(pid) ||
    report.leftAlone.some((entry) => entry.pid === pid);

  /** Stops a stale backend: over HTTP when it is ours and answers, else by signal. */
  const stopBackend = async (
    pid: number,
    reason: 'port' | 'name',
    health: BackendHealth | undefined,
    healthPort: number | undefined,
  ) => {
    if (health && healthPort !== undefined) {
      if (!(await ownedByThisUser(system, pid))) {
        report.messages.push(
          `did not ask the backend on port ${healthPort} (process ${pid}) to stop over HTTP: it belongs to another user`,
        );
      } else if (await requestShutdown(system, healthPort, health)) {
        report.messages.push(
          `asked the stale Class Assistant backend on port ${healthPort} (process ${pid}) to stop`,
        );
        if (await waitUntil(system, () => !system.isAlive(pid), graceMs)) {
          if (reason === 'port') report.shutdownOverHttp = true;
          return;
        }
      }
    }
    const result = await stopProcess(system, pid, Math.min(graceMs, 5000));
    const what =
      reason === 'port'
        ? `process ${pid}, which held port ${port}`
        : `a stale ${BACKEND_NAME} (process ${pid})`;
    if (result.stopped) {
      report.stopped.push({ pid, reason, forced: result.forced });
      report.messages.push(`stopped ${what}${result.forced ? ' (forced)' : ''}`);
    } else {
      report.failed.push(pid);
      report.messages.push(`could not stop ${what}`);
    }
  };

  // (1) The port.
  if (await system.isListening(port)) {
    const health = await backendHealth(system, port);
    const launcherPid = health ? keeper(system, health) : undefined;
    if (health && launcherPid !== undefined) {
      report.liveInstance = {
        port,
        pid: health.pid,
        launcherPid,
        dataDir: health.data_dir,
      };
      report.messages.push(
        launcherPid === null
          ? `left running: the Class Assistant on port ${port} (process ${health.pid}) was started without the launcher and has a class in progress`
          : `left running: the Class Assistant on port ${port} belongs to the running launcher (process ${launcherPid}${health.data_dir ? `, data folder ${health.data_dir}` : ''})`,
      );
    } else {
      const owners = (await findPortOwners(system, port)).filter((pid) => !keep.has(pid));
      for (const pid of owners) {
        const answering = health && health.pid === pid ? health : undefined;
        await stopBackend(pid, 'port', answering, answering ? port : undefined);
      }
      // Old backends (before `pid` in health) answer without saying who they are.
      if (owners.length === 0 && health && (await system.isListening(port))) {
        report.messages.push(`could not find the process holding port ${port}`);
      }
    }
  }

  // (2) Stale backends by name, and the orphans of a launcher that is gone.
  if (options.byName !== false) {
    const orphans = new Set(options.orphans ?? []);
    const candidates = new Map<number, NamedProcess | undefined>();
    for (const found of await findProcessesByName(system, BACKEND_NAME))
      candidates.set(found.pid, found);
    for (const pid of orphans)
      if (!candidates.has(pid) && system.isAlive(pid)) candidates.set(pid, undefined);
    for (const [pid, named] of candidates) {
      if (handled(pid)) continue;
      const recorded = orphans.has(pid);
      const sameProgram =
        named?.path !== undefined &&
        options.backendExecutable !== undefined &&
        samePath(system.platform, named.path, options.backendExecutable);
      if (!recorded && !sameProgram) {
        report.leftAlone.push({ pid, why: 'another installation' });
        report.messages.push(
          `left ${BACKEND_NAME} process ${pid} running: it is not this installation's${named?.path ? ` (${named.path})` : ''}`,
        );
        continue;
      }
      const state = await backendState(system, pid);
      if (state.kind === 'live') {
        report.leftAlone.push({ pid, why: 'live' });
        report.messages.push(
          state.launcherPid === null
            ? `left ${BACKEND_NAME} process ${pid} running: it has a class in progress on port ${state.port} (started without the launcher)`
            : `left ${BACKEND_NAME} process ${pid} running: it serves the running launcher (process ${state.launcherPid}) on port ${state.port}`,
        );
        continue;
      }
      // Not listening (yet): only a recorded orphan that is really our backend program is
      // stale for sure; anything else may be a backend still starting.
      if (state.kind === 'not-listening' && !(recorded && named)) {
        report.leftAlone.push({ pid, why: 'not listening' });
        report.messages.push(
          `left ${named ? BACKEND_NAME : 'recorded backend'} process ${pid} running: it is not listening yet`,
        );
        continue;
      }
      // A recorded pid that is neither our program nor answers as our backend: the number now
      // belongs to some other program.
      if (state.kind === 'silent' && !named) {
        report.leftAlone.push({ pid, why: 'another program' });
        report.messages.push(
          `left process ${pid} running: the gone launcher's backend had that number, but it does not answer as a Class Assistant backend`,
        );
        continue;
      }
      await stopBackend(
        pid,
        'name',
        state.kind === 'stale' ? state.health : undefined,
        state.kind === 'stale' ? state.port : undefined,
      );
    }
    if (system.platform === 'win32') {
      // Exit code 128 means "no such window": the usual case.
      await runCommand(system, taskkillByTitleCommand(BACKEND_WINDOW_TITLE));
    }
  }

  report.portFree = !(await system.isListening(port));
  if (!report.portFree && !report.liveInstance)
    report.messages.push(`port ${port} is still in use`);
  return report;
}
