// One launcher per data folder: `<data>/_launcher.lock` names the launcher that runs Class
// Assistant with it (its pid, port and address, and its backend's pid once started). A second
// launch finds it and opens the running app instead of stopping it; a lock whose launcher is
// gone (killed, crashed, or from before a reboot) is stale and taken over, and the backend it
// recorded is an orphan the cleanup may stop.
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { uptime } from 'node:os';
import { DATA_FOLDER, dataPaths } from '@class-assistant/server/data-folder';
import type { LauncherSystem } from './system.ts';

/** The lock's file name in the data folder. */
export const LOCK_FILE = DATA_FOLDER.launcherLock.name;

/** What the lock says. */
export interface InstanceRecord {
  /** The launcher process. */
  pid: number;
  port: number;
  /** The app's address, e.g. http://127.0.0.1:8765. */
  url: string;
  /** ISO time the launcher took the lock. */
  started_at: string;
  /** Its backend process, once started. */
  backend_pid?: number;
  /** True once the launcher is stopping its backend (the window was closed). */
  stopping?: boolean;
}

/** A lock this launcher holds. */
export interface InstanceLock {
  readonly path: string;
  readonly record: InstanceRecord;
  /** Records the backend this launcher started (a later launch stops it if we die). */
  setBackend(pid: number): Promise<void>;
  /** Says the app is stopping: a launch from now on waits for it and then starts afresh. */
  setStopping(): Promise<void>;
  /** Removes the lock if it is still ours. */
  release(): Promise<void>;
}

/** The outcome of {@link acquireInstanceLock}. */
export type LockOutcome =
  | { kind: 'acquired'; lock: InstanceLock; stale?: InstanceRecord }
  | { kind: 'running'; record: InstanceRecord };

/** Options of {@link acquireInstanceLock}. */
export interface LockOptions {
  dataDir: string;
  port: number;
  system: Pick<LauncherSystem, 'isAlive' | 'selfPid' | 'sleep'>;
  /** When this computer started, ms since the epoch (default: from `os.uptime()`). */
  bootTimeMs?: number;
  /** How long to wait for a stopping app to finish (default 30 s). */
  stoppingWaitMs?: number;
}

/**
 * A launcher that took its lock this long ago and has no backend yet is still starting (it may
 * be building the UI or cleaning up); longer without a live backend, it is not Class Assistant.
 */
export const STARTING_GRACE_MS = 120_000;

/** A takeover marker older than this was left by a launcher that died while taking over. */
const TAKEOVER_STALE_MS = 5000;

function parseRecord(text: string): InstanceRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<InstanceRecord>;
    if (
      typeof value.pid === 'number' &&
      typeof value.port === 'number' &&
      typeof value.url === 'string' &&
      typeof value.started_at === 'string'
    ) {
      return value as InstanceRecord;
    }
  } catch {
    // Being written, or damaged.
  }
  return undefined;
}

/** Writes next to the lock, then renames over it: a reader never sees half a record. */
async function writeRecordAtomically(path: string, record: InstanceRecord): Promise<void> {
  const temp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(temp, `${JSON.stringify(record)}\n`);
  await rename(temp, path);
}

/** How the launcher named by a lock is doing. */
function holderState(
  holder: InstanceRecord,
  system: LockOptions['system'],
  bootTimeMs: number,
): 'running' | 'stopping' | 'gone' {
  if (holder.pid === system.selfPid || !system.isAlive(holder.pid)) return 'gone';
  // A pid from before this computer started belongs to another process now.
  const startedAt = Date.parse(holder.started_at);
  if (!(startedAt >= bootTimeMs - 60_000)) return 'gone';
  if (holder.stopping) return 'stopping';
  // A live launcher has a live backend (or is about to): a lock whose backend is gone names a
  // process number some other program has now (Windows' fast startup keeps the uptime running).
  if (holder.backend_pid !== undefined)
    return system.isAlive(holder.backend_pid) ? 'running' : 'gone';
  return Date.now() - startedAt < STARTING_GRACE_MS ? 'running' : 'gone';
}

