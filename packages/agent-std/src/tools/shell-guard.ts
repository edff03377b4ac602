/**
 * A best-effort screen of shell commands for the obviously destructive ones an LLM might emit.
 * It is a tripwire, NOT a sandbox: an enabled shell can do anything the operating-system user can,
 * and a determined author can always disguise a command (`$(printf 'r''m') -rf /`). Run agents
 * with shell access only in a disposable environment, or use `allowCommands`.
 *
 * The command is split like a POSIX shell splits it (quotes, escapes, `; && || | &`, newlines,
 * parentheses, redirections, `$(…)` and backticks, `sh -c '…'` and `eval …` are looked into), and
 * each simple command is judged by its name after wrappers (`env`, `nohup`, `timeout`, `xargs`, …)
 * and leading `VAR=value` assignments are skipped. The rules are listed in {@link DENY_RULES}.
 */

/** The built-in deny rules, for documentation (the README lists them). */
export const DENY_RULES: readonly string[] = [
  'privilege escalation: sudo, su, doas, pkexec, run0',
  'disk and file-system tools: mkfs*, mke2fs, mkswap, fdisk, sfdisk, cfdisk, gdisk, parted, wipefs, shred, mount, umount, losetup',
  'power and init: shutdown, reboot, halt, poweroff, init, telinit, and systemctl poweroff|reboot|halt|kexec|suspend|hibernate|rescue|emergency|isolate|default',
  'kernel and accounts: insmod, rmmod, modprobe, passwd, chpasswd, useradd, userdel, usermod, groupdel, visudo, crontab',
  'recursive rm, chmod, chown, chgrp on /, a top-level folder (/etc, /home, …), ~, $HOME, ., .., * — and any --no-preserve-root',
  'dd writing to a device (of=/dev/…)',
  'redirection into a disk or memory device (> /dev/sda, /dev/nvme0n1, /dev/mem, …)',
  'kill -1 / kill -9 -1 (every process of the user), killall5',
  'piping into a shell (curl … | sh): code that is never shown',
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
const WRAPPER_VALUE_OPTIONS: Record<string, Set<string>> = {
  nice: new Set(['-n', '--adjustment']),
  ionice: new Set(['-c', '-n', '-p', '-t']),
  timeout: new Set(['-s', '--signal', '-k', '--kill-after']),
  xargs: new Set(['-I', '-n', '-P', '-L', '-s', '-d', '-E', '-a', '--arg-file', '--delimiter']),
  env: new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string']),
  stdbuf: new Set(['-i', '-o', '-e']),
  watch: new Set(['-n', '--interval', '-d']),
  taskset: new Set(['-c', '-p']),
  chrt: new Set(['-p']),
};

interface SimpleCommand {
  words: string[];
  redirects: string[];
  /** True when stdin comes from a pipe (`… | this`). */
  piped: boolean;
}

interface Parsed {
  commands: SimpleCommand[];
  /** Texts of `$(…)` and backtick substitutions, checked as commands of their own. */
  substitutions: string[];
}

/** Reads a balanced `$(…)` starting after `$(`; returns the inner text and the index after `)`. */
function readSubstitution(text: string, start: number): [string, number] {
  let depth = 1;
  let index = start;
  while (index < text.length) {
    const character = text[index];
    if (character === '\\') index += 2;
    else if (character === "'") {
      const close = text.indexOf("'", index + 1);
      index = close === -1 ? text.length : close + 1;
    } else if (character === '(') {
      depth++;
      index++;
    } else if (character === ')') {
      depth--;
      if (depth === 0) return [text.slice(start, index), index + 1];
      index++;
    } else index++;
  }
  return [text.slice(start), text.length];
}

function parse(command: string): Parsed {
  const commands: SimpleCommand[] = [];
  const substitutions: string[] = [];
  let current: SimpleCommand = { words: [], redirects: [], piped: false };
  let word: string | null = null;
  let redirectPending = false;
  let index = 0;

  const endWord = () => {
    if (word === null) return;
    if (redirectPending) {
      current.redirects.push(word);
      redirectPending = false;
    } else current.words.push(word);
    word = null;
  };
  const endCommand = (piped: boolean) => {
    endWord();
    if (current.words.length || current.redirects.length) commands.push(current);
    current = { words: [], redirects: [], piped };
  };
  const append = (text: string) => {
    word = (word ?? '') + text;
  };

  while (index < command.length) {
    const character = command[index] as string;
    const next = command[index + 1];
    if (character === '\\') {
      if (next === '\n') index += 2;
      else {
        append(next ?? '');
        index += 2;
      }
    } else if (character === "'") {
      const close = command.indexOf("'", index + 1);
      const end = close === -1 ? command.length : close;
      append(command.slice(index + 1, end));
      index = end + 1;
    } else if (character === '"') {
      index++;
      let text = '';
      while (index < command.length && command[index] !== '"') {
        const inner = command[index] as string;
        if (inner === '\\' && index + 1 < command.length) {
          text += command[index + 1];
          index += 2;
        } else if (inner === '$' && command[index + 1] === '(') {
          const [body, after] = readSubstitution(command, index + 2);
          substitutions.push(body);
          text += '$(…)';
          index = after;
        } else if (inner === '`') {
          const close = command.indexOf('`', index + 1);
          const end = close === -1 ? command.length : close;
          substitutions.push(command.slice(index + 1, end));
          text += '`…`';
          index = end + 1;
        } else {
          text += inner;
          index++;
        }
      }
      append(text);
      index++;
    } else if (character === '$' && next === '(') {
      const [body, after] = readSubstitution(command, index + 2);
      substitutions.push(body);
      append('$(…)');
      index = after;
    } else if (character === '`') {
      const close = command.indexOf('`', index + 1);
      const end = close === -1 ? command.length : close;
      substitutions.push(command.slice(index + 1, end));
      append('`…`');
      index = end + 1;
    } else if (character === '$' && next === '{') {
      const close = command.indexOf('}', index + 2);
      const end = close === -1 ? command.length : close + 1;
      append(command.slice(index, end));
      index = end;
    } else if (character === '#' && word === null) {
      const newline = command.indexOf('\n', index);
      index = newline === -1 ? command.length : newline;
    } else if (character === ' ' || character === '\t') {
      endWord();
      index++;
    } else if (character === '|') {
      const isOr = next === '|';
      endCommand(!isOr);
      index += isOr || next === '&' ? 2 : 1;
    } else if (character === '&' && next === '>') {
      endWord();
      redirectPending = true;
      index += command[index + 2] === '>' ? 3 : 2;
    } else if (
      character === ';' ||
      character === '&' ||
      character === '\n' ||
      character === '(' ||
      character === ')' ||
      ((character === '{' || character === '}') && word === null)
    ) {
      endCommand(false);
      index += (character === '&' && next === '&') || (character === ';' && next === ';') ? 2 : 1;
    } else if (character === '>' || character === '<') {
      if (word !== null && /^\d+$/.test(word)) word = null; // a file-descriptor number
      endWord();
      let end = index + 1;
      while (end < command.length && /[<>&|]/.test(command[end] as string)) end++;
      const operator = command.slice(index, end);
      index = end;
      if (operator.endsWith('&')) {
        // >&2, <&0: a descriptor, not a file; `>& file` still names a file.
        const fd = /^\s*(\d+|-)/.exec(command.slice(index));
        if (fd) {
          index += fd[0].length;
          continue;
        }
      }
      redirectPending = true;
    } else {
      append(character);
      index++;
    }
  }
  endCommand(false);
  return { commands, substitutions };
}

const basename = (word: string) => word.slice(word.lastIndexOf('/') + 1);

function isCriticalTarget(argument: string): boolean {
  const trimmed = argument.trim();
  if (trimmed === '') return false;
  const path = trimmed.length > 1 ? trimmed.replace(/\/+$/, '') || '/' : trimmed;
  const home = /^(~|\$HOME|\$\{HOME\})(\/\*?)?$/;
  if (home.test(path) || home.test(trimmed)) return true;
  if (['/', '/*', '.', './*', '..', '../*', '*', '.*', '/.', '//'].includes(path)) return true;
  // A top-level folder or everything in it: /etc, /home/, /usr/*.
  return /^\/+[^/]+(\/\*?)?$/.test(trimmed);
}

function hasRecursiveFlag(words: readonly string[]): boolean {
  return words.some((word) => word === '--recursive' || /^-[a-zA-Z]*[rR][a-zA-Z]*$/.test(word));
}

/** Skips wrappers and assignments; returns the words of the command that really runs. */
function effectiveWords(words: readonly string[]): string[] {
  let rest = [...words];
  for (let guard = 0; guard < 16; guard++) {
    while (rest.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0] as string)) rest = rest.slice(1);
    const name = basename(rest[0] ?? '');
    if (!WRAPPERS.has(name)) return rest;
    const valueOptions = WRAPPER_VALUE_OPTIONS[name] ?? new Set<string>();
    let at = 1;
    while (at < rest.length) {
      const word = rest[at] as string;
      if (word === '--') {
        at++;
        break;
      }
      if (valueOptions.has(word)) at += 2;
      else if (word.startsWith('-') || (name === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word))) {
        at++;
      } else break;
    }
    if (name === 'timeout' && at < rest.length) at++; // the duration
    if (name === 'flock' && at < rest.length) at++; // the lock file
    rest = rest.slice(at);
  }
  return rest;
}

