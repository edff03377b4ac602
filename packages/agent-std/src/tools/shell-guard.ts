/**
 * A best-effort screen of shell commands for the obviously destructive ones an LLM might emit.
 * It is a tripwire, NOT a sandbox: an enabled shell can do anything the operating-system user can,
 * and a determined author can always disguise a command (`$(printf 'r''m') -rf /`). Run agents
 * with shell access only in a disposable environment, or use `allowCommands`.
 *
 * The command is split like a POSIX shell splits it (quotes, escapes, `; && || | &`, newlines,
 * parentheses, redirections; `$(…)`, backticks and `<(…)`/`>(…)` — also inside `${…}` and double
 * quotes, at any depth —, `sh -c '…'`, `eval …` and `find -exec` are looked into; brace expansion
 * is applied), and each simple command is judged by its name after reserved words (`if`, `then`,
 * `do`, `!`, …), wrappers (`env`, `nohup`, `timeout`, `xargs`, …) and leading `VAR=value`
 * assignments are skipped. The rules are listed in {@link DENY_RULES}.
 */
import { homedir } from 'node:os';

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

interface SimpleCommand {
  words: string[];
  /** Per word: written without quotes, escapes or expansions (only such a word can be `if`). */
  plain: boolean[];
  redirects: string[];
  /** True when stdin comes from a pipe (`… | this`). */
  piped: boolean;
  /** A `case` pattern (`a|b)`): words, not a command. */
  pattern: boolean;
}

interface Parsed {
  commands: SimpleCommand[];
  /** Texts of `$(…)`, backtick and `<(…)`/`>(…)` substitutions, checked as commands of their own. */
  substitutions: string[];
  /** Constructs the text leaves open (a quote, `${`, `$(`, a backtick): not judged reliably. */
  unterminated: string[];
}

// The `skip*` scanners start just after an opening token and return the index just after the
// matching closing token, or -1 when the text ends first. They follow the shell's nesting:
// quotes, `$(…)`, `${…}` and backticks inside one another, so a `)` or `}` in a quoted string
// never closes anything early (and nothing after it can hide from the check). One loop with an
// explicit stack: any depth of nesting, no recursion to overflow.

type Construct = "'" | '"' | '`' | '(' | '{';

function skipConstruct(text: string, index: number, construct: Construct): number {
  const stack: Array<{ kind: Construct; depth: number }> = [{ kind: construct, depth: 1 }];
  const enter = (kind: Construct, width: number) => {
    stack.push({ kind, depth: 1 });
    index += width;
  };
  while (index < text.length) {
    const top = stack[stack.length - 1] as { kind: Construct; depth: number };
    const character = text[index];
    const next = text[index + 1];
    let closed = false;
    if (top.kind === "'") {
      closed = character === "'";
      if (!closed) index++;
    } else if (character === '\\') {
      index += 2;
      continue;
    } else if (top.kind === '`') {
      closed = character === '`';
      if (!closed) index++;
    } else if (top.kind === '"') {
      closed = character === '"';
      if (closed) {
        // handled below
      } else if (character === '`') enter('`', 1);
      else if (character === '$' && (next === '(' || next === '{')) enter(next, 2);
      else index++;
    } else {
      // Inside $(…) or ${…}: quotes open, the other bracket kind nests when it starts with $.
      const open = top.kind;
      const close = open === '(' ? ')' : '}';
      if (character === "'" || character === '"' || character === '`') enter(character, 1);
      else if (character === '$' && (next === '(' || next === '{') && next !== open) {
        enter(next, 2);
      } else if (character === open) {
        top.depth++;
        index++;
      } else if (character === close) {
        top.depth--;
        closed = top.depth === 0;
        if (!closed) index++;
      } else index++;
    }
    if (closed) {
      stack.pop();
      index++;
      if (stack.length === 0) return index;
    }
  }
  return -1;
}

