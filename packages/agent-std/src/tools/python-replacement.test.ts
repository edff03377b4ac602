import { describe, expect, test } from 'vitest';
import {
  expandReplacement,
  parsePythonReplacement,
  ReplacementTemplateError,
} from './python-replacement.ts';

/** The replacement for one match whose groups are `groups` (index 0: the whole match). */
function expand(
  template: string,
  groups: Array<string | null>,
  named: Record<string, number> = {},
) {
  const parts = parsePythonReplacement(template, groups.length - 1, named);
  return expandReplacement(parts, (index) => groups[index] ?? null);
}

describe("Python's re.sub replacement templates", () => {
  test('groups by number, by \\g<number>, by name; \\g<0> is the whole match', () => {
    expect(expand('\\2-\\1 \\g<1>\\g<0> \\g<host>', ['ada@home', 'ada', 'home'], { host: 2 })).toBe(
      'home-ada adaada@home home',
    );
  });

  test('two digits are one group number; three octal digits are a character', () => {
    const groups = ['abcdefghijkl', ...'abcdefghijkl'];
    expect(expand('\\12\\1', groups)).toBe('la');
    expect(expand('\\101\\0\\07', ['x'])).toBe('A\0\x07');
  });

  test('a group that took no part in the match inserts nothing', () => {
    expect(expand('[\\2|\\1]', ['a', 'a', null])).toBe('[|a]');
  });

  test('control escapes and a backslash; $ and other escapes stay as written', () => {
    expect(expand('\\n\\t\\\\ $1 $& \\& \\.', ['a', 'a'])).toBe('\n\t\\ $1 $& \\& \\.');
  });

  test.each([
    ['\\2', 'invalid group reference 2'],
    ['\\g<2>', 'invalid group reference 2'],
    ['\\g<x>', 'unknown group name "x"'],
    ['\\g<1a>', 'bad character in group name "1a"'],
    ['\\g<>', 'missing group name'],
    ['\\g<1', 'missing >, unterminated name'],
    ['\\g1', 'missing < after \\g'],
    ['\\q', 'bad escape \\q'],
    ['x\\', 'bad escape (end of pattern)'],
    ['\\777', 'octal escape value \\777 outside of range'],
  ])('%s is refused as Python refuses it: %s', (template, message) => {
    expect(() => parsePythonReplacement(template, 1, {})).toThrowError(ReplacementTemplateError);
    expect(() => parsePythonReplacement(template, 1, {})).toThrowError(message);
  });
});
