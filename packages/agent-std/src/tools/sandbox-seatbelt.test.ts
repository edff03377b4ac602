import { describe, expect, test } from 'vitest';
import { seatbeltArguments, seatbeltProfile } from './sandbox-seatbelt.ts';

/** True when every line of a profile is one balanced S-expression (quotes respected). */
function balanced(line: string): boolean {
  let depth = 0;
  let quoted = false;
  for (let index = 0; index < line.length; index++) {
    const character = line[index];
    if (quoted) {
      if (character === '\\') index++;
      else if (character === '"') quoted = false;
    } else if (character === '"') quoted = true;
    else if (character === '(') depth++;
    else if (character === ')' && --depth < 0) return false;
  }
  return depth === 0 && !quoted;
}

describe('sandbox-exec profile', () => {
  test('denies by default and allows only what the sandbox needs', () => {
    const profile = seatbeltProfile({ readOnlyPathCount: 0, allowNetwork: false });
    const lines = profile.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual(['(version 1)', '(deny default)']);
    for (const line of lines) expect(balanced(line), line).toBe(true);
    expect(profile).toContain(
      '(allow file-write* (subpath (param "ROOT")) (subpath (param "TMP")))',
    );
    expect(profile).toContain('(allow signal (target same-sandbox))');
    // Nothing else is writable: the only file-write rules are the root, the temp folder, /dev/null.
    expect(lines.filter((line) => line.includes('file-write'))).toHaveLength(2);
    expect(profile).not.toMatch(/allow network|system-socket|\/Users\/|\/home\//);
  });

  test('with read-only files only the temporary folder is writable', () => {
    const profile = seatbeltProfile({
      readOnlyPathCount: 0,
      allowNetwork: false,
      readOnlyRoot: true,
    });
    const writes = profile.split('\n').filter((line) => line.includes('file-write'));
    expect(writes).toEqual([
      '(allow file-write* (subpath (param "TMP")))',
      '(allow file-write-data (literal "/dev/null") (literal "/dev/zero"))',
    ]);
    expect(profile).toContain('(allow file-read* (subpath (param "ROOT"))');
  });

  test('the network is allowed only when the policy says so', () => {
    const open = seatbeltProfile({ readOnlyPathCount: 0, allowNetwork: true });
    expect(open).toContain('(allow network*)');
    expect(open).toContain('com.apple.trustd');
    expect(seatbeltProfile({ readOnlyPathCount: 0, allowNetwork: false })).not.toContain(
      'com.apple.trustd',
    );
  });

  test('paths are parameters, never part of the profile text', () => {
    const root = '/Users/me/work") (allow file-write* (subpath "/")';
    const args = seatbeltArguments(
      {
        root,
        temporaryFolder: '/private/var/folders/x/T/agent-std-shell-1',
        readOnlyPaths: ['/Users/me/.nvm', '/opt/tools'],
        allowNetwork: false,
      },
      'ls -la',
    );
    const profile = args[1] as string;
    expect(args[0]).toBe('-p');
    expect(profile).not.toContain('/Users/me');
    expect(profile).toContain('(subpath (param "READ_0")) (subpath (param "READ_1"))');
    expect(args.slice(2)).toEqual([
      '-D',
      `ROOT=${root}`,
      '-D',
      'TMP=/private/var/folders/x/T/agent-std-shell-1',
      '-D',
      'READ_0=/Users/me/.nvm',
      '-D',
      'READ_1=/opt/tools',
      '/bin/sh',
      '-c',
      'ls -la',
    ]);
  });
});