/** Reads the lock: its text, undefined when there is none; other read errors are thrown, named. */
async function readLock(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(
      `cannot read the instance lock ${path}: ${(error as Error).message}. Remove it, or start with --data-dir <another folder>.`,
    );
  }
}

/** Creates the takeover marker; false when another launcher is taking the lock over now. */
async function claimTakeover(path: string): Promise<boolean> {
  try {
    await writeFile(path, `${process.pid}\n`, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const age = Date.now() - (await stat(path).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs;
    if (age > TAKEOVER_STALE_MS) await rm(path, { force: true });
    return false;
  }
}

/**
 * Takes the data folder's instance lock, or finds the launcher that holds it. A lock whose
 * launcher is stopping is waited for; a stale one is taken over by one launcher only (under a
 * takeover marker, so two launches after a crash cannot both win).
 *
 * @example
 * const outcome = await acquireInstanceLock({ dataDir, port: 8765, system: nodeSystem() });
 * if (outcome.kind === 'running') console.log(`already running at ${outcome.record.url}`);
 */
export async function acquireInstanceLock(options: LockOptions): Promise<LockOutcome> {
  const { system } = options;
  const path = dataPaths(options.dataDir).launcherLock;
  const takeover = `${path}.takeover`;
  const bootTimeMs = options.bootTimeMs ?? Date.now() - uptime() * 1000;
  const record: InstanceRecord = {
    pid: system.selfPid,
    port: options.port,
    url: `http://127.0.0.1:${options.port}`,
    started_at: new Date().toISOString(),
  };
  let stale: InstanceRecord | undefined;
  // Long enough for a damaged lock to age into a stale one (2 s) and a stopping app to finish.
  const deadline = Date.now() + 10_000 + (options.stoppingWaitMs ?? 30_000);
  while (Date.now() < deadline) {
    try {
      // Created whole or not at all: `wx` fails when another launcher got there first.
      await writeFile(path, `${JSON.stringify(record)}\n`, { flag: 'wx' });
      return { kind: 'acquired', lock: heldLock(path, record), ...(stale ? { stale } : {}) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const text = await readLock(path);
    if (text === undefined) continue; // Removed meanwhile: try again.
    const holder = parseRecord(text);
    if (!holder) {
      // Another launcher is writing it (it is written whole, but a damaged file must not block
      // the app forever): wait a moment, then treat an old unreadable lock as stale.
      const age = Date.now() - (await stat(path).catch(() => ({ mtimeMs: 0 }))).mtimeMs;
      if (age < 2000) {
        await system.sleep(100);
        continue;
      }
    } else {
      const state = holderState(holder, system, bootTimeMs);
      if (state === 'running') return { kind: 'running', record: holder };
      if (state === 'stopping') {
        await system.sleep(200);
        continue;
      }
      stale = holder;
    }
    // Stale: remove it under the takeover marker, unless someone replaced it meanwhile.
    if (!(await claimTakeover(takeover))) {
      await system.sleep(50);
      continue;
    }
    try {
      if ((await readLock(path)) === text) await rm(path, { force: true });
    } finally {
      await rm(takeover, { force: true });
    }
  }
  throw new Error(
    `could not take the instance lock ${path} in time: another launcher keeps it. Close Class Assistant, or start with --data-dir <another folder>.`,
  );
}

function heldLock(path: string, record: InstanceRecord): InstanceLock {
  let current = record;
  const ours = async () => {
    const text = await readFile(path, 'utf8').catch(() => undefined);
    return text !== undefined && parseRecord(text)?.pid === record.pid;
  };
  return {
    path,
    get record() {
      return current;
    },
    async setBackend(pid) {
      current = { ...current, backend_pid: pid };
      if (await ours()) await writeRecordAtomically(path, current);
    },
    async setStopping() {
      current = { ...current, stopping: true };
      if (await ours()) await writeRecordAtomically(path, current);
    },
    async release() {
      if (await ours()) await rm(path, { force: true });
    },
  };
}