const skipSingle = (text: string, index: number) => skipConstruct(text, index, "'");
const skipBacktick = (text: string, index: number) => skipConstruct(text, index, '`');
const skipDouble = (text: string, index: number) => skipConstruct(text, index, '"');
/** After `(` or `$(`: to the matching `)`. */
const skipParen = (text: string, index: number) => skipConstruct(text, index, '(');
/** After `${`: to the matching `}` (braces nest: `${x:-${y}}`). */
const skipBrace = (text: string, index: number) => skipConstruct(text, index, '{');

/**
 * Finds the command substitutions (`$(…)`, backticks) in text the shell expands: a double-quoted
 * string or the body of a `${…}` — at any depth, since those nest. Quote characters are not
 * taken as quoting here (inside double quotes they are literal): a false alarm at worst.
 */
function collectSubstitutions(text: string, into: string[]): void {
  let index = 0;
  while (index < text.length) {
    const character = text[index];
    if (character === '\\') index += 2;
    else if (character === '$' && text[index + 1] === '(') {
      const end = skipParen(text, index + 2);
      into.push(text.slice(index + 2, end === -1 ? text.length : end - 1));
      index = end === -1 ? text.length : end;
    } else if (character === '`') {
      const end = skipBacktick(text, index + 1);
      into.push(text.slice(index + 1, end === -1 ? text.length : end - 1));
      index = end === -1 ? text.length : end;
    } else index++;
  }
}

// What a word of a double-quoted string reads as, for judging: escapes resolved, substitutions
// shown as placeholders (they are checked separately).
function doubleQuotedText(body: string): string {
  let text = '';
  let index = 0;
  while (index < body.length) {
    const character = body[index] as string;
    const next = body[index + 1];
    if (character === '\\' && next !== undefined) {
      text += '$`"\\\n'.includes(next) ? next : `\\${next}`;
      index += 2;
    } else if (character === '$' && next === '(') {
      const end = skipParen(body, index + 2);
      text += '$(…)';
      index = end === -1 ? body.length : end;
    } else if (character === '`') {
      const end = skipBacktick(body, index + 1);
      text += '`…`';
      index = end === -1 ? body.length : end;
    } else {
      text += character;
      index++;
    }
  }
  return text;
}

const isBlank = (character: string | undefined) =>
  character === undefined || /[\s;&|()<>]/.test(character);

