import { describe, expect, test } from 'vitest';
import { type BubblewrapLayout, bubblewrapArguments } from './sandbox-bubblewrap.ts';

const layout: BubblewrapLayout = {
  root: '/tmp/work',
  rootSource: '/tmp/work',
  cwd: '/tmp/work/src',
  allowNetwork: false,
  systemFolders: [
    { path: '/usr', kind: 'folder' },
    { path: '/bin', kind: 'link', target: 'usr/bin' },
    { path: '/etc', kind: 'folder' },
  ],
  hiddenFiles: [
    { path: '/etc/shadow', kind: 'file' },
    { path: '/etc/ssl/private', kind: 'folder' },
  ],
  readOnlyPaths: [{ path: '/opt/tools', kind: 'folder' }],
};

/** The mount operations in order, one string each. */
function mounts(args: readonly string[]): string[] {
  const found: string[] = [];
  const widths: Record<string, number> = {
    '--ro-bind': 2,
    '--bind': 2,
    '--symlink': 2,
    '--tmpfs': 1,
    '--proc': 1,
    '--dev': 1,
  };
  for (let index = 0; index < args.length; index++) {
    const width = widths[args[index] as string];
    if (width === undefined) continue;
    found.push(args.slice(index, index + width + 1).join(' '));
    index += width;
  }
  return found;
}

describe('bubblewrap arguments', () => {
  test('namespaces, no capabilities, dies with its parent; the command comes last, after --', () => {
    const args = bubblewrapArguments(layout, '-x; echo "$HOME" | cat');
    expect(args.slice(0, 10)).toEqual([
      '--die-with-parent',
      '--unshare-user-try',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      '--unshare-net',
      '--cap-drop',
      'ALL',
      '--ro-bind',
    ]);
    expect(args.slice(-6)).toEqual([
      '--chdir',
      '/tmp/work/src',
      '--',
      '/bin/sh',
      '-c',
      '-x; echo "$HOME" | cat',
    ]);
  });

  test('with read-only files the fs root is bound read-only, in the same place', () => {
    const writable = mounts(bubblewrapArguments(layout, 'true'));
    const readOnly = mounts(bubblewrapArguments({ ...layout, readOnlyRoot: true }, 'true'));
    expect(writable).toContain('--bind /tmp/work /tmp/work');
    expect(readOnly).toEqual(
      writable.map((mount) =>
        mount === '--bind /tmp/work /tmp/work' ? '--ro-bind /tmp/work /tmp/work' : mount,
      ),
    );
  });

  test('with the network allowed, the host network namespace is shared and nothing else changes', () => {
    const closed = bubblewrapArguments(layout, 'true');
    const open = bubblewrapArguments({ ...layout, allowNetwork: true }, 'true');
    expect(closed).toContain('--unshare-net');
    expect(open).not.toContain('--unshare-net');
    expect(closed.filter((arg) => arg !== '--unshare-net')).toEqual(open);
  });

  test('mounts go parents first: the root lands on the private /tmp, hidden files on /etc', () => {
    expect(mounts(bubblewrapArguments(layout, 'true'))).toEqual([
      '--ro-bind /usr /usr',
      '--symlink usr/bin /bin',
      '--ro-bind /etc /etc',
      '--tmpfs /tmp',
      '--proc /proc',
      '--dev /dev',
      '--ro-bind /opt/tools /opt/tools',
      '--bind /tmp/work /tmp/work',
      '--ro-bind /dev/null /etc/shadow',
      '--tmpfs /etc/ssl/private',
    ]);
  });

  test('a root inside a system folder is writable over it; a root that is /tmp goes over the tmpfs', () => {
    expect(
      mounts(
        bubblewrapArguments(
          { ...layout, root: '/usr/local/work', rootSource: '/srv/real', cwd: '/usr/local/work' },
          'true',
        ),
      ).slice(-3),
    ).toEqual([
      '--ro-bind /dev/null /etc/shadow',
      '--bind /srv/real /usr/local/work',
      '--tmpfs /etc/ssl/private',
    ]);
    const atTmp = mounts(
      bubblewrapArguments({ ...layout, root: '/tmp', rootSource: '/tmp', cwd: '/tmp' }, 'true'),
    );
    expect(atTmp.indexOf('--bind /tmp /tmp')).toBeGreaterThan(atTmp.indexOf('--tmpfs /tmp'));
  });

  test('a root of / is bound first, and the system folders stay read-only over it', () => {
    const all = mounts(
      bubblewrapArguments({ ...layout, root: '/', rootSource: '/', cwd: '/' }, 'true'),
    );
    expect(all[0]).toBe('--bind / /');
    expect(all.indexOf('--ro-bind /usr /usr')).toBeGreaterThan(0);
  });
});
