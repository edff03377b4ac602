// Choosing and preparing the OS sandbox a shell_exec command runs in: bubblewrap on Linux
// (sandbox-bubblewrap.ts), sandbox-exec on macOS (sandbox-seatbelt.ts), none elsewhere. Where the
// policy does not say `unsandboxed: true`, a machine without a working sandbox refuses the shell
// with TOOL_SANDBOX_UNAVAILABLE; it never falls back to running commands unsandboxed.
import { execFile } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import { access, lstat, mkdtemp, readdir, readlink, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ToolError } from '../errors.ts';
import type { ResolvedToolPolicy } from '../policy.ts';
import { errorCode, isInside, realRoot } from './fs-guard.ts';
import {
  type BubblewrapLayout,
  bubblewrapArguments,
  HIDDEN_SYSTEM_FILES,
  type HostEntry,
  SYSTEM_FOLDERS,
} from './sandbox-bubblewrap.ts';
import { SYSTEM_READ_FOLDERS, seatbeltArguments } from './sandbox-seatbelt.ts';
import { findExecutable } from './shared.ts';

/** How to start one command: the program, its arguments, and what the sandbox adds. */
export interface PreparedCommand {
  file: string;
  args: string[];
  /** Environment entries the sandbox sets (HOME and TMPDIR point at its private temp folder). */
  env: Record<string, string>;
  /** Removes what was made for this command (the macOS temporary folder); never throws. */
  dispose(): Promise<void>;
}

const SANDBOX_EXEC = '/usr/bin/sandbox-exec';
/** Longest wait for the one-time check that the sandbox works. */
const PROBE_TIMEOUT_MS = 15_000;
/** The command the check runs inside the sandbox. */
const PROBE_COMMAND = 'exit 0';

const nothingToDispose = async () => {};

function unavailable(reason: string): ToolError {
  return new ToolError(
    'TOOL_SANDBOX_UNAVAILABLE',
    `the shell runs commands in an OS sandbox, and ${reason}. Set policy.shell.unsandboxed: true to run commands without a sandbox (they can then do anything your user can).`,
    { tool: 'shell_exec', field: 'policy.shell.unsandboxed' },
  );
}

/** How the host shows `path`: a folder, a file, a link (with its target), or nothing. */
async function inspectHostPath(path: string): Promise<HostEntry | undefined> {
  try {
    const info = await lstat(path);
    if (info.isSymbolicLink()) return { path, kind: 'link', target: await readlink(path) };
    return { path, kind: info.isDirectory() ? 'folder' : 'file' };
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return undefined;
    throw error;
  }
}

async function inspectAll(paths: readonly string[]): Promise<HostEntry[]> {
  const entries = await Promise.all(paths.map(inspectHostPath));
  return entries.filter((entry) => entry !== undefined);
}

/** Secret files of /etc: the fixed list and the SSH host private keys. */
async function hiddenSystemFiles(): Promise<HostEntry[]> {
  let sshKeys: string[] = [];
  try {
    sshKeys = (await readdir('/etc/ssh'))
      .filter((name) => /^ssh_host_.*_key$/.test(name))
      .map((name) => `/etc/ssh/${name}`);
  } catch {
    // no SSH server configuration
  }
  const entries = await inspectAll([...HIDDEN_SYSTEM_FILES, ...sshKeys]);
  // A secret behind a symlink is hidden where the link leads (when that is a system folder).
  const hidden: HostEntry[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'link') hidden.push(entry);
    else {
      const target = await realpath(entry.path).catch(() => undefined);
      const found = target === undefined ? undefined : await inspectHostPath(target);
      if (found && SYSTEM_FOLDERS.some((folder) => isInside(folder, found.path)))
        hidden.push(found);
    }
  }
  return hidden;
}

/**
 * Read-only entries the command needs besides the system folders: the policy's extra paths and,
 * with the network, the real file behind a symlinked /etc/resolv.conf (often under /run).
 */
async function extraReadOnly(policy: ResolvedToolPolicy): Promise<HostEntry[]> {
  const paths = [...policy.shell.readOnlyPaths];
  if (policy.shell.allowNetwork) {
    try {
      const resolver = await realpath('/etc/resolv.conf');
      if (!SYSTEM_FOLDERS.some((folder) => isInside(folder, resolver))) paths.push(resolver);
    } catch {
      // no resolver configuration: name lookups fail as they would on the host
    }
  }
  const entries = await inspectAll(paths);
  // A link is bound by its target: bubblewrap follows it when binding.
  return entries.map((entry) =>
    entry.kind === 'link' ? { path: entry.path, kind: 'file' as const } : entry,
  );
}

/** The fs root's real path and the working folder, or TOOL_BAD_POLICY. */
async function rootAndCwd(policy: ResolvedToolPolicy): Promise<{ source: string; cwd: string }> {
  const { root } = policy.fs;
  const { cwd } = policy.shell;
  const source = await realRoot(root, 'shell_exec');
  if (!isInside(root, cwd)) {
    throw new ToolError(
      'TOOL_BAD_POLICY',
      `policy.shell.cwd (${cwd}) is outside policy.fs.root (${root}); in the sandbox only the fs root is visible`,
      { tool: 'shell_exec', field: 'policy.shell.cwd' },
    );
  }
  return { source, cwd };
}

/** Runs `file args` once and reports how it failed, or undefined when it exited with 0. */
function runProbe(file: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((settle) => {
    execFile(
      file,
      args,
      { timeout: PROBE_TIMEOUT_MS, env: { PATH: '/usr/bin:/bin' } },
      (error, _stdout, stderr) => {
        if (!error) settle(undefined);
        else settle(stderr.trim() || error.message);
      },
    );
  });
}