function parse(command: string): Parsed {
  const commands: SimpleCommand[] = [];
  const substitutions: string[] = [];
  const unterminated: string[] = [];
  const fresh = (piped: boolean): SimpleCommand => ({
    words: [],
    plain: [],
    redirects: [],
    piped,
    pattern: false,
  });
  let current = fresh(false);
  let word: string | null = null;
  let wordPlain = true;
  let redirectPending = false;
  // After `;;` (or `case … in` ended by a newline), the words up to `)` are a pattern.
  let patternNext = false;
  let index = 0;

  const endWord = () => {
    if (word === null) return;
    if (redirectPending) {
      current.redirects.push(word);
      redirectPending = false;
    } else {
      current.words.push(word);
      current.plain.push(wordPlain);
    }
    word = null;
    wordPlain = true;
  };
  const endCommand = (piped: boolean) => {
    endWord();
    redirectPending = false;
    if (current.words.length || current.redirects.length) {
      if (!current.pattern) patternNext = current.words[0] === 'case' && current.plain[0] === true;
      commands.push(current);
    }
    current = fresh(piped);
  };
  const append = (text: string, plain: boolean) => {
    word = (word ?? '') + text;
    if (!plain) wordPlain = false;
  };
  /** Reads a construct from `start` with `skip`; returns its body and moves past it. */
  const take = (start: number, skip: (text: string, at: number) => number, what: string) => {
    const end = skip(command, start);
    if (end === -1) unterminated.push(what);
    const body = command.slice(start, end === -1 ? command.length : end - 1);
    index = end === -1 ? command.length : end;
    return body;
  };

  while (index < command.length) {
    const character = command[index] as string;
    const next = command[index + 1];
    if (character === '\\') {
      if (next === '\n') index += 2;
      else {
        append(next ?? '', false);
        index += 2;
      }
    } else if (character === "'") {
      append(take(index + 1, skipSingle, 'a single quote'), false);
    } else if (character === '"') {
      const body = take(index + 1, skipDouble, 'a double quote');
      collectSubstitutions(body, substitutions);
      append(doubleQuotedText(body), false);
    } else if (character === '$' && next === '(') {
      substitutions.push(take(index + 2, skipParen, '$('));
      append('$(…)', false);
    } else if (character === '$' && next === '{') {
      const start = index;
      const body = take(index + 2, skipBrace, '${');
      collectSubstitutions(body, substitutions);
      append(command.slice(start, index), false);
    } else if (character === '`') {
      substitutions.push(take(index + 1, skipBacktick, 'a backtick'));
      append('`…`', false);
    } else if ((character === '<' || character === '>') && next === '(') {
      // Process substitution: the command runs, its output or input is a file name.
      substitutions.push(take(index + 2, skipParen, `${character}(`));
      append(`${character}(…)`, false);
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
    } else if (character === ')' && (patternNext || current.words[0] === 'case')) {
      endWord();
      current.pattern = true;
      patternNext = false;
      endCommand(false);
      index++;
    } else if (character === ';' && next === ';') {
      endCommand(false);
      patternNext = true;
      index += command[index + 2] === '&' ? 3 : 2;
    } else if (character === ';' && next === '&') {
      endCommand(false);
      patternNext = true;
      index += 2;
    } else if (
      character === ';' ||
      character === '&' ||
      character === '\n' ||
      character === '(' ||
      character === ')' ||
      // `{` and `}` are reserved words only standing alone; `{a,b}` is a brace expansion.
      ((character === '{' || character === '}') && word === null && isBlank(next))
    ) {
      endCommand(false);
      index += character === '&' && next === '&' ? 2 : 1;
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
      append(character, true);
      index++;
    }
  }
  endCommand(false);
  return { commands, substitutions, unterminated };
}

const basename = (word: string) => word.slice(word.lastIndexOf('/') + 1);

// Brace expansion (`{rm,-rf,~}`, `{r..r}m`) makes words out of one: expanded before judging, up
// to this many words per command, scanning at most this many characters doing it.
const MAX_EXPANDED_WORDS = 4096;
const MAX_EXPANSION_CHARACTERS = 1_000_000;

interface ExpansionBudget {
  left: number;
  characters: number;
}

/**
 * The brace pairs of a word in one pass: for each `{` that is closed, where its `}` is and where
 * its top-level commas are. Linear, so a word of thousands of braces costs little.
 */
function braceStructure(word: string): Map<number, { close: number; commas: number[] }> {
  const pairs = new Map<number, { close: number; commas: number[] }>();
  const open: Array<{ at: number; commas: number[] }> = [];
  for (let index = 0; index < word.length; index++) {
    const character = word[index];
    if (character === '\\') index++;
    else if (character === '{') open.push({ at: index, commas: [] });
    else if (character === ',') open.at(-1)?.commas.push(index);
    else if (character === '}') {
      const group = open.pop();
      if (group) pairs.set(group.at, { close: index, commas: group.commas });
    }
  }
  return pairs;
}

function braceSequence(body: string): string[] | undefined {
  if (body.length > 40) return undefined;
  const match = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(body);
  if (!match) return undefined;
  const [, from = '', to = '', stepText] = match;
  const numeric = /\d/.test(from);
  if (numeric !== /\d/.test(to)) return undefined;
  const first = numeric ? Number(from) : from.charCodeAt(0);
  const last = numeric ? Number(to) : to.charCodeAt(0);
  const step = Math.abs(Number(stepText ?? 1)) || 1;
  const values: string[] = [];
  const direction = first <= last ? 1 : -1;
  for (let value = first; direction * (last - value) >= 0; value += direction * step) {
    values.push(numeric ? String(value) : String.fromCharCode(value));
    if (values.length > MAX_EXPANDED_WORDS) break;
  }
  return values;
}