function judge(
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
  if (allow) {
    const first = command.words.find((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
    const name = basename(first ?? '');
    if (name === '') return undefined;
    if (['eval', 'exec', 'source', '.'].includes(name)) {
      return `"${name}" is refused when policy.shell.allowCommands is set`;
    }
    if (!allow.has(name)) {
      return `"${name}" is not in policy.shell.allowCommands (${[...allow].join(', ')})`;
    }
  }
  const words = effectiveWords(command.words);
  const name = basename(words[0] ?? '');
  if (name === '') return undefined;
  const args = words.slice(1);
  if (ALWAYS_DENIED.has(name) || name.startsWith('mkfs')) return `"${name}" is refused`;
  if (deny.has(name)) return `"${name}" is refused by policy.shell.denyCommands`;
  if (SHELLS.has(name)) {
    const script = args.indexOf('-c');
    if (script !== -1 && args[script + 1] !== undefined) {
      return checkShellCommandAt(args[script + 1] as string, deny, allow, depth + 1);
    }
    if (command.piped) return `piping into "${name}" runs code that is never shown; refused`;
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
  const parsed = parse(command);
  if (allow && parsed.substitutions.length > 0) {
    return 'command substitution ($(…) or backticks) is refused when policy.shell.allowCommands is set';
  }
  for (const simple of parsed.commands) {
    const reason = judge(simple, deny, depth, allow);
    if (reason) return reason;
  }
  for (const inner of parsed.substitutions) {
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
