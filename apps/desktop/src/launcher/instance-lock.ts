// One launcher per data folder: `<data>/_launcher.lock` names the launcher that runs Class
// Assistant with it (its pid, port and address, and its backend's pid once started). A second
// launch finds it and opens the running app instead of stopping it; a lock whose launcher is
// gone (killed, crashed, or from before a reboot) is stale and taken over, and the backend it
// recorded is an orphan the cleanup may stop.
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { uptime } from 'node:os';
import { join } from 'node:path';
import type { LauncherSystem } from './system.ts';

/** The lock's file name in the data folder. */
export const LOCK_FILE = '_launcher.lock';

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
}

/** A lock this launcher holds. */
export interface InstanceLock {
  readonly path: string;
  readonly record: InstanceRecord;
  /** Records the backend this launcher started (a later launch stops it if we die). */
  setBackend(pid: number): Promise<void>;
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
}

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
async function replace(path: string, record: InstanceRecord): Promise<void> {
  const temp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(temp, `${JSON.stringify(record)}\n`);
  await rename(temp, path);
}

/**
 * Takes the data folder's instance lock, or finds the launcher that holds it.
 *
 * @example
 * const outcome = await acquireInstanceLock({ dataDir, port: 8765, system: nodeSystem() });
 * if (outcome.kind === 'running') console.log(`already running at ${outcome.record.url}`);
 */
export async function acquireInstanceLock(options: LockOptions): Promise<LockOutcome> {
  const { system } = options;
  const path = join(options.dataDir, LOCK_FILE);
  const bootTimeMs = options.bootTimeMs ?? Date.now() - uptime() * 1000;
  const record: InstanceRecord = {
    pid: system.selfPid,
    port: options.port,
    url: `http://127.0.0.1:${options.port}`,
    started_at: new Date().toISOString(),
  };
  let stale: InstanceRecord | undefined;
  // Long enough for a damaged lock to age into a stale one (2 s) while others come and go.
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    try {
      // Created whole or not at all: `wx` fails when another launcher got there first.
      await writeFile(path, `${JSON.stringify(record)}\n`, { flag: 'wx' });
      return { kind: 'acquired', lock: heldLock(path, record), ...(stale ? { stale } : {}) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const text = await readFile(path, 'utf8').catch(() => undefined);
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
      // A pid from before this computer started belongs to another process now.
      const alive =
        holder.pid !== system.selfPid &&
        system.isAlive(holder.pid) &&
        Date.parse(holder.started_at) >= bootTimeMs - 60_000;
      if (alive) return { kind: 'running', record: holder };
      stale = holder;
    }
    // Stale: remove it, unless someone else replaced it meanwhile.
    const again = await readFile(path, 'utf8').catch(() => undefined);
    if (again === text) await rm(path, { force: true });
  }
  throw new Error(`could not take the instance lock ${path}`);
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
      if (await ours()) await replace(path, current);
    },
    async release() {
      if (await ours()) await rm(path, { force: true });
    },
  };
}
