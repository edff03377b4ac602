// Finding processes on this machine: who listens on a port, which ports a process listens on,
// which processes run a program, and whether a process is this user's. Linux reads /proc; Windows
// and macOS run the commands of process-queries.ts (which also reads their answers).
import { join } from 'node:path';
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
  tasklistCommand,
  tasklistUserCommand,
  windowsListeningPortsCommand,
  windowsPortOwnersCommand,
  windowsProcessOwnerCommand,
  windowsProcessPathsCommand,
} from './process-queries.ts';
import type { LauncherSystem, RunResult } from './system.ts';

/** Runs one of process-queries.ts's commands. */
export function runCommand(system: LauncherSystem, command: Command): Promise<RunResult> {
  return system.run(command.file, command.args);
}

/** True when PowerShell ran and answered (it is missing or blocked on some machines). */
function powershellAnswered(result: RunResult): boolean {
  return !result.error && result.code === 0;
}

/** The IPv4 and IPv6 TCP socket tables of Linux. */
async function procTcpTables(system: LauncherSystem): Promise<string[]> {
  return Promise.all(
    ['/proc/net/tcp', '/proc/net/tcp6'].map(async (table) => (await system.readText(table)) ?? ''),
  );
}

/** The process ids in /proc. */
async function procPids(system: LauncherSystem): Promise<number[]> {
  return (await system.listDir('/proc')).filter((entry) => /^\d+$/.test(entry)).map(Number);
}

/** The inodes of the sockets process `pid` holds (Linux, from its /proc/<pid>/fd links). */
async function socketInodesOf(system: LauncherSystem, pid: number): Promise<string[]> {
  const fdFolder = join('/proc', String(pid), 'fd');
  const inodes: string[] = [];
  for (const fd of await system.listDir(fdFolder)) {
    const inode = socketInode((await system.readLink(join(fdFolder, fd))) ?? '');
    if (inode) inodes.push(inode);
  }
  return inodes;
}

/** The processes listening on `port` (any address). */
export async function findPortOwners(system: LauncherSystem, port: number): Promise<number[]> {
  if (system.platform === 'win32') {
    const powershell = await runCommand(system, windowsPortOwnersCommand(port));
    if (powershellAnswered(powershell)) return parsePidLines(powershell.stdout);
    const netstat = await runCommand(system, netstatCommand());
    return parseNetstatListeners(netstat.stdout, port);
  }
  if (system.platform === 'darwin') {
    return parsePidLines((await runCommand(system, lsofPortOwnersCommand(port))).stdout);
  }
  // Linux: the listening socket's inode in /proc/net/tcp{,6}, then the process holding it.
  const inodes = new Set(
    (await procTcpTables(system)).flatMap((table) => listeningInodes(table, port)),
  );
  if (inodes.size === 0) return [];
  const owners: number[] = [];
  for (const pid of await procPids(system)) {
    if ((await socketInodesOf(system, pid)).some((inode) => inodes.has(inode))) owners.push(pid);
  }
  return owners;
}

/** The TCP ports process `pid` listens on. */
export async function findListeningPorts(system: LauncherSystem, pid: number): Promise<number[]> {
  if (system.platform === 'win32') {
    const powershell = await runCommand(system, windowsListeningPortsCommand(pid));
    if (powershellAnswered(powershell)) return parsePidLines(powershell.stdout);
    return parseNetstatPortsOf((await runCommand(system, netstatCommand())).stdout, pid);
  }
  if (system.platform === 'darwin') {
    return parseLsofPorts((await runCommand(system, lsofListeningPortsCommand(pid))).stdout);
  }
  const portByInode = new Map<string, number>();
  for (const table of await procTcpTables(system)) {
    for (const [inode, port] of listeningPortsByInode(table)) portByInode.set(inode, port);
  }
  const ports = new Set<number>();
  for (const inode of await socketInodesOf(system, pid)) {
    const port = portByInode.get(inode);
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
    if (powershellAnswered(powershell)) return parsePidPathLines(powershell.stdout, `${name}.exe`);
    return parseTasklistCsv((await runCommand(system, tasklistCommand(`${name}.exe`))).stdout);
  }
  if (system.platform === 'darwin') {
    return parsePsProcesses((await runCommand(system, psCommand())).stdout, name);
  }
  const found: NamedProcess[] = [];
  for (const pid of await procPids(system)) {
    const exe = await system.readLink(join('/proc', String(pid), 'exe'));
    const argv0 =
      ((await system.readText(join('/proc', String(pid), 'cmdline'))) ?? '').split('\0')[0] ?? '';
    if ((exe && programName(exe) === name) || (argv0 !== '' && programName(argv0) === name)) {
      const path = exe?.replace(/ \(deleted\)$/, '');
      found.push({ pid, name, ...(path ? { path } : {}) });
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
    const user = powershellAnswered(powershell)
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