/**
 * Expands the brace expressions of one word (`{a,b}`, `{1..3}`), the first one first, as the
 * shell does; `${…}` is a parameter, not a brace expression. A worklist, not recursion, so any
 * number of groups is safe; stops when `budget` runs out (words made, or characters scanned).
 */
function expandBraces(word: string, budget: ExpansionBudget): string[] {
  const out: string[] = [];
  const pending = [word];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    budget.characters -= current.length;
    if (budget.left <= 0 || budget.characters < 0) {
      budget.left = 0;
      break;
    }
    const parts = firstBraceExpansion(current);
    if (parts === undefined) {
      out.push(current);
      budget.left--;
    } else {
      // Reversed onto the stack, so the words come out in order.
      for (let index = parts.length - 1; index >= 0; index--) pending.push(parts[index] as string);
    }
  }
  return out;
}

/** The words the first brace expression of `word` makes, or undefined when there is none. */
function firstBraceExpansion(word: string): string[] | undefined {
  const pairs = braceStructure(word);
  for (let open = 0; open < word.length; open++) {
    const pair = word[open] === '{' ? pairs.get(open) : undefined;
    if (pair === undefined) continue;
    if (word[open - 1] === '$') {
      open = pair.close;
      continue;
    }
    let parts: string[] | undefined;
    if (pair.commas.length > 0) {
      const cuts = [open, ...pair.commas, pair.close];
      parts = cuts.slice(1).map((cut, index) => word.slice((cuts[index] as number) + 1, cut));
    } else parts = braceSequence(word.slice(open + 1, pair.close));
    if (parts === undefined) continue;
    const prefix = word.slice(0, open);
    const suffix = word.slice(pair.close + 1);
    return parts.map((part) => `${prefix}${part}${suffix}`);
  }
  return undefined;
}

/** The words after brace expansion; `complete` is false when the expansion was cut short. */
function expandWords(command: SimpleCommand): {
  words: string[];
  plain: boolean[];
  complete: boolean;
} {
  const budget: ExpansionBudget = {
    left: MAX_EXPANDED_WORDS,
    characters: MAX_EXPANSION_CHARACTERS,
  };
  const words: string[] = [];
  const plain: boolean[] = [];
  command.words.forEach((word, index) => {
    const expanded = word.includes('{') ? expandBraces(word, budget) : [word];
    const same = expanded.length === 1 && expanded[0] === word;
    for (const each of expanded) {
      words.push(each);
      plain.push(same && command.plain[index] === true);
    }
  });
  return { words, plain, complete: budget.left > 0 };
}

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
    const name = basename(rest[0] ?? '');
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

/** `//a/./b/` → `/a/./b` → `/a/b`: the spelling a target is compared in. */
function normalizeTarget(argument: string): string {
  let path = argument.trim().replace(/\/{2,}/g, '/');
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
  if (command.pattern) return undefined;
  const expanded = expandWords(command);
  if (allow && !expanded.complete) {
    return 'a brace expansion too large to check is refused when policy.shell.allowCommands is set';
  }
  return judgeWords(
    skipReserved(expanded.words, expanded.plain),
    command.piped,
    deny,
    depth,
    allow,
  );
}

function judgeWords(
  commandWords: readonly string[],
  piped: boolean,
  deny: ReadonlySet<string>,
  depth: number,
  allow: ReadonlySet<string> | undefined,
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
    if (piped) return `piping into "${name}" runs code that is never shown; refused`;
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
    if (DESTRUCTIVE.has(basename(unwrap(inner).words[0] ?? ''))) destructive = true;
    index = end;
  }
  if (destructive && critical !== undefined) {
    return `find deleting or changing files under "${critical}" is refused`;
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
  if (allow && parsed.unterminated.length > 0) {
    return `an unterminated ${parsed.unterminated[0]} cannot be checked; refused when policy.shell.allowCommands is set`;
  }
  if (allow && parsed.substitutions.length > 0) {
    return 'command substitution ($(…), backticks, <(…) or >(…)) is refused when policy.shell.allowCommands is set';
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
