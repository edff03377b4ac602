import { describe, expect, test } from 'vitest';
import { type Token, tokenize } from './lexer.ts';
import { isAgentScriptError } from './script-error.ts';

const shapes = (tokens: Token[]) =>
  tokens.map((token) => {
    switch (token.kind) {
      case 'identifier':
      case 'punctuation':
        return token.value;
      case 'number':
        return token.value;
      case 'string':
        return { string: token.value, ...(token.parts ? { parts: token.parts } : {}) };
      case 'template':
        return { template: token.value };
      case 'fstring':
        return { fstring: token.parts };
      default:
        return 'END';
    }
  });

function failure(source: string, dialect: 'agent' | 'nexa' = 'nexa') {
  try {
    tokenize(source, 'x.nx', dialect);
  } catch (error) {
    if (isAgentScriptError(error))
      return { at: `${error.line}:${error.column}`, reason: error.reason };
    throw error;
  }
  throw new Error('no error');
}

describe('tokenize', () => {
  test('block, line and hash comments are skipped; positions and line breaks are kept', () => {
    const tokens = tokenize('/* a\n * b */ x // c\n# d\n  y /* e */ z', 'x.nx', 'nexa');
    expect(shapes(tokens)).toEqual(['x', 'y', 'z', 'END']);
    expect(
      tokens.map((token) => [token.position.line, token.position.column, token.newline]),
    ).toEqual([
      [2, 9, true],
      [4, 3, true],
      [4, 13, false],
      [4, 14, false],
    ]);
  });

  test('operators are read longest first', () => {
    expect(shapes(tokenize('a |>> [b] &>> c >> d |> e || f && g ?? h : i', 'x', 'nexa'))).toEqual([
      'a',
      '|>>',
      '[',
      'b',
      ']',
      '&>>',
      'c',
      '>>',
      'd',
      '|>',
      'e',
      '||',
      'f',
      '&&',
      'g',
      '??',
      'h',
      ':',
      'i',
      'END',
    ]);
    expect(shapes(tokenize('x?; A::B; [a..r]; -> => == != <= >= < > | @ !', 'x', 'nexa'))).toEqual([
      'x',
      '?',
      ';',
      'A',
      '::',
      'B',
      ';',
      '[',
      'a',
      '..',
      'r',
      ']',
      ';',
      '->',
      '=>',
      '==',
      '!=',
      '<=',
      '>=',
      '<',
      '>',
      '|',
      '@',
      '!',
      'END',
    ]);
  });

  test('numbers: integers, decimals, exponents; a unit after a number is refused', () => {
    expect(shapes(tokenize('42 0.5 1e3 7.25E-2', 'x', 'nexa'))).toEqual([
      42,
      0.5,
      1000,
      0.0725,
      'END',
    ]);
    expect(failure('after 30s')).toEqual({ at: '1:7', reason: '"30s" is not a number' });
  });

  test('raw strings keep backslashes; template strings are their own token', () => {
    expect(
      shapes(tokenize(String.raw`r"\d{4}\n" template"""Hi {{name}}""" "a\tb"`, 'x', 'nexa')),
    ).toEqual([
      { string: String.raw`\d{4}\n` },
      { template: 'Hi {{name}}' },
      { string: 'a\tb' },
      'END',
    ]);
  });

  test('nexa strings cut out #{…} with the position of its source; \\#{ stays literal', () => {
    const [token] = tokenize('"Hi #{user.name}, #{xs[0] ?? \'none\'}! \\#{not}"', 'x.nx', 'nexa');
    expect(shapes([token as Token])).toEqual([
      {
        string: "Hi #{user.name}, #{xs[0] ?? 'none'}! #{not}",
        parts: [
          'Hi ',
          { source: 'user.name', position: { line: 1, column: 7 } },
          ', ',
          { source: "xs[0] ?? 'none'", position: { line: 1, column: 21 } },
          '! #{not}',
        ],
      },
    ]);
  });

  test('in the agent dialect #{…} is plain text (existing scripts keep their meaning)', () => {
    expect(shapes(tokenize('"Hi #{name}" "\\#"', 'x.agent', 'agent'))).toEqual([
      { string: 'Hi #{name}' },
      { string: '\\#' },
      'END',
    ]);
  });

  test('triple-quoted strings spanning lines keep interpolation positions', () => {
    const [token] = tokenize('x = """\n  one\n  two #{n}\n"""', 'x.nx', 'nexa').slice(2);
    expect(token).toMatchObject({
      kind: 'string',
      triple: true,
      parts: ['one\ntwo ', { source: 'n', position: { line: 3, column: 9 } }, '\n'],
    });
  });

  test.each([
    ['/* never closed', '1:1', 'unterminated comment: "/*" is never closed by "*/"'],
    ['"a #{b"', '1:4', '"#{" in a string is not closed with "}" before the string ends'],
    ['"a #{b\n}"', '1:4', '"#{" in a string is not closed with "}"'],
    ['x = $', '1:5', 'unexpected character "$"'],
    ['"open', '1:1', 'unterminated string'],
    ['"open\n"', '1:1', 'unterminated string: use triple quotes (""") for text over several lines'],
  ])('%j fails at %s', (source, at, reason) => {
    expect(failure(source)).toEqual({ at, reason });
  });
});
