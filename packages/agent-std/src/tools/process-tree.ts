// Finding every process a shell command started, to end them with it (used by shell_exec).
//
// Killing the command's process group misses descendants that left it: `setsid`, a daemon that
// double-forks, `nohup … &` in a new session. On Linux, /proc shows them two ways:
// - ppid links from the shell down, followed in one snapshot of /proc and re-read until no new
//   process appears (each found process is stopped at once, so the tree cannot grow meanwhile);
// - the run's marker: a variable with a random value put in the command's environment, inherited
//   by everything it starts — also by a process whose parent died and that was reparented to
//   init before anyone looked, which no ppid link leads to any more.
// What still escapes: a process that both scrubs its environment (`env -i`, or a program that
// execs with a clean environment) and is reparented before the walk. Elsewhere than on Linux,
// only the process group is killed.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/** Name of the environment variable marking a command's processes. */
export const RUN_MARKER_VARIABLE = 'AGENT_STD_SHELL_RUN';

/** A fresh marker value for one command. */
export function newRunMarker(): string {
  return randomBytes(16).toString('hex');
}

const PROC_AVAILABLE = process.platform === 'linux';
/** Rounds of re-reading /proc before giving up on the tree becoming stable. */
const MAX_ROUNDS = 20;

/** One process of /proc: its parent and its start time (to tell a reused pid apart). */
interface ProcessInfo {
  ppid: number;
  /** Clock ticks since boot when it started (`/proc/PID/stat` field 22), as text. */
  start: string;
}

/** A set of processes found: pid → start time. */
export type ProcessSet = Map<number, string>;

/** Every process visible in /proc (those that vanish meanwhile are skipped). */
async function readProcesses(): Promise<Map<number, ProcessInfo>> {
  const processes = new Map<number, ProcessInfo>();
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return processes;
  }
  await Promise.all(
    names.map(async (name) => {
      if (!/^\d+$/.test(name)) return;
      try {
        const stat = await readFile(`/proc/${name}/stat`, 'utf8');
        // pid (comm) state ppid … starttime (field 22): comm may hold spaces and parentheses,
        // so the fields are read after the last ')'. Field 3 (state) is index 0 here.
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        processes.set(Number(name), { ppid: Number(fields[1]), start: fields[19] ?? '' });
      } catch {
        // gone, or not readable
      }
    }),
  );
  return processes;
}

async function carriesMarker(pid: number, marker: Buffer): Promise<boolean> {
  try {
    const environ = await readFile(`/proc/${pid}/environ`);
    // NUL-separated NAME=value entries; the marker may be the first one.
    return (
      environ.indexOf(Buffer.concat([Buffer.from([0]), marker])) !== -1 ||
      environ.subarray(0, marker.byteLength).equals(marker)
    );
  } catch {
    return false; // another user's process, or gone
  }
}

function sendSignal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // ESRCH: already gone
  }
}

/**
 * The processes descended from `rootPid` (by ppid, also in other sessions) or carrying
 * `marker` in their environment, re-reading /proc until the set stops growing. With `stop`,
 * each is sent SIGSTOP as soon as it is found, so none can fork while the walk goes on.
 * `known` (found by an earlier call) are kept, and walked from, while they are the same
 * processes (same start time): their ppid link to the shell may be gone by now.
 * Only processes started no earlier than `since` (the root's start time, from
 * {@link processStartTime}) are looked at: nothing older can descend from the root, and this keeps
 * the environment reads to the few processes the command may have started.
 * Empty where /proc is not available. The caller's own process is never included.
 */
export async function collectDescendants(
  rootPid: number,
  marker: string,
  options: { stop?: boolean; known?: ProcessSet; since?: string | undefined } = {},
): Promise<ProcessSet> {
  const found: ProcessSet = new Map();
  if (!PROC_AVAILABLE) return found;
  const needle = Buffer.from(`${RUN_MARKER_VARIABLE}=${marker}\0`);
  const since = options.since === undefined ? undefined : BigInt(options.since);
  let first = true;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const processes = await readProcesses();
    if (since !== undefined) {
      for (const [pid, { start }] of processes) {
        if (!/^\d+$/.test(start) || BigInt(start) < since) processes.delete(pid);
      }
    }
    if (first) {
      first = false;
      for (const [pid, start] of options.known ?? []) {
        if (processes.get(pid)?.start === start) found.set(pid, start);
      }
    }
    const children = new Map<number, number[]>();
    for (const [pid, { ppid }] of processes) {
      const list = children.get(ppid);
      if (list) list.push(pid);
      else children.set(ppid, [pid]);
    }
    const fresh: number[] = [];
    const take = (pid: number) => {
      const info = processes.get(pid);
      if (pid === process.pid || pid === rootPid || found.has(pid) || !info) return false;
      found.set(pid, info.start);
      fresh.push(pid);
      return true;
    };
    const queue = [rootPid, ...found.keys()];
    for (let at = 0; at < queue.length; at++) {
      for (const child of children.get(queue[at] as number) ?? []) {
        if (take(child)) queue.push(child);
      }
    }
    const unknown = [...processes.keys()].filter(
      (pid) => pid !== process.pid && pid !== rootPid && !found.has(pid),
    );
    const marked = await Promise.all(unknown.map((pid) => carriesMarker(pid, needle)));
    unknown.forEach((pid, index) => {
      if (marked[index]) take(pid);
    });
    if (options.stop) for (const pid of fresh) sendSignal(pid, 'SIGSTOP');
    if (fresh.length === 0) break;
  }
  return found;
}

/**
 * The start time of `pid` (see {@link collectDescendants}'s `since`), or undefined. Read
 * synchronously right after spawning a child, it always succeeds: until Node reaps the child (on
 * the event loop, later), even an exited one keeps its /proc entry.
 */
export function processStartTime(pid: number): string | undefined {
  if (!PROC_AVAILABLE) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    return start !== undefined && /^\d+$/.test(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/** Sends `name` to each process (errors for vanished processes ignored). */
export function signalAll(processes: Iterable<number>, name: NodeJS.Signals): void {
  for (const pid of processes) sendSignal(pid, name);
}
