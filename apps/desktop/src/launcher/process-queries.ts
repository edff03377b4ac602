// How each OS answers "who listens on this port?", "which processes have this name?" and "stop
// this process": the commands to run and how to read their output. Pure functions, so the Windows
// and macOS paths are tested here on Linux with those tools' real output formats.

/** A command to run: a program and its arguments (no shell). */
export interface Command {
  file: string;
  args: string[];
}

/** A process found by name. */
export interface NamedProcess {
  pid: number;
  name: string;
  /** Its executable, where the OS tells it (not tasklist's). */
  path?: string;
}

function pidsOf(values: Iterable<string>): number[] {
  const pids = new Set<number>();
  for (const value of values) {
    const text = value.trim();
    if (/^\d+$/.test(text) && Number(text) > 0) pids.add(Number(text));
  }
  return [...pids];
}

// ------------------------------------------------------------------------------ Linux (/proc)

/**
 * Inodes of the sockets listening on `port` in a /proc/net/tcp or /proc/net/tcp6 table
 * (`sl local_address rem_address st … inode`; addresses are hex `ADDR:PORT`, state 0A is LISTEN).
 */
export function listeningInodes(table: string, port: number): string[] {
  const wanted = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes: string[] = [];
  for (const line of table.split('\n').slice(1)) {
    const columns = line.trim().split(/\s+/);
    const local = columns[1];
    const state = columns[3];
    const inode = columns[9];
    if (!local || !inode || state !== '0A') continue;
    if (local.slice(local.lastIndexOf(':') + 1).toUpperCase() === wanted && inode !== '0') {
      inodes.push(inode);
    }
  }
  return inodes;
}

/** Listening sockets of a /proc/net/tcp or tcp6 table: inode -> port. */
export function listeningPortsByInode(table: string): Map<string, number> {
  const ports = new Map<string, number>();
  for (const line of table.split('\n').slice(1)) {
    const columns = line.trim().split(/\s+/);
    const local = columns[1];
    const inode = columns[9];
    if (!local || !inode || columns[3] !== '0A' || inode === '0') continue;
    const port = Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16);
    if (Number.isInteger(port) && port > 0) ports.set(inode, port);
  }
  return ports;
}

/** The real user id in a /proc/<pid>/status text (`Uid:\treal\teffective\t…`). */
export function procStatusUid(status: string): number | undefined {
  const match = /^Uid:\s+(\d+)/m.exec(status);
  return match ? Number(match[1]) : undefined;
}

/** The inode of a `/proc/<pid>/fd/<n>` link target like `socket:[123456]`. */
export function socketInode(linkTarget: string): string | undefined {
  return /^socket:\[(\d+)\]$/.exec(linkTarget)?.[1];
}

/** The program name of a /proc/<pid>/exe target or argv[0] (`… (deleted)` after an update). */
export function programName(path: string): string {
  const clean = path.replace(/ \(deleted\)$/, '');
  return clean.slice(Math.max(clean.lastIndexOf('/'), clean.lastIndexOf('\\')) + 1);
}

// ------------------------------------------------------------------------------ Windows

/** What PowerShell is told first: write UTF-8, as Node reads it (not the console's code page). */
export const POWERSHELL_UTF8 = '[Console]::OutputEncoding = [System.Text.Encoding]::UTF8; ';

/**
 * PowerShell running `script`, its output in UTF-8: a path or user name such as
 * `C:\Users\张三` must arrive intact (code page 936 would garble it).
 */
function powershellCommand(script: string): Command {
  return {
    file: 'powershell.exe',
    args: ['-NoProfile', '-NonInteractive', '-Command', `${POWERSHELL_UTF8}${script}`],
  };
}

/** PowerShell: the owner of process `pid` as `DOMAIN\user` (nothing when Windows does not say). */
export function windowsProcessOwnerCommand(pid: number): Command {
  return powershellCommand(
    `$p = Get-CimInstance Win32_Process -Filter "ProcessId=${pid}"; if ($p) { $o = Invoke-CimMethod -InputObject $p -MethodName GetOwner; if ($o.ReturnValue -eq 0) { "$($o.Domain)\\$($o.User)" } }`,
  );
}

