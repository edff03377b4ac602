// Stale-backend cleanup (backend.md 1.8, 7.2): before the backend starts and when the window
// closes, stop (1) whatever listens on the backend's port — our own backend asked to shut down
// gracefully over HTTP first, anything else stopped politely then forcibly —, (2) every process
// named class-assistant-backend, and (3) on Windows, console windows titled ClassAssistant-Backend.
import { join } from 'node:path';
import {
  type Command,
  listeningInodes,
  lsofPortOwnersCommand,
  type NamedProcess,
  netstatCommand,
  parseNetstatListeners,
  parsePidLines,
  parsePsProcesses,
  parseTasklistCsv,
  programName,
  psCommand,
  socketInode,
  taskkillByTitleCommand,
  taskkillCommand,
  tasklistCommand,
  windowsPortOwnersCommand,
} from './process-queries.ts';
import type { LauncherSystem } from './system.ts';

/** The backend's executable name (without `.exe`). */
export const BACKEND_NAME = 'class-assistant-backend';
/** The console window title the original's backend ran under. */
export const BACKEND_WINDOW_TITLE = 'ClassAssistant-Backend';

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
  /** Also stop processes named class-assistant-backend (default true). */
  byName?: boolean;
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
    const fdFolder = join('/proc', entry, 'fd');
    for (const fd of await system.listDir(fdFolder)) {
      const inode = socketInode((await system.readLink(join(fdFolder, fd))) ?? '');
      if (inode && inodes.has(inode)) {
        owners.push(Number(entry));
        break;
      }
    }
  }
  return owners;
}

/** Processes whose program is `name` (`name.exe` on Windows). */
export async function findProcessesByName(
  system: LauncherSystem,
  name: string,
): Promise<NamedProcess[]> {
  if (system.platform === 'win32') {
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
      found.push({ pid: Number(entry), name });
    }
  }
  return found;
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

/** Asks a Class Assistant backend on `port` to stop; true when it said it would. */
export async function requestShutdown(system: LauncherSystem, port: number): Promise<boolean> {
  const base = `http://127.0.0.1:${port}`;
  try {
    const health = await system.fetch(`${base}/api/health`, { signal: AbortSignal.timeout(2000) });
    const body = (await health.json()) as { status?: string; compatible_client?: string };
    if (body.status !== 'healthy' || body.compatible_client === undefined) return false;
    const answer = await system.fetch(`${base}/api/shutdown`, {
      method: 'POST',
      signal: AbortSignal.timeout(2000),
    });
    return answer.status === 202;
  } catch {
    return false;
  }
}

/**
 * Frees the backend's port and stops stale backends.
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
    messages: [],
  };

  if (await system.isListening(port)) {
    if (await requestShutdown(system, port)) {
      report.messages.push(`asked the Class Assistant backend on port ${port} to stop`);
      report.shutdownOverHttp = await waitUntil(
        system,
        async () => !(await system.isListening(port)),
        graceMs,
      );
    }
    if (await system.isListening(port)) {
      for (const pid of await findPortOwners(system, port)) {
        if (keep.has(pid)) continue;
        const result = await stopProcess(system, pid, Math.min(graceMs, 5000));
        if (result.stopped) {
          report.stopped.push({ pid, reason: 'port', forced: result.forced });
          report.messages.push(
            `stopped process ${pid}, which held port ${port}${result.forced ? ' (forced)' : ''}`,
          );
        } else {
          report.failed.push(pid);
          report.messages.push(`could not stop process ${pid}, which holds port ${port}`);
        }
      }
    }
  }

  if (options.byName !== false) {
    for (const process of await findProcessesByName(system, BACKEND_NAME)) {
      if (keep.has(process.pid) || report.stopped.some((entry) => entry.pid === process.pid))
        continue;
      const result = await stopProcess(system, process.pid, Math.min(graceMs, 5000));
      if (result.stopped) {
        report.stopped.push({ pid: process.pid, reason: 'name', forced: result.forced });
        report.messages.push(`stopped a stale ${BACKEND_NAME} (process ${process.pid})`);
      } else {
        report.failed.push(process.pid);
        report.messages.push(`could not stop ${BACKEND_NAME} process ${process.pid}`);
      }
    }
    if (system.platform === 'win32') {
      // Exit code 128 means "no such window": the usual case.
      await runCommand(system, taskkillByTitleCommand(BACKEND_WINDOW_TITLE));
    }
  }

  report.portFree = !(await system.isListening(port));
  if (!report.portFree) report.messages.push(`port ${port} is still in use`);
  return report;
}
