/**
 * A best-effort screen of shell commands for the obviously destructive ones an LLM might emit,
 * refused with a message saying why before anything runs. It is a tripwire, NOT the protection:
 * a determined author can always disguise a command (`$(printf 'r''m') -rf /`, or any program
 * that deletes files). What confines a command is the OS sandbox it runs in (sandbox.ts); with
 * `policy.shell.unsandboxed` this screen is all there is, so use `allowCommands` there.
 *
 * The command is split like a POSIX shell splits it (quotes, escapes, `; && || | &`, newlines,
 * parentheses, redirections; `$(…)`, backticks and `<(…)`/`>(…)` — also inside `${…}` and double
 * quotes, at any depth —, `sh -c '…'`, `eval …` and `find -exec` are looked into; brace expansion
 * is applied), and each simple command is judged by its name after reserved words (`if`, `then`,
 * `do`, `!`, …), wrappers (`env`, `nohup`, `timeout`, `xargs`, …) and leading `VAR=value`
 * assignments are skipped. The rules are listed in {@link DENY_RULES}.
 */
import { homedir } from 'node:os';
import { posix } from 'node:path';
import { expandCommandWords } from './brace-expansion.ts';
import { lexShellCommand, type SimpleCommand } from './shell-lexer.ts';

/** The built-in deny rules, for documentation (the README lists them). */
export const DENY_RULES: readonly string[] = [
  'privilege escalation: sudo, su, doas, pkexec, run0',
  'disk and file-system tools: mkfs*, mke2fs, mkswap, fdisk, sfdisk, cfdisk, gdisk, parted, wipefs, shred, mount, umount, losetup',
  'power and init: shutdown, reboot, halt, poweroff, init, telinit, and systemctl poweroff|reboot|halt|kexec|suspend|hibernate|rescue|emergency|isolate|default',
  'kernel and accounts: insmod, rmmod, modprobe, passwd, chpasswd, useradd, userdel, usermod, groupdel, visudo, crontab',
  'recursive rm, chmod, chown, chgrp on /, a top-level folder (/etc, /home, …), a home folder (~, ~user, $HOME, its expanded path, /home/NAME, /Users/NAME), ., .., * or everything inside one of them — and any --no-preserve-root',
  'find deleting (-delete) or running rm, chmod, chown, … (-exec) under such a folder; commands run by find -exec are judged like any other',
  'dd writing to a device (of=/dev/…)',
  'redirection into a disk or memory device (> /dev/sda, /dev/nvme0n1, /dev/mem, …)',
  'kill -1 / kill -9 -1 (every process of the user), killall5',
  'piping into a shell (curl … | sh) or running one on a process substitution (sh <(curl …), source <(…)): code that is never shown; a here-string given to a shell (sh <<< "…") is judged like sh -c',
  'targets are judged with `..` resolved (/tmp/.. is /) and with variables assigned earlier in the line put in (X=/; rm -rf $X)',
  'fork bombs (a function that pipes into itself in the background)',
];

