import { describe, expect, test } from 'vitest';
import { pythonClassesForRe2 } from './python-regex.ts';
import { re2 } from './re2.ts';

/** Every match of a Python pattern, rewritten for RE2. */
function findAll(pattern: string, text: string): string[] {
  const matcher = re2().compile(pythonClassesForRe2(pattern)).matcher(text);
  const found: string[] = [];
  while (matcher.find()) found.push(matcher.group() ?? '');
  return found;
}

describe("Python's Unicode \\d \\w \\s in RE2", () => {
  test('\\w and \\W: letters and numbers of any script, and _', () => {
    expect(findAll('\\w+', '你好 world_1 café')).toEqual(['你好', 'world_1', 'café']);
    expect(findAll('\\W+', 'a, 你!')).toEqual([', ', '!']);
  });

  test('\\d and \\D: decimal digits of any script', () => {
    expect(findAll('\\d+', 'x٣4')).toEqual(['٣4']);
    expect(findAll('\\D+', 'x٣4y')).toEqual(['x', 'y']);
  });

  test("\\s and \\S: Python's whitespace, \\v and the ideographic space included", () => {
    expect(findAll('\\s', 'a\u3000b\vc d')).toEqual(['\u3000', '\v', ' ']);
    expect(findAll('\\S+', 'a\u3000b')).toEqual(['a', 'b']);
  });

  test('inside classes, and escapes and "]" first in a class left alone', () => {
    expect(findAll('[\\w-]+', 'ab-你 c')).toEqual(['ab-你', 'c']);
    expect(findAll('[^\\d]+', 'a1b٣c')).toEqual(['a', 'b', 'c']);
    expect(findAll('[]a]+', 'a]]b')).toEqual(['a]]']);
    expect(findAll('\\\\w', 'x\\wy')).toEqual(['\\w']);
  });
});