/** The first non-empty line of {@link windowsProcessOwnerCommand}'s answer. */
export function parseOwnerLine(output: string): string | undefined {
  const line = output
    .split(/\r?\n/)
    .map((entry) => entry.trim())
    .find((entry) => entry !== '' && entry !== '\\');
  return line;
}

/** PowerShell: the processes owning listening sockets on `port` (one pid per line). */
export function windowsPortOwnersCommand(port: number): Command {
  return powershellCommand(
    `Get-NetTCPConnection -State Listen -LocalPort ${port} -ErrorAction SilentlyContinue | Select-Object -ExpandProperty OwningProcess`,
  );
}

/** The fallback where PowerShell is unavailable: every TCP socket with its pid. */
export function netstatCommand(): Command {
  return { file: 'netstat.exe', args: ['-ano', '-p', 'TCP'] };
}

/** Pids in PowerShell's answer (one per line). */
export function parsePidLines(output: string): number[] {
  return pidsOf(output.split(/\r?\n/));
}

/**
 * Pids listening on `port` in `netstat -ano` output. The State column is translated on
 * non-English Windows ("ABHÖREN"), so a listening socket is recognised by its foreign address
 * `0.0.0.0:0` / `[::]:0` instead.
 */
export function parseNetstatListeners(output: string, port: number): number[] {
  const pids: string[] = [];
  for (const line of output.split(/\r?\n/)) {
    const columns = line.trim().split(/\s+/);
    if (columns[0]?.toUpperCase() !== 'TCP' || columns.length < 5) continue;
    const local = columns[1] ?? '';
    const foreign = columns[2] ?? '';
    const pid = columns[columns.length - 1] ?? '';
    const localPort = local.slice(local.lastIndexOf(':') + 1);
    const listening = /^(0\.0\.0\.0|\[::\]|\*):(0|\*)$/.test(foreign);
    if (listening && localPort === String(port)) pids.push(pid);
  }
  return pidsOf(pids);
}

/** PowerShell: the ports process `pid` listens on (one per line). */
export function windowsListeningPortsCommand(pid: number): Command {
  return powershellCommand(
    `Get-NetTCPConnection -State Listen -OwningProcess ${pid} -ErrorAction SilentlyContinue | Select-Object -ExpandProperty LocalPort`,
  );
}

/** Ports process `pid` listens on in `netstat -ano` output (read as {@link parseNetstatListeners}). */
export function parseNetstatPortsOf(output: string, pid: number): number[] {
  const ports = new Set<number>();
  for (const line of output.split(/\r?\n/)) {
    const columns = line.trim().split(/\s+/);
    if (columns[0]?.toUpperCase() !== 'TCP' || columns.length < 5) continue;
    if (columns[columns.length - 1] !== String(pid)) continue;
    if (!/^(0\.0\.0\.0|\[::\]|\*):(0|\*)$/.test(columns[2] ?? '')) continue;
    const local = columns[1] ?? '';
    const port = Number(local.slice(local.lastIndexOf(':') + 1));
    if (Number.isInteger(port) && port > 0) ports.add(port);
  }
  return [...ports];
}

/**
 * PowerShell: the processes with this image name and their executables, one `pid|path` per line
 * (tasklist cannot tell the path; an empty path when Windows does not say, e.g. another user's).
 */
export function windowsProcessPathsCommand(imageName: string): Command {
  return powershellCommand(
    `Get-CimInstance Win32_Process -Filter "Name='${imageName.replaceAll("'", "''")}'" | ForEach-Object { "$($_.ProcessId)|$($_.ExecutablePath)" }`,
  );
}

/** Reads {@link windowsProcessPathsCommand}'s `pid|path` lines. */
export function parsePidPathLines(output: string, name: string): NamedProcess[] {
  const found: NamedProcess[] = [];
  for (const line of output.split(/\r?\n/)) {
    const match = /^\s*(\d+)\|(.*?)\s*$/.exec(line);
    if (!match || Number(match[1]) <= 0) continue;
    found.push({ pid: Number(match[1]), name, ...(match[2] ? { path: match[2] } : {}) });
  }
  return found;
}