const ALWAYS_DENIED = new Set([
  'sudo',
  'su',
  'doas',
  'pkexec',
  'run0',
  'mke2fs',
  'mkswap',
  'fdisk',
  'sfdisk',
  'cfdisk',
  'gdisk',
  'parted',
  'wipefs',
  'shred',
  'mount',
  'umount',
  'losetup',
  'shutdown',
  'reboot',
  'halt',
  'poweroff',
  'init',
  'telinit',
  'insmod',
  'rmmod',
  'modprobe',
  'passwd',
  'chpasswd',
  'useradd',
  'userdel',
  'usermod',
  'groupdel',
  'visudo',
  'crontab',
  'killall5',
]);

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'csh', 'tcsh', 'ash']);
const SYSTEMCTL_DENIED = new Set([
  'poweroff',
  'reboot',
  'halt',
  'kexec',
  'suspend',
  'hibernate',
  'hybrid-sleep',
  'rescue',
  'emergency',
  'isolate',
  'default',
  'soft-reboot',
]);
/** Wrappers whose first non-option argument is the command that really runs. */
const WRAPPERS = new Set([
  'command',
  'builtin',
  'exec',
  'nohup',
  'time',
  'nice',
  'ionice',
  'stdbuf',
  'setsid',
  'env',
  'timeout',
  'xargs',
  'busybox',
  'unbuffer',
  'chrt',
  'taskset',
  'watch',
  'flock',
]);
/** Options of wrappers that take a separate value (`nice -n 5`, `timeout -s KILL 5`). */
const WRAPPER_VALUE_OPTIONS = new Map<string, Set<string>>([
  ['nice', new Set(['-n', '--adjustment'])],
  ['ionice', new Set(['-c', '-n', '-p', '-t'])],
  ['timeout', new Set(['-s', '--signal', '-k', '--kill-after'])],
  ['xargs', new Set(['-I', '-n', '-P', '-L', '-s', '-d', '-E', '-a', '--arg-file', '--delimiter'])],
  ['env', new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string'])],
  ['stdbuf', new Set(['-i', '-o', '-e'])],
  ['watch', new Set(['-n', '--interval', '-d'])],
  ['taskset', new Set(['-c', '-p'])],
  ['chrt', new Set(['-p'])],
]);

/** The program a command word names: `/usr/bin/rm` is `rm`. */
const programName = (word: string) => word.slice(word.lastIndexOf('/') + 1);

/** Reserved words that open or continue a compound command: the command follows them. */
const LEADING_RESERVED = new Set([
  '!',
  '{',
  '}',
  'if',
  'then',
  'elif',
  'else',
  'fi',
  'do',
  'done',
  'while',
  'until',
  'esac',
  'coproc',
  'time',
]);
/** Reserved words whose words are not a command (`for x in a b`, `case $x in`, `[[ … ]]`). */
const HEADER_RESERVED = new Set(['for', 'select', 'case', '[[']);

/**
 * Skips the reserved words a command starts with (only unquoted ones are reserved: `'if'` is a
 * program name). Returns the words of the command, or none for the header of a `for`, `select`,
 * `case` or `[[`, whose words are data (their substitutions are checked on their own).
 */
function skipReserved(words: readonly string[], plain: readonly boolean[]): string[] {
  let at = 0;
  while (at < words.length && plain[at] === true) {
    const word = words[at] as string;
    if (HEADER_RESERVED.has(word)) return [];
    if (word === 'function')
      at += 2; // function NAME
    else if (word === 'time') {
      at++;
      if (words[at] === '-p') at++;
    } else if (LEADING_RESERVED.has(word)) at++;
    else break;
  }
  return words.slice(at);
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * Follows the wrappers of a command (`env`, `nohup`, `timeout 5`, `time -p`, …) and the leading
 * assignments. Returns every command name met, wrappers first, and the words of the command that
 * really runs.
 */
function unwrap(words: readonly string[]): { names: string[]; words: string[] } {
  const names: string[] = [];
  let rest = [...words];
  for (let guard = 0; guard < 16; guard++) {
    while (rest.length && ASSIGNMENT.test(rest[0] as string)) rest = rest.slice(1);
    if (rest[0] === '!') rest = rest.slice(1);
    const name = programName(rest[0] ?? '');
    if (name === '') break;
    names.push(name);
    if (!WRAPPERS.has(name)) break;
    const valueOptions = WRAPPER_VALUE_OPTIONS.get(name) ?? new Set<string>();
    let at = 1;
    while (at < rest.length) {
      const word = rest[at] as string;
      if (word === '--') {
        at++;
        break;
      }
      if (valueOptions.has(word)) at += 2;
      else if (word.startsWith('-') || (name === 'env' && ASSIGNMENT.test(word))) {
        at++;
      } else break;
    }
    if (name === 'timeout' && at < rest.length) at++; // the duration
    if (name === 'flock' && at < rest.length) at++; // the lock file
    rest = rest.slice(at);
  }
  return { names, words: rest };
}

const HOME_FORMS = /^(~[A-Za-z0-9._-]*|\$HOME|\$\{HOME\})$/;

/** `//a/./b/../c/` → `/a/c`: the spelling a target is compared in. */
function normalizeTarget(argument: string): string {
  // `..` and `.` segments resolved: `/tmp/..` is `/`, `build/../..` is `..`.
  let path = posix.normalize(argument.trim());
  for (;;) {
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    else if (path.length > 2 && path.endsWith('/.')) path = path.slice(0, -2);
    else return path;
  }
}

/** Home folders as expanded paths: this user's (`os.homedir()`, `$HOME`). */
function homeFolders(): Set<string> {
  const folders = new Set<string>();
  for (const folder of [homedir(), process.env.HOME]) {
    if (folder && folder !== '/') folders.add(normalizeTarget(folder));
  }
  return folders;
}

/**
 * A target whose recursive removal (or chmod/chown) wrecks the system or a user: `/`, a top-level
 * folder, a home folder (`~`, `~user`, `$HOME`, the expanded path, `/home/NAME`, `/Users/NAME`),
 * `.`, `..`, `*` — or everything inside one of them (`/home/alice/*`).
 */
function isCriticalTarget(argument: string): boolean {
  const path = normalizeTarget(argument);
  if (path === '') return false;
  const inside = /^(.*?)\/\.?\*$/.exec(path); // X/* or X/.*
  if (inside) return inside[1] === '' || isCriticalTarget(inside[1] as string);
  if (['/', '.', '..', '*', '.*', '/.'].includes(path)) return true;
  if (HOME_FORMS.test(path)) return true;
  if (/^\/[^/]+$/.test(path)) return true; // a top-level folder: /etc, /home
  if (/^\/(home|Users)\/[^/]+$/.test(path)) return true;
  return homeFolders().has(path);
}

function hasRecursiveFlag(words: readonly string[]): boolean {
  return words.some((word) => word === '--recursive' || /^-[a-zA-Z]*[rR][a-zA-Z]*$/.test(word));
}

const FIND_ACTIONS_RUNNING = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const FIND_NAME_TESTS = /^-(i?name|i?path|i?wholename|i?regex)$/;
const DESTRUCTIVE = new Set(['rm', 'chmod', 'chown', 'chgrp', 'shred', 'unlink', 'rmdir']);

function judgeCommand(
  command: SimpleCommand,
  deny: ReadonlySet<string>,
  depth: number,
  allow: ReadonlySet<string> | undefined,
): string | undefined {
  for (const target of command.redirects) {
    if (/^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|dm-|md\d|loop|mem$|kmem$|port$)/.test(target)) {
      return `writing to the device ${target} is refused`;
    }
  }
  if (command.pattern) return undefined;
  const expanded = expandCommandWords(command.words, command.plain);
  if (allow && !expanded.complete) {
    return 'a brace expansion too large to check is refused when policy.shell.allowCommands is set';
  }
  return judgeWords(
    skipReserved(expanded.words, expanded.plain),
    command.piped,
    deny,
    depth,
    allow,
    command.hereStrings,
  );
}

function judgeWords(
  commandWords: readonly string[],
  piped: boolean,
  deny: ReadonlySet<string>,
  depth: number,
  allow: ReadonlySet<string> | undefined,
  hereStrings: readonly string[] = [],
): string | undefined {
  const { names, words } = unwrap(commandWords);
  if (allow) {
    // Every program of a wrapper chain runs: `nohup rm` needs rm allowed as well as nohup.
    for (const name of names) {
      if (['eval', 'exec', 'source', '.'].includes(name)) {
        return `"${name}" is refused when policy.shell.allowCommands is set`;
      }
      if (!allow.has(name)) {
        return `"${name}" is not in policy.shell.allowCommands (${[...allow].join(', ')})`;
      }
    }
  }
  const name = programName(words[0] ?? '');
  if (name === '') return undefined;
  const args = words.slice(1);
  if (ALWAYS_DENIED.has(name) || name.startsWith('mkfs')) return `"${name}" is refused`;
  if (deny.has(name)) return `"${name}" is refused by policy.shell.denyCommands`;
  if (SHELLS.has(name)) {
    const script = args.indexOf('-c');
    if (script !== -1 && args[script + 1] !== undefined) {
      return checkShellCommandAt(args[script + 1] as string, deny, allow, depth + 1);
    }
    if (args.includes('<(…)')) {
      return `"${name}" running the output of a process substitution <(…) runs code that is never shown; refused`;
    }
    // A shell reading its script from a here-string runs that text: judged like `sh -c`.
    for (const text of hereStrings) {
      const reason = checkShellCommandAt(text, deny, allow, depth + 1);
      if (reason) return reason;
    }
    if (piped) return `piping into "${name}" runs code that is never shown; refused`;
  }
  if ((name === 'source' || name === '.') && args[0] === '<(…)') {
    return `"${name} <(…)" runs code that is never shown; refused`;
  }
  if (name === 'eval') return checkShellCommandAt(args.join(' '), deny, allow, depth + 1);
  if (args.includes('--no-preserve-root')) return '--no-preserve-root is refused';
  if (
    (name === 'rm' || name === 'chmod' || name === 'chown' || name === 'chgrp') &&
    hasRecursiveFlag(args)
  ) {
    const target = args.find((argument) => !argument.startsWith('-') && isCriticalTarget(argument));
    if (target !== undefined) return `recursive ${name} on "${target}" is refused`;
  }
  if (name === 'find') return judgeFind(args, deny, depth, allow);
  if (name === 'dd' && args.some((argument) => /^of=\/dev\//.test(argument))) {
    return 'dd writing to a device is refused';
  }
  if (name === 'kill' || name === 'pkill') {
    let rest = args;
    if (rest[0] === '-s' || rest[0] === '-n') rest = rest.slice(2);
    else if (rest.length > 1 && rest[0]?.startsWith('-') && rest[0] !== '--') rest = rest.slice(1);
    if (rest[0] === '--') rest = rest.slice(1);
    if (rest.includes('-1')) return `"${name} -1" (every process) is refused`;
  }
  if (name === 'systemctl' && args.some((argument) => SYSTEMCTL_DENIED.has(argument))) {
    return `systemctl ${args.find((argument) => SYSTEMCTL_DENIED.has(argument))} is refused`;
  }
  return undefined;
}

/**
 * `find` deletes (`-delete`) and runs commands (`-exec CMD … ;`): the commands are judged like any
 * other, and deleting or running rm/chmod/… under a critical start path is refused. `.` counts
 * as critical only when no name or path test narrows what is found.
 */
function judgeFind(
  args: readonly string[],
  deny: ReadonlySet<string>,
  depth: number,
  allow: ReadonlySet<string> | undefined,
): string | undefined {
  let at = 0;
  while (at < args.length && /^-[HLP]$|^-O\d$|^-D$/.test(args[at] as string)) {
    at += args[at] === '-D' ? 2 : 1;
  }
  const starts: string[] = [];
  while (at < args.length && !/^[-(!]/.test(args[at] as string)) starts.push(args[at++] as string);
  if (starts.length === 0) starts.push('.');
  const narrowed = args.some((argument) => FIND_NAME_TESTS.test(argument));
  const critical = starts.find(
    (start) => isCriticalTarget(start) && !(narrowed && normalizeTarget(start) === '.'),
  );
  let destructive = args.includes('-delete');
  for (let index = at; index < args.length; index++) {
    if (!FIND_ACTIONS_RUNNING.has(args[index] as string)) continue;
    let end = index + 1;
    while (end < args.length && args[end] !== ';' && args[end] !== '+') end++;
    const inner = args.slice(index + 1, end);
    const reason = judgeWords(inner, false, deny, depth + 1, allow);
    if (reason) return reason;
    if (DESTRUCTIVE.has(programName(unwrap(inner).words[0] ?? ''))) destructive = true;
    index = end;
  }
  if (destructive && critical !== undefined) {
    return `find deleting or changing files under "${critical}" is refused`;
  }
  return undefined;
}

/** Records `NAME=value` when a command is nothing but plain assignments. */
function rememberAssignments(command: SimpleCommand, variables: Map<string, string>): void {
  if (command.words.length === 0) return;
  if (!command.words.every((word) => ASSIGNMENT.test(word) && !word.includes('$('))) return;
  for (const word of command.words) {
    const equals = word.indexOf('=');
    variables.set(word.slice(0, equals), word.slice(equals + 1));
  }
}

/** The command with `$NAME` and `${NAME}` of remembered variables replaced by their values. */
function withVariables(command: SimpleCommand, variables: ReadonlyMap<string, string>) {
  if (variables.size === 0) return command;
  const words = command.words.map((word) =>
    word.replace(
      /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g,
      (whole, braced, bare) => {
        const value = variables.get((braced ?? bare) as string);
        return value ?? whole;
      },
    ),
  );
  return { ...command, words };
}

function hasForkBomb(command: string): boolean {
  if (/:\s*\(\s*\)\s*\{/.test(command)) return true;
  const compact = command.replace(/\s+/g, '');
  for (const match of command.matchAll(/([A-Za-z_][\w-]*)\s*\(\s*\)\s*\{/g)) {
    const name = match[1] as string;
    if (compact.includes(`${name}|${name}&`) || compact.includes(`${name}|${name}}`)) return true;
  }
  return false;
}

function checkShellCommandAt(
  command: string,
  deny: ReadonlySet<string>,
  allow: ReadonlySet<string> | undefined,
  depth: number,
): string | undefined {
  if (depth > 8) return 'the command nests shells too deeply to be checked';
  if (hasForkBomb(command)) return 'a fork bomb is refused';
  const lexed = lexShellCommand(command);
  if (allow && lexed.unterminated.length > 0) {
    return `an unterminated ${lexed.unterminated[0]} cannot be checked; refused when policy.shell.allowCommands is set`;
  }
  if (allow && lexed.substitutions.length > 0) {
    return 'command substitution ($(…), backticks, <(…) or >(…)) is refused when policy.shell.allowCommands is set';
  }
  // Plain assignments standing alone (`X=/; rm -rf $X`) are remembered and put into the later
  // words of the line, so a target spelled through a variable is judged by its value.
  const variables = new Map<string, string>();
  for (const simple of lexed.commands) {
    const reason = judgeCommand(withVariables(simple, variables), deny, depth, allow);
    if (reason) return reason;
    rememberAssignments(simple, variables);
  }
  for (const inner of lexed.substitutions) {
    const reason = checkShellCommandAt(inner, deny, allow, depth + 1);
    if (reason) return reason;
  }
  return undefined;
}

/**
 * Returns why `command` is refused, or `undefined` when it may run. `denyCommands` adds command
 * names to refuse; `allowCommands`, when given, is the only set of names that may run.
 */
export function checkShellCommand(
  command: string,
  options: { denyCommands?: readonly string[]; allowCommands?: readonly string[] | undefined } = {},
): string | undefined {
  const deny = new Set(options.denyCommands ?? []);
  const allow = options.allowCommands ? new Set(options.allowCommands) : undefined;
  return checkShellCommandAt(command, deny, allow, 0);
}
