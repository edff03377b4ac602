// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell parameter expansions (${…}), on purpose.
import { describe, expect, test } from 'vitest';
import { lexShellCommand } from './shell-lexer.ts';

const words = (line: string) => lexShellCommand(line).commands.map((command) => command.words);

describe('shell lexer', () => {
  test('splits on ; && || | & and newlines, and marks commands fed by a pipe', () => {
    const { commands } = lexShellCommand('a 1; b && c || d | e & f\ng');
    expect(commands.map((command) => command.words)).toEqual([
      ['a', '1'],
      ['b'],
      ['c'],
      ['d'],
      ['e'],
      ['f'],
      ['g'],
    ]);
    expect(commands.map((command) => command.piped)).toEqual([
      false,
      false,
      false,
      false,
      true,
      false,
      false,
    ]);
  });

  test('quotes and escapes join into one word that is no longer plain', () => {
    const [command] = lexShellCommand(`r'm' "-r"f \\/ if`).commands;
    expect(command?.words).toEqual(['rm', '-rf', '/', 'if']);
    expect(command?.plain).toEqual([false, false, false, true]);
    expect(words('echo a\\\nb')).toEqual([['echo', 'ab']]);
  });

  test('double quotes resolve their escapes and keep other backslashes', () => {
    expect(words('echo "a\\"b\\$c\\x"')).toEqual([['echo', 'a"b$c\\x']]);
  });

  test('redirection targets are not words; descriptor duplications are not files', () => {
    const [command] = lexShellCommand('cat < in.txt > out.txt 2>&1 >> log &> all 2> err').commands;
    expect(command?.words).toEqual(['cat']);
    expect(command?.redirects).toEqual(['in.txt', 'out.txt', 'log', 'all', 'err']);
  });

  test('a here-string is a redirection whose text is also kept as stdin', () => {
    const [command] = lexShellCommand('sh <<< "rm -rf /tmp/x" > out').commands;
    expect(command?.words).toEqual(['sh']);
    expect(command?.hereStrings).toEqual(['rm -rf /tmp/x']);
    expect(command?.redirects).toEqual(['rm -rf /tmp/x', 'out']);
  });

  test('substitutions become placeholders and are collected, at any nesting', () => {
    const lexed = lexShellCommand('echo $(id) `who` "$(date)" ${x:-$(uname)} <(ls) >(wc)');
    expect(lexed.commands[0]?.words).toEqual([
      'echo',
      '$(…)',
      '`…`',
      '$(…)',
      '${x:-$(uname)}',
      '<(…)',
      '>(…)',
    ]);
    expect(lexed.substitutions.sort()).toEqual(['date', 'id', 'ls', 'uname', 'wc', 'who']);
    expect(lexShellCommand('echo $(echo ")"; rm x)').substitutions).toEqual(['echo ")"; rm x']);
  });

  test('comments end at the line end; a # inside a word is a character', () => {
    expect(words('ls # rm -rf /\necho a#b')).toEqual([['ls'], ['echo', 'a#b']]);
  });

  test('case patterns are words, not commands; the commands after them are', () => {
    const { commands } = lexShellCommand('case $x in a|b) rm y;; *) ls;; esac');
    expect(commands.map((command) => [command.pattern, command.words])).toEqual([
      [false, ['case', '$x', 'in', 'a']],
      [true, ['b']],
      [false, ['rm', 'y']],
      [true, ['*']],
      [false, ['ls']],
      [false, ['esac']],
    ]);
  });

  test('braces are reserved words only standing alone', () => {
    expect(words('{ ls; }')).toEqual([['ls']]);
    expect(words('echo {a,b}')).toEqual([['echo', '{a,b}']]);
  });

  test('what the line leaves open is reported, never thrown', () => {
    for (const [line, what] of [
      ['echo "abc', 'a double quote'],
      ["echo 'abc", 'a single quote'],
      ['echo $(ls', '$('],
      ['echo ${x', '${'],
      ['echo `ls', 'a backtick'],
      ['cat <(ls', '<('],
    ]) {
      expect(lexShellCommand(line as string).unterminated, line).toEqual([what]);
    }
    expect(lexShellCommand('echo "ok"').unterminated).toEqual([]);
  });

  test('any depth of nesting is read without a stack overflow', () => {
    const deep = `echo ${'"$('.repeat(100_000)}`;
    expect(() => lexShellCommand(deep)).not.toThrow();
    expect(lexShellCommand(deep).unterminated).toHaveLength(1);
  });
});
