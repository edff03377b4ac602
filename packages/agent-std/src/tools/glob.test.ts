import { describe, expect, test } from 'vitest';
import { compileGlob, GlobSyntaxError } from './glob.ts';

const matches = (pattern: string, path: string) => compileGlob(pattern).matches(path.split('/'));

describe('file_list glob patterns', () => {
  test.each([
    ['*', 'a.txt', true],
    ['*', '.env', false],
    ['.*', '.env', true],
    ['*.txt', 'a.txt', true],
    ['*.txt', 'a.md', false],
    ['*.txt', 'sub/a.txt', false],
    ['?.txt', 'a.txt', true],
    ['?.txt', 'ab.txt', false],
    ['[ab].txt', 'b.txt', true],
    ['[!ab].txt', 'b.txt', false],
    ['[!ab].txt', 'c.txt', true],
    ['[a-c]*', 'beta', true],
    ['{a,b}.txt', 'b.txt', true],
    ['{a,b}.txt', 'c.txt', false],
    ['**/*.md', 'x.md', true],
    ['**/*.md', 'a/b/c/x.md', true],
    ['**/*.md', 'a/.hidden/x.md', false],
    ['notes/**', 'notes/a/b', true],
    ['sub/*.txt', 'sub/a.txt', true],
    ['a\\*b', 'a*b', true],
    ['a\\*b', 'axb', false],
    ['a(b)+.txt', 'a(b)+.txt', true],
    ['[unclosed', '[unclosed', true],
  ])('%s vs %s -> %s', (pattern, path, expected) => {
    expect(matches(pattern, path)).toBe(expected);
  });

  test('depth and recursion are known ahead, for the folder walk', () => {
    expect(compileGlob('*').maxDepth).toBe(1);
    expect(compileGlob('a/b/*').maxDepth).toBe(3);
    expect(compileGlob('**/*.ts').maxDepth).toBe(Number.POSITIVE_INFINITY);
    expect(compileGlob('*.{ts,md}').recursive).toBe(false);
  });

  test('unusable patterns are refused with a reason', () => {
    expect(() => compileGlob('')).toThrow(GlobSyntaxError);
    expect(() => compileGlob('/etc/*')).toThrow(/relative/);
    expect(() => compileGlob('../*')).toThrow(/\.\./);
    expect(() => compileGlob('{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}')).toThrow(/alternatives/);
  });

  test('many stars against a long name finish (RE2, memoised **); backtracking would hang', () => {
    const name = `${'a'.repeat(5000)}b`;
    expect(matches(`${'*a'.repeat(40)}*c`, name)).toBe(false);
    expect(matches(`${'**/'.repeat(30)}x`, Array(30).fill('d').join('/'))).toBe(false);
  });
});
