// The macOS sandbox of shell_exec: a sandbox-exec (Seatbelt) profile for one command.
//
// It matches the Linux sandbox (sandbox-bubblewrap.ts) as closely as Seatbelt allows:
// - everything is denied unless allowed below;
// - reading: the system folders (SYSTEM_READ_FOLDERS), the fs root, the command's own temporary
//   folder and the policy's extra read-only paths; file metadata (stat) anywhere, which path
//   lookup needs, but no file contents and no folder listings elsewhere — so no home folder;
// - writing: only the fs root (unless the policy makes the files read-only) and the command's
//   own temporary folder (which the tool creates
//   for the call, points TMPDIR and HOME at, and deletes afterwards: the private /tmp), plus
//   the null device;
// - processes: fork and exec, signals only to processes of the same sandbox;
// - network: nothing unless the policy allows it; then any network use.
//
// Paths are passed as parameters (`-D ROOT=…`), never spliced into the profile text, so no path
// can change the profile. Seatbelt compares real paths (/private/tmp, not /tmp), so the tool
// passes real paths. What Seatbelt cannot do: there is no PID namespace, so ending the command's
// processes relies on the process group (see process-tree.ts), and /tmp itself stays the host's
// (unwritable for the command, but readable names may differ from Linux).

/** Folders commands may read inside the macOS sandbox. */
export const SYSTEM_READ_FOLDERS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/System',
  '/Library',
  '/private/etc',
  '/private/var/db/timezone',
  '/opt/homebrew',
  '/dev',
];

/** Mach services commands may look up: user and group names, notifications, logging. */
const MACH_SERVICES = [
  'com.apple.system.opendirectoryd.libinfo',
  'com.apple.system.opendirectoryd.membership',
  'com.apple.system.notification_center',
  'com.apple.system.logger',
];
/** Mach services needed for name resolution and TLS, allowed with the network. */
const NETWORK_MACH_SERVICES = [
  'com.apple.SystemConfiguration.configd',
  'com.apple.dnssd.service',
  'com.apple.trustd',
  'com.apple.trustd.agent',
];

const quote = (text: string) => `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;

/** What {@link seatbeltProfile} and {@link seatbeltArguments} need; paths are real and absolute. */
export interface SeatbeltLayout {
  /** The fs root (real path): readable and writable. */
  root: string;
  /** The command's own temporary folder (real path): readable and writable. */
  temporaryFolder: string;
  /** More paths readable (`policy.shell.readOnlyPaths`, real paths). */
  readOnlyPaths: readonly string[];
  /** Allow network use. */
  allowNetwork: boolean;
  /** The fs root is readable only (`policy.fs.readOnly`); default readable and writable. */
  readOnlyRoot?: boolean;
}

/**
 * The profile text. It names its paths only as parameters: `ROOT`, `TMP`, and `READ_0`, `READ_1`,
 * … for the extra read-only paths, whose values {@link seatbeltArguments} passes with `-D`.
 */
export function seatbeltProfile(options: {
  readOnlyPathCount: number;
  allowNetwork: boolean;
  readOnlyRoot?: boolean;
}) {
  const extraReads = Array.from(
    { length: options.readOnlyPathCount },
    (_, index) => `(subpath (param "READ_${index}"))`,
  );
  const services = [...MACH_SERVICES, ...(options.allowNetwork ? NETWORK_MACH_SERVICES : [])];
  return [
    '(version 1)',
    '(deny default)',
    '(allow process-fork)',
    '(allow process-exec)',
    '(allow signal (target same-sandbox))',
    '(allow process-info* (target same-sandbox))',
    '(allow sysctl-read)',
    `(allow mach-lookup ${services.map((name) => `(global-name ${quote(name)})`).join(' ')})`,
    '(allow file-read-metadata)',
    `(allow file-read* (literal "/") ${SYSTEM_READ_FOLDERS.map((folder) => `(subpath ${quote(folder)})`).join(' ')})`,
    `(allow file-read* (subpath (param "ROOT")) (subpath (param "TMP"))${extraReads.map((read) => ` ${read}`).join('')})`,
    options.readOnlyRoot
      ? '(allow file-write* (subpath (param "TMP")))'
      : '(allow file-write* (subpath (param "ROOT")) (subpath (param "TMP")))',
    '(allow file-write-data (literal "/dev/null") (literal "/dev/zero"))',
    '(allow file-ioctl (literal "/dev/null") (literal "/dev/zero"))',
    ...(options.allowNetwork ? ['(allow network*)', '(allow system-socket)'] : []),
    '',
  ].join('\n');
}

/** The sandbox-exec arguments that run `/bin/sh -c command` in the profile for `layout`. */
export function seatbeltArguments(layout: SeatbeltLayout, command: string): string[] {
  return [
    '-p',
    seatbeltProfile({
      readOnlyPathCount: layout.readOnlyPaths.length,
      allowNetwork: layout.allowNetwork,
      readOnlyRoot: layout.readOnlyRoot === true,
    }),
    '-D',
    `ROOT=${layout.root}`,
    '-D',
    `TMP=${layout.temporaryFolder}`,
    ...layout.readOnlyPaths.flatMap((path, index) => ['-D', `READ_${index}=${path}`]),
    '/bin/sh',
    '-c',
    command,
  ];
}
