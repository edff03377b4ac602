// The Linux sandbox of shell_exec: the arguments of bubblewrap (`bwrap`) for one command.
//
// What the command sees:
// - a new mount namespace whose root is an empty tmpfs; the system folders (SYSTEM_FOLDERS) are
//   bound read-only, merged-/usr links (/bin -> usr/bin) recreated as links;
// - the fs root, bound read-write at the path the policy names (the only place writes persist),
//   or read-only when the policy makes the files read-only;
// - a private /tmp (tmpfs), a fresh /proc of its own PID namespace, a minimal /dev;
// - no home folder, no /run, /var, /home, /root, /mnt, /media, /srv: they do not exist inside;
// - secret files of /etc hidden (shadow passwords, SSH host keys, TLS private keys);
// - new PID, IPC and UTS namespaces (and user and cgroup namespaces where the kernel allows);
//   a new network namespace holding only a loopback interface unless the policy allows the
//   network, in which case the host's network namespace is shared and nothing else changes;
// - no capabilities (`--cap-drop ALL`): run as root, bubblewrap would otherwise keep them in the
//   new user namespace, and a process holding CAP_SYS_ADMIN there can remount a read-only bind
//   writable;
// - `--die-with-parent`: when bubblewrap dies (the tool kills it on timeout or abort), the
//   namespace's init gets SIGKILL, and with it every process of the PID namespace — also those
//   that called setsid or double-forked. When the command itself ends, init ends and takes the
//   rest of the namespace along.
//
// `--new-session` is not used: the tool spawns bubblewrap detached (a new session without a
// controlling terminal, so there is no terminal to push keystrokes into), and keeping the command
// in bubblewrap's process group lets the tool stop and signal the whole tree at once.

/** Folders bound read-only into the sandbox, when they exist on the host. */
export const SYSTEM_FOLDERS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
];

/** Secret files and folders of /etc hidden inside the sandbox (an empty file or folder instead). */
export const HIDDEN_SYSTEM_FILES: readonly string[] = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/ssl/private',
];

/** A host path as the sandbox should show it. */
export type HostEntry =
  | { path: string; kind: 'folder' | 'file' }
  | { path: string; kind: 'link'; target: string };

/** Everything {@link bubblewrapArguments} needs to know; paths are absolute. */
export interface BubblewrapLayout {
  /** The fs root as the policy names it: where the command sees it. */
  root: string;
  /** The fs root's real path on the host (what is bound). */
  rootSource: string;
  /** The working folder inside the sandbox (inside `root`). */
  cwd: string;
  /** Bind the fs root read-only (`policy.fs.readOnly`); default read-write. */
  readOnlyRoot?: boolean;
  /** Share the host's network namespace. */
  allowNetwork: boolean;
  /** System folders as found on the host (see {@link SYSTEM_FOLDERS}). */
  systemFolders: readonly HostEntry[];
  /** Secret files found on the host, to be hidden (see {@link HIDDEN_SYSTEM_FILES}). */
  hiddenFiles: readonly HostEntry[];
  /** More paths bound read-only (`policy.shell.readOnlyPaths`, those that exist). */
  readOnlyPaths: readonly HostEntry[];
}

/** One mount operation, placed by the depth of its destination. */
interface Mount {
  destination: string;
  /** Among mounts of the same depth: lower first (the fs root goes over the system folders). */
  rank: number;
  args: string[];
}

const depthOf = (path: string) => (path === '/' ? 0 : path.split('/').length - 1);

/**
 * The bubblewrap arguments that run `/bin/sh -c command` in the sandbox described at the top of
 * this file. Mounts are ordered parents first, so a deeper mount always lands on top of a
 * shallower one, whatever the paths: the fs root under /tmp goes over the private /tmp, an fs
 * root under /usr is writable over the read-only /usr, a hidden file goes over /etc.
 *
 * @example
 * bubblewrapArguments(layout, 'ls -la');
 * // ['--die-with-parent', '--unshare-user-try', …, '--chdir', '/work', '--', '/bin/sh', '-c', 'ls -la']
 */
export function bubblewrapArguments(layout: BubblewrapLayout, command: string): string[] {
  const mounts: Mount[] = [];
  const add = (destination: string, rank: number, ...args: string[]) =>
    mounts.push({ destination, rank, args });
  for (const entry of layout.systemFolders) {
    if (entry.kind === 'link') add(entry.path, 0, '--symlink', entry.target, entry.path);
    else add(entry.path, 0, '--ro-bind', entry.path, entry.path);
  }
  add('/tmp', 0, '--tmpfs', '/tmp');
  add('/proc', 0, '--proc', '/proc');
  add('/dev', 0, '--dev', '/dev');
  for (const entry of layout.readOnlyPaths) {
    add(entry.path, 1, '--ro-bind', entry.path, entry.path);
  }
  add(layout.root, 2, layout.readOnlyRoot ? '--ro-bind' : '--bind', layout.rootSource, layout.root);
  for (const entry of layout.hiddenFiles) {
    if (entry.kind === 'folder') add(entry.path, 3, '--tmpfs', entry.path);
    else add(entry.path, 3, '--ro-bind', '/dev/null', entry.path);
  }
  // Array.prototype.sort is stable: mounts of equal depth and rank keep their order above.
  mounts.sort((a, b) => depthOf(a.destination) - depthOf(b.destination) || a.rank - b.rank);
  return [
    '--die-with-parent',
    '--unshare-user-try',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(layout.allowNetwork ? [] : ['--unshare-net']),
    '--cap-drop',
    'ALL',
    ...mounts.flatMap((mount) => mount.args),
    '--chdir',
    layout.cwd,
    '--',
    '/bin/sh',
    '-c',
    command,
  ];
}
