import type { FStringPart, ScriptDialect } from './ast.ts';
import { AgentScriptError, type Position } from './script-error.ts';

/** A `#{expression}` inside a nexa string: its source text and where that text starts. */
interface InterpolationSource {
  source: string;
  position: Position;
}

interface TokenBase {
  position: Position;
  /** A line break separates this token from the one before it. */
  newline: boolean;
}

export type Token = TokenBase &
  (
    | { kind: 'identifier'; value: string }
    | {
        kind: 'string';
        value: string;
        triple: boolean;
        /** `r"…"`: no escapes, no interpolation. */
        raw: boolean;
        /** Set for a nexa string with `#{…}`: text and interpolations in order. */
        parts?: Array<string | InterpolationSource>;
      }
    | { kind: 'fstring'; parts: FStringPart[] }
    | { kind: 'template'; value: string }
    | { kind: 'number'; value: number; text: string }
    | { kind: 'punctuation'; value: string }
    | { kind: 'end' }
  );

type WithoutNewline<T> = T extends unknown ? Omit<T, 'newline'> : never;

/** Operators, longest first so `|>>` wins over `|>` and `||`. */
const OPERATORS = [
  '|>>',
  '&>>',
  '>>',
  '|>',
  '||',
  '&&',
  '??',
  '::',
  '..',
  '->',
  '=>',
  '==',
  '!=',
  '<=',
  '>=',
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  ',',
  ':',
  ';',
  '=',
  '.',
  '+',
  '-',
  '*',
  '/',
  '%',
  '<',
  '>',
  '!',
  '?',
  '@',
  '|',
];

/** Stand-ins for escaped braces (\{ \}) and, in nexa strings, \# until placeholders are found. */
const OPEN_BRACE = '\uE000';
const CLOSE_BRACE = '\uE001';
const HASH = '\uE002';
/** Marks where a `#{…}` interpolation was cut out of a nexa string. */
const SLOT = '\uE003';
const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '0': '\0',
  '\\': '\\',
  '"': '"',
  "'": "'",
  '{': OPEN_BRACE,
  '}': CLOSE_BRACE,
  '\n': '',
};

/** Removes the common leading indentation of a triple-quoted string's lines. */
function dedent(text: string): string {
  const body = text.startsWith('\n') ? text.slice(1) : text;
  const lines = body.split('\n');
  const indents = lines
    .filter((line) => line.trim() !== '')
    .map((line) => /^[ \t]*/.exec(line)?.[0].length ?? 0);
  const common = indents.length ? Math.min(...indents) : 0;
  const result = lines.map((line) =>
    line.slice(Math.min(common, /^[ \t]*/.exec(line)?.[0].length ?? 0)),
  );
  // A closing """ on its own line leaves an indentation-only last line: drop it.
  if (result.length > 1 && result.at(-1)?.trim() === '') result[result.length - 1] = '';
  return result.join('\n');
}

const restore = (text: string) =>
  text.replaceAll(OPEN_BRACE, '{').replaceAll(CLOSE_BRACE, '}').replaceAll(HASH, '#');

/**
 * Splits a script into tokens. Comments are `#`, `//` and `/* … *\/`. Strings are "…" or '…',
 * triple-quoted """…""" (first line break and common indentation removed), f"…{name}…",
 * r"…" (raw) and template"""…""". In the nexa dialect, `#{…}` in a string is an interpolation.
 * `start` places the first character (for re-reading an interpolation's source).
 */