/** tasklist, verbose: one process with its user (`DOMAIN\user`, `N/A` when not ours to see). */
export function tasklistUserCommand(pid: number): Command {
  return { file: 'tasklist.exe', args: ['/FI', `PID eq ${pid}`, '/V', '/FO', 'CSV', '/NH'] };
}

/** The "User Name" column (the 7th) of {@link tasklistUserCommand}'s answer. */
export function parseTasklistUser(output: string): string | undefined {
  for (const line of output.split(/\r?\n/)) {
    if (!line.startsWith('"')) continue;
    const fields = [...line.matchAll(/"((?:[^"]|"")*)"/g)].map((match) =>
      (match[1] ?? '').replaceAll('""', '"'),
    );
    const user = fields[6];
    if (user && user !== 'N/A') return user;
  }
  return undefined;
}

/** tasklist: processes with this image name, as CSV without a header. */
export function tasklistCommand(imageName: string): Command {
  return {
    file: 'tasklist.exe',
    args: ['/FI', `IMAGENAME eq ${imageName}`, '/FO', 'CSV', '/NH'],
  };
}

/** Reads tasklist's CSV (`"name","pid","session","#","mem"`); its "no tasks" notice is skipped. */
export function parseTasklistCsv(output: string): NamedProcess[] {
  const found: NamedProcess[] = [];
  for (const line of output.split(/\r?\n/)) {
    if (!line.startsWith('"')) continue;
    const fields = [...line.matchAll(/"((?:[^"]|"")*)"/g)].map((match) =>
      (match[1] ?? '').replaceAll('""', '"'),
    );
    const pid = Number(fields[1]);
    if (fields[0] && Number.isInteger(pid) && pid > 0) found.push({ pid, name: fields[0] });
  }
  return found;
}

/** taskkill for one process tree; without `force`, Windows asks its windows to close first. */
export function taskkillCommand(pid: number, force: boolean): Command {
  return { file: 'taskkill.exe', args: ['/PID', String(pid), '/T', ...(force ? ['/F'] : [])] };
}

/** taskkill for console windows titled `title` (the original's backend ran in one). */
export function taskkillByTitleCommand(title: string): Command {
  return { file: 'taskkill.exe', args: ['/FI', `WINDOWTITLE eq ${title}`, '/T', '/F'] };
}

// ------------------------------------------------------------------------------ macOS

/** lsof: pids listening on `port` (`-t`: pids only; exit code 1 when none). */
export function lsofPortOwnersCommand(port: number): Command {
  return { file: 'lsof', args: ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-t'] };
}

/** lsof: the TCP ports process `pid` listens on (`-Fn`: `n<address>:<port>` lines). */
export function lsofListeningPortsCommand(pid: number): Command {
  return { file: 'lsof', args: ['-nP', '-a', '-p', String(pid), '-iTCP', '-sTCP:LISTEN', '-Fn'] };
}

/** Ports in `lsof -Fn` output. */
export function parseLsofPorts(output: string): number[] {
  const ports = new Set<number>();
  for (const line of output.split('\n')) {
    if (!line.startsWith('n')) continue;
    const port = Number(line.slice(line.lastIndexOf(':') + 1));
    if (Number.isInteger(port) && port > 0) ports.add(port);
  }
  return [...ports];
}

/** ps: the real user id of process `pid`. */
export function psUidCommand(pid: number): Command {
  return { file: 'ps', args: ['-o', 'uid=', '-p', String(pid)] };
}

/** ps: every process with its executable path. */
export function psCommand(): Command {
  return { file: 'ps', args: ['-axo', 'pid=,comm='] };
}

/** Processes named `name` in `ps -axo pid=,comm=` output (comm may be a full path). */
export function parsePsProcesses(output: string, name: string): NamedProcess[] {
  const found: NamedProcess[] = [];
  for (const line of output.split('\n')) {
    const match = /^\s*(\d+)\s+(.+?)\s*$/.exec(line);
    if (!match) continue;
    const program = programName(match[2] ?? '');
    if (program === name) found.push({ pid: Number(match[1]), name: program, path: match[2]! });
  }
  return found;
}
