// Stale-backend cleanup: before the backend starts and when the window closes, stop (1) whatever
// listens on the backend's port, (2) stale processes named class-assistant-backend, and (3) on
// Windows, console windows titled ClassAssistant-Backend.
//
// Stale means: no live launcher owns it. A backend reports its launcher in /api/health
// (`launcher_pid`); one whose launcher runs is another running Class Assistant and is never
// stopped — a second launch must not end a class in progress. Our own backends are asked to stop
// over HTTP with their run's token (read from their data folder; never sent to another user's
// process), anything else is stopped politely, then by force.
import { resolve } from 'node:path';
import { askBackendToStop, type BackendHealth, probeBackend } from './backend-client.ts';
import {
  findListeningPorts,
  findPortOwners,
  findProcessesByName,
  ownedByThisUser,
  runCommand,
} from './process-discovery.ts';
import { type NamedProcess, taskkillByTitleCommand, taskkillCommand } from './process-queries.ts';
import type { LauncherSystem } from './system.ts';

/** The backend's executable name (without `.exe`). */
const BACKEND_NAME = 'class-assistant-backend';
/** The console window title the original's backend ran under. */
const BACKEND_WINDOW_TITLE = 'ClassAssistant-Backend';

/**
 * A running Class Assistant: a backend whose launcher is alive, or one started without a
 * launcher (by hand) with a class in progress (`launcherPid` null), or one that needs an API
 * token this launcher does not have (`locked`: it cannot be looked into, so it is left alone).
 */
interface LiveInstance {
  port: number;
  pid: number | undefined;
  launcherPid: number | null;
  dataDir: string | undefined;
  locked?: boolean;
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
  /** The API token of this launcher's backend (its API_TOKEN), sent when asking a backend. */
  apiToken?: string;
}

/** Polls `check` every 100 ms until it holds (true) or `timeoutMs` passes (false). */
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
async function stopProcess(
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

/**
 * What keeps a backend running: its live launcher (`launcherPid`), or — `launcherPid` null — a
 * class in progress on a backend started without a launcher (someone is using it).
 */
interface Keeper {
  launcherPid: number | null;
}

/**
 * The {@link Keeper} of the backend that gave `health`, or undefined when nothing keeps it: it is
 * stale. A backend whose launcher is gone is stale even mid-class: it is asked to stop, which
 * saves the class.
 */
function keeperOf(system: LauncherSystem, health: BackendHealth): Keeper | undefined {
  const launcher = health.launcher_pid;
  if (typeof launcher === 'number') {
    const alive = launcher !== system.selfPid && system.isAlive(launcher);
    return alive ? { launcherPid: launcher } : undefined;
  }
  const state = health.monitor?.state;
  return state === 'running' || state === 'paused' ? { launcherPid: null } : undefined;
}

/** True when `a` and `b` name the same file (case-insensitively where the file system is). */
function samePath(platform: NodeJS.Platform, a: string, b: string): boolean {
  return platform === 'win32' || platform === 'darwin'
    ? resolve(a).toLowerCase() === resolve(b).toLowerCase()
    : resolve(a) === resolve(b);
}

/** How a process named class-assistant-backend (or a recorded orphan) is doing. */
type BackendState =
  | { kind: 'live'; launcherPid: number | null; port: number }
  | { kind: 'stale'; port: number; health: BackendHealth }
  | { kind: 'locked'; port: number }
  | { kind: 'silent' }
  | { kind: 'not-listening' };

async function backendState(
  system: LauncherSystem,
  pid: number,
  apiToken: string | undefined,
): Promise<BackendState> {
  const ports = await findListeningPorts(system, pid);
  if (ports.length === 0) return { kind: 'not-listening' };
  for (const port of ports) {
    const { health, locked } = await probeBackend(system, port, apiToken);
    if (locked) return { kind: 'locked', port };
    if (!health || health.pid !== pid) continue;
    const keeper = keeperOf(system, health);
    return keeper
      ? { kind: 'live', launcherPid: keeper.launcherPid, port }
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
      } else if (await askBackendToStop(system, healthPort, health)) {
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
    const { health, locked } = await probeBackend(system, port, options.apiToken);
    const keeper = health ? keeperOf(system, health) : undefined;
    if (locked) {
      const [pid] = await findPortOwners(system, port);
      report.liveInstance = { port, pid, launcherPid: null, dataDir: undefined, locked: true };
      report.messages.push(
        `left running: the Class Assistant on port ${port}${pid ? ` (process ${pid})` : ''} needs an API_TOKEN that this launcher's settings do not have`,
      );
    } else if (health && keeper) {
      const { launcherPid } = keeper;
      report.liveInstance = { port, pid: health.pid, launcherPid, dataDir: health.data_dir };
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
      const state = await backendState(system, pid, options.apiToken);
      if (state.kind === 'locked') {
        report.leftAlone.push({ pid, why: 'locked' });
        report.messages.push(
          `left ${BACKEND_NAME} process ${pid} running: it needs an API_TOKEN that this launcher's settings do not have (port ${state.port})`,
        );
        continue;
      }
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