export function tokenize(
  source: string,
  fileName: string,
  dialect: ScriptDialect,
  start: Position = { line: 1, column: 1 },
): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  let line = start.line;
  let column = start.column;
  let newline = false;
  const here = (): Position => ({ line, column });
  const fail = (reason: string, position: Position = here()): never => {
    throw new AgentScriptError(reason, position, fileName);
  };
  const advance = (count = 1) => {
    for (let step = 0; step < count; step++) {
      if (source[index] === '\n') {
        line++;
        column = 1;
        newline = true;
      } else column++;
      index++;
    }
  };
  const push = (token: WithoutNewline<Token>) => {
    tokens.push({ ...token, newline } as Token);
    newline = false;
  };

  /** Reads a `#{…}` interpolation's source up to its matching brace (strings inside skipped). */
  const readInterpolation = (quote: string, triple: boolean, opening: Position): string => {
    let depth = 1;
    let text = '';
    for (;;) {
      if (index >= source.length || (!triple && source[index] === '\n')) {
        fail('"#{" in a string is not closed with "}"', opening);
      }
      if (triple ? source.startsWith(quote.repeat(3), index) : source[index] === quote) {
        fail('"#{" in a string is not closed with "}" before the string ends', opening);
      }
      const current = source[index] as string;
      if (current === '"' || current === "'") {
        // A string inside the interpolation (other quote than the enclosing one).
        const inner = current;
        text += inner;
        advance();
        while (index < source.length && source[index] !== inner && source[index] !== '\n') {
          text += source[index];
          advance();
        }
        if (source[index] !== inner) fail('unterminated string inside "#{…}"', opening);
        text += inner;
        advance();
        continue;
      }
      if (current === '{') depth++;
      if (current === '}' && --depth === 0) {
        advance();
        return text;
      }
      text += current;
      advance();
    }
  };

  while (index < source.length) {
    const character = source[index] as string;
    if (character === ' ' || character === '\t' || character === '\r' || character === '\n') {
      advance();
      continue;
    }
    if (character === '#' || (character === '/' && source[index + 1] === '/')) {
      while (index < source.length && source[index] !== '\n') advance();
      continue;
    }
    if (character === '/' && source[index + 1] === '*') {
      const opening = here();
      advance(2);
      while (index < source.length && !source.startsWith('*/', index)) advance();
      if (index >= source.length)
        fail('unterminated comment: "/*" is never closed by "*/"', opening);
      advance(2);
      continue;
    }
    const begin = here();
    const prefix = /^(f|F|r|template)(?=["'])/.exec(source.slice(index, index + 10))?.[1];
    if (character === '"' || character === "'" || prefix !== undefined) {
      if (prefix) advance(prefix.length);
      const isFormat = prefix === 'f' || prefix === 'F';
      const raw = prefix === 'r' || prefix === 'template';
      const quote = source[index] as string;
      const triple = source.startsWith(quote.repeat(3), index);
      advance(triple ? 3 : 1);
      // Escapes are resolved; escaped braces stay marked so f-strings keep them literal.
      let text = '';
      const placeholderPositions: Position[] = [];
      const interpolations: InterpolationSource[] = [];
      const interpolates = dialect === 'nexa' && !isFormat && !raw;
      for (;;) {
        if (index >= source.length) {
          fail(`unterminated ${triple ? 'triple-quoted ' : ''}string`, begin);
        }
        if (triple ? source.startsWith(quote.repeat(3), index) : source[index] === quote) {
          advance(triple ? 3 : 1);
          break;
        }
        const current = source[index] as string;
        if (current === '\n' && !triple) {
          fail('unterminated string: use triple quotes (""") for text over several lines', begin);
        }
        if (current === '\\' && !raw) {
          const next = source[index + 1] ?? '';
          const escaped = interpolates && next === '#' ? HASH : ESCAPES[next];
          if (escaped !== undefined) {
            text += escaped;
            advance(2);
          } else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(index + 2, index + 6))) {
            text += String.fromCharCode(Number.parseInt(source.slice(index + 2, index + 6), 16));
            advance(6);
          } else {
            text += '\\';
            advance();
          }
          continue;
        }
        if (interpolates && current === '#' && source[index + 1] === '{') {
          const opening = here();
          advance(2);
          const position = here();
          interpolations.push({ source: readInterpolation(quote, triple, opening), position });
          text += SLOT;
          continue;
        }
        if (current === '{') placeholderPositions.push(here());
        text += current;
        advance();
      }
      if (triple) text = dedent(text);
      if (prefix === 'template') {
        push({ kind: 'template', value: text, position: begin });
        continue;
      }
      if (!isFormat) {
        const token = {
          kind: 'string' as const,
          value: restore(text),
          triple,
          raw,
          position: begin,
        };
        if (interpolations.length === 0) {
          push(token);
          continue;
        }
        const parts: Array<string | InterpolationSource> = [];
        text.split(SLOT).forEach((piece, at) => {
          if (piece) parts.push(restore(piece));
          const interpolation = interpolations[at];
          if (interpolation) parts.push(interpolation);
        });
        // The value reads as written; the parts are what runs.
        const value = parts
          .map((part) => (typeof part === 'string' ? part : `#{${part.source}}`))
          .join('');
        push({ ...token, value, parts });
        continue;
      }
      // f-string: {name} placeholders, {{ and }} for literal braces.
      const parts: FStringPart[] = [];
      let literal = '';
      let placeholder = 0;
      for (let at = 0; at < text.length; at++) {
        const current = text[at] as string;
        if (current === OPEN_BRACE || current === CLOSE_BRACE) {
          literal += current === OPEN_BRACE ? '{' : '}';
        } else if (current === '{' && text[at + 1] === '{') {
          literal += '{';
          at++;
          placeholder += 2;
        } else if (current === '}' && text[at + 1] === '}') {
          literal += '}';
          at++;
        } else if (current === '{') {
          const position = placeholderPositions[placeholder++] ?? begin;
          const close = text.indexOf('}', at);
          if (close === -1)
            fail('"{" in an f-string is not closed: write {{ for a literal brace', position);
          const name = text.slice(at + 1, close).trim();
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
            fail(`f-string placeholder {${name}} must be a variable name`, position);
          }
          if (literal) parts.push(literal);
          literal = '';
          parts.push({ name, position: { line: position.line, column: position.column + 1 } });
          at = close;
        } else if (current === '}') {
          fail('single "}" in an f-string: write }} for a literal brace', begin);
        } else {
          literal += current;
        }
      }
      if (literal) parts.push(literal);
      push({ kind: 'fstring', parts, position: begin });
      continue;
    }
    if (/[A-Za-z_]/.test(character)) {
      let end = index;
      while (end < source.length && /[A-Za-z0-9_]/.test(source[end] as string)) end++;
      push({ kind: 'identifier', value: source.slice(index, end), position: begin });
      advance(end - index);
      continue;
    }
    if (/[0-9]/.test(character)) {
      const text = /^[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(source.slice(index))?.[0] ?? '';
      if (/[A-Za-z_]/.test(source[index + text.length] ?? '')) {
        fail(`"${source.slice(index, index + text.length + 1)}" is not a number`, begin);
      }
      push({ kind: 'number', value: Number(text), text, position: begin });
      advance(text.length);
      continue;
    }
    const operator = OPERATORS.find((candidate) => source.startsWith(candidate, index));
    if (operator) {
      push({ kind: 'punctuation', value: operator, position: begin });
      advance(operator.length);
      continue;
    }
    fail(`unexpected character "${character}"`);
  }
  push({ kind: 'end', position: here() });
  return tokens;
}

/** How a token is named in an error message. */
export function describeToken(token: Token): string {
  switch (token.kind) {
    case 'identifier':
    case 'punctuation':
      return `"${token.value}"`;
    case 'number':
      return `the number ${token.text}`;
    case 'string':
    case 'fstring':
    case 'template':
      return 'a string';
    default:
      return 'the end of the file';
  }
}