// Successful checks, by sandbox program and network setting; a failed check is not kept, so a
// machine fixed meanwhile is noticed on the next call.
const probes = new Map<string, Promise<void>>();

function checkOnce(key: string, file: string, args: readonly string[], what: string) {
  let probe = probes.get(key);
  if (!probe) {
    probe = runProbe(file, args).then((failure) => {
      if (failure !== undefined) {
        probes.delete(key);
        throw unavailable(`${what} cannot set it up on this machine: ${failure}`);
      }
    });
    probes.set(key, probe);
  }
  return probe;
}

async function prepareBubblewrap(
  policy: ResolvedToolPolicy,
  command: string,
): Promise<PreparedCommand> {
  const bwrap = await findExecutable('bwrap', process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin');
  if (bwrap === undefined) {
    throw unavailable(
      'bubblewrap (bwrap) is not installed on this machine (not found on PATH; Debian and Ubuntu: apt-get install bubblewrap)',
    );
  }
  const [systemFolders, hiddenFiles, readOnlyPaths, { source, cwd }] = await Promise.all([
    inspectAll(SYSTEM_FOLDERS),
    hiddenSystemFiles(),
    extraReadOnly(policy),
    rootAndCwd(policy),
  ]);
  const layout: BubblewrapLayout = {
    root: policy.fs.root,
    rootSource: source,
    cwd,
    readOnlyRoot: policy.fs.readOnly,
    allowNetwork: policy.shell.allowNetwork,
    systemFolders,
    hiddenFiles,
    readOnlyPaths,
  };
  // The check runs a command that does nothing in the same sandbox. A failure here is the
  // machine's (bubblewrap missing permissions, a namespace the kernel refuses), so it is checked
  // once per network setting; a later failure of one call's mounts shows in that call's stderr.
  await checkOnce(
    `bwrap:${bwrap}:${layout.allowNetwork}`,
    bwrap,
    bubblewrapArguments(layout, PROBE_COMMAND),
    `bubblewrap (${bwrap})`,
  );
  return {
    file: bwrap,
    args: bubblewrapArguments(layout, command),
    env: { HOME: '/tmp', TMPDIR: '/tmp' },
    dispose: nothingToDispose,
  };
}

async function prepareSeatbelt(
  policy: ResolvedToolPolicy,
  command: string,
): Promise<PreparedCommand> {
  try {
    await access(SANDBOX_EXEC, fsConstants.X_OK);
  } catch {
    throw unavailable(`${SANDBOX_EXEC} is missing on this Mac`);
  }
  const { source } = await rootAndCwd(policy);
  const readOnlyPaths: string[] = [];
  for (const path of policy.shell.readOnlyPaths) {
    try {
      readOnlyPaths.push(await realpath(path));
    } catch {
      // a missing path gives nothing to read
    }
  }
  const probeFolder = await realpath(tmpdir());
  await checkOnce(
    `seatbelt:${policy.shell.allowNetwork}`,
    SANDBOX_EXEC,
    seatbeltArguments(
      {
        root: probeFolder,
        temporaryFolder: probeFolder,
        readOnlyPaths: [],
        allowNetwork: policy.shell.allowNetwork,
      },
      PROBE_COMMAND,
    ),
    SANDBOX_EXEC,
  );
  const temporaryFolder = await realpath(await mkdtemp(join(tmpdir(), 'agent-std-shell-')));
  return {
    file: SANDBOX_EXEC,
    args: seatbeltArguments(
      {
        root: source,
        temporaryFolder,
        readOnlyPaths,
        allowNetwork: policy.shell.allowNetwork,
        readOnlyRoot: policy.fs.readOnly,
      },
      command,
    ),
    env: { HOME: temporaryFolder, TMPDIR: temporaryFolder },
    dispose: () => rm(temporaryFolder, { recursive: true, force: true }).catch(() => {}),
  };
}

/**
 * How to run `command` under `policy`: in bubblewrap (Linux) or sandbox-exec (macOS), or with
 * plain `/bin/sh -c` when the policy says `unsandboxed: true`. Fails with
 * `TOOL_SANDBOX_UNAVAILABLE` (naming why, and the `unsandboxed` option) where the sandbox is
 * missing or does not work — checked once per process by running a command in it —, and with
 * `TOOL_BAD_POLICY` when the fs root is missing or the working folder lies outside it.
 */
export async function prepareCommand(
  policy: ResolvedToolPolicy,
  command: string,
): Promise<PreparedCommand> {
  if (policy.shell.unsandboxed) {
    return {
      file: '/bin/sh',
      args: ['-c', command],
      env: {},
      dispose: nothingToDispose,
    };
  }
  if (process.platform === 'linux') return prepareBubblewrap(policy, command);
  if (process.platform === 'darwin') return prepareSeatbelt(policy, command);
  throw unavailable(`there is no sandbox for ${process.platform}`);
}

/**
 * Whether a program at `path` can be seen by sandboxed commands: it lies in a system folder,
 * the fs root or one of the extra read-only paths (always true for unsandboxed commands).
 */
export function visibleInSandbox(path: string, policy: ResolvedToolPolicy): boolean {
  if (policy.shell.unsandboxed) return true;
  const folders = process.platform === 'darwin' ? SYSTEM_READ_FOLDERS : SYSTEM_FOLDERS;
  return [...folders, policy.fs.root, ...policy.shell.readOnlyPaths].some((folder) =>
    isInside(resolve(folder), path),
  );
}
