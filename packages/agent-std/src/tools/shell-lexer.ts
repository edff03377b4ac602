/**
 * A lexer for POSIX shell command lines, written for judging commands before they run (see
 * shell-guard.ts). It splits a line the way the shell does — quotes, escapes, `; && || | &`,
 * newlines, parentheses, redirections, comments, `case` patterns — into simple commands, and
 * collects the text of every command substitution (`$(…)`, backticks, `<(…)`/`>(…)`, also inside
 * `${…}` and double quotes, at any depth) so the caller can check those as commands of their own.
 * It runs nothing and expands nothing: parameters stay as written, substitutions become
 * placeholders such as `$(…)`.
 */

/** One simple command of a line: its words and where its redirections go. */
export interface SimpleCommand {
  words: string[];
  /** Per word: written without quotes, escapes or expansions (only such a word can be `if`). */
  plain: boolean[];
  redirects: string[];
  /** Texts fed to the command's stdin by a here-string (`<<< "…"`); also in `redirects`. */
  hereStrings: string[];
  /** True when stdin comes from a pipe (`… | this`). */
  piped: boolean;
  /** A `case` pattern (`a|b)`): words, not a command. */
  pattern: boolean;
}

/** What {@link lexShellCommand} finds in a command line. */
export interface LexedCommandLine {
  commands: SimpleCommand[];
  /** Texts of `$(…)`, backtick and `<(…)`/`>(…)` substitutions, to be checked as commands of their own. */
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

/**
 * Splits a command line into simple commands and collects its substitutions. Any input is
 * accepted: an unterminated construct is reported in `unterminated`, never thrown.
 *
 * @example
 * lexShellCommand('echo "$(id)" > out.txt && ls').commands.map((command) => command.words);
 * // [['echo', '$(…)'], ['ls']]
 */
export function lexShellCommand(command: string): LexedCommandLine {
  const commands: SimpleCommand[] = [];
  const substitutions: string[] = [];
  const unterminated: string[] = [];
  const fresh = (piped: boolean): SimpleCommand => ({
    words: [],
    plain: [],
    redirects: [],
    hereStrings: [],
    piped,
    pattern: false,
  });
  let current = fresh(false);
  let word: string | null = null;
  let wordPlain = true;
  // The operator of a redirection whose target is the next word (`>`, `<<<`, …), if any.
  let redirectPending: string | undefined;
  // After `;;` (or `case … in` ended by a newline), the words up to `)` are a pattern.
  let patternNext = false;
  let index = 0;

  const endWord = () => {
    if (word === null) return;
    if (redirectPending !== undefined) {
      current.redirects.push(word);
      if (redirectPending === '<<<') current.hereStrings.push(word);
      redirectPending = undefined;
    } else {
      current.words.push(word);
      current.plain.push(wordPlain);
    }
    word = null;
    wordPlain = true;
  };
  const endCommand = (piped: boolean) => {
    endWord();
    redirectPending = undefined;
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
      redirectPending = '&>';
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
      redirectPending = operator;
    } else {
      append(character, true);
      index++;
    }
  }
  endCommand(false);
  return { commands, substitutions, unterminated };
}
