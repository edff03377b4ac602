import { execFileSync } from 'node:child_process';
import {
  chmod,
  link,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { ToolPolicy } from '../policy.ts';
import { createToolbox } from '../toolbox.ts';

let base: string;
let root: string;
let outside: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'agent-std-fs-'));
  root = join(base, 'root');
  outside = join(base, 'outside');
  await mkdir(root);
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'top secret');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const toolbox = (fs: ToolPolicy['fs'] = {}) =>
  createToolbox({ uses: ['std.fs'], policy: { fs: { root, ...fs } } });

describe('hard links (a name inside the root for a file outside it)', () => {
  beforeEach(async () => {
    await link(join(outside, 'secret.txt'), join(root, 'linked.txt'));
  });

  test('reading and appending through a hard link are refused; the file outside is unchanged', async () => {
    const fs = toolbox();
    await expect(fs.call('file_read', { path: 'linked.txt' })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
      field: 'path',
      message: expect.stringMatching(/2 hard links.*policy\.fs\.allowHardLinks/),
    });
    await expect(
      fs.call('file_append', { path: 'linked.txt', content: ' leaked' }),
    ).rejects.toMatchObject({ code: 'TOOL_POLICY_DENIED', field: 'path' });
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
  });

  test('writing replaces the name with a new file: the file outside keeps its content', async () => {
    const fs = toolbox();
    await fs.call('file_write', { path: 'linked.txt', content: 'new' });
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
    expect((await stat(join(outside, 'secret.txt'))).nlink).toBe(1);
    expect(await fs.call('file_read', { path: 'linked.txt' })).toBe('new');
  });

  test('deleting removes only the name inside the root', async () => {
    await toolbox().call('file_delete', { path: 'linked.txt' });
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
  });

  test('policy.fs.allowHardLinks lets them be read and appended to', async () => {
    const fs = toolbox({ allowHardLinks: true });
    expect(await fs.call('file_read', { path: 'linked.txt' })).toBe('top secret');
    await fs.call('file_append', { path: 'linked.txt', content: '!' });
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret!');
  });

  test('a file with a single link is read and appended to as before', async () => {
    const fs = toolbox();
    await fs.call('file_append', { path: 'single.txt', content: 'a' });
    await fs.call('file_append', { path: 'single.txt', content: 'b' });
    expect(await fs.call('file_read', { path: 'single.txt' })).toBe('ab');
  });
});

describe('fs confinement (each test tries to escape the root)', () => {
  test('".." paths are refused for reading, writing, appending, listing and deleting', async () => {
    const fs = toolbox();
    const denied = { code: 'TOOL_POLICY_DENIED', field: 'path' };
    await expect(fs.call('file_read', { path: '../outside/secret.txt' })).rejects.toMatchObject(
      denied,
    );
    await expect(
      fs.call('file_read', { path: 'a/b/../../../outside/secret.txt' }),
    ).rejects.toMatchObject(denied);
    await expect(
      fs.call('file_write', { path: '../outside/new.txt', content: 'x' }),
    ).rejects.toMatchObject(denied);
    await expect(
      fs.call('file_append', { path: '../outside/secret.txt', content: 'x' }),
    ).rejects.toMatchObject(denied);
    await expect(fs.call('file_delete', { path: '../outside/secret.txt' })).rejects.toMatchObject(
      denied,
    );
    await expect(fs.call('file_list', { directory: '..' })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
      field: 'directory',
    });
    expect(await readdir(outside)).toEqual(['secret.txt']);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
  });

  test('absolute paths outside the root are refused; inside it they work', async () => {
    const fs = toolbox();
    await expect(fs.call('file_read', { path: '/etc/passwd' })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
    });
    await expect(fs.call('file_read', { path: join(outside, 'secret.txt') })).rejects.toMatchObject(
      { code: 'TOOL_POLICY_DENIED' },
    );
    await writeFile(join(root, 'inside.txt'), 'hello');
    expect(await fs.call('file_read', { path: join(root, 'inside.txt') })).toBe('hello');
  });

  test('a sibling folder sharing the root as a prefix (/root-evil for /root) is outside', async () => {
    const evil = `${root}-evil`;
    await mkdir(evil);
    await writeFile(join(evil, 'loot.txt'), 'loot');
    const fs = toolbox();
    await expect(fs.call('file_read', { path: join(evil, 'loot.txt') })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
    });
    await expect(fs.call('file_read', { path: '../root-evil/loot.txt' })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
    });
    await expect(
      fs.call('file_write', { path: join(evil, 'planted.txt'), content: 'x' }),
    ).rejects.toMatchObject({ code: 'TOOL_POLICY_DENIED' });
    expect(await readdir(evil)).toEqual(['loot.txt']);
  });

  test('a symlinked folder leading out is refused, also for files that do not exist yet', async () => {
    await symlink(outside, join(root, 'link'));
    const fs = toolbox();
    await expect(fs.call('file_read', { path: 'link/secret.txt' })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
      message: expect.stringContaining('symbolic link'),
    });
    await expect(
      fs.call('file_write', { path: 'link/planted.txt', content: 'x' }),
    ).rejects.toMatchObject({ code: 'TOOL_POLICY_DENIED' });
    await expect(
      fs.call('file_write', { path: 'link/deeper/planted.txt', content: 'x' }),
    ).rejects.toMatchObject({ code: 'TOOL_POLICY_DENIED' });
    await expect(fs.call('file_list', { directory: 'link' })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
    });
    await expect(fs.call('file_exists', { path: 'link/secret.txt' })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
    });
    expect(await readdir(outside)).toEqual(['secret.txt']);
  });

  test('a symlinked file leading out can be neither read nor overwritten nor appended to', async () => {
    await symlink(join(outside, 'secret.txt'), join(root, 'notes.txt'));
    const fs = toolbox();
    await expect(fs.call('file_read', { path: 'notes.txt' })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
    });
    await expect(
      fs.call('file_write', { path: 'notes.txt', content: 'overwritten' }),
    ).rejects.toMatchObject({ code: 'TOOL_POLICY_DENIED' });
    await expect(
      fs.call('file_append', { path: 'notes.txt', content: 'appended' }),
    ).rejects.toMatchObject({ code: 'TOOL_POLICY_DENIED' });
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
  });

  test('a dangling symlink to a missing file outside cannot be used to create it', async () => {
    await symlink(join(outside, 'created-through-link.txt'), join(root, 'dangling'));
    const fs = toolbox();
    await expect(fs.call('file_write', { path: 'dangling', content: 'x' })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
    });
    await expect(fs.call('file_append', { path: 'dangling', content: 'x' })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
    });
    expect(await readdir(outside)).toEqual(['secret.txt']);
  });

  test('symlinks that stay inside the root are followed', async () => {
    await mkdir(join(root, 'real'));
    await writeFile(join(root, 'real', 'a.txt'), 'inside');
    await symlink(join(root, 'real'), join(root, 'alias'));
    const fs = toolbox();
    expect(await fs.call('file_read', { path: 'alias/a.txt' })).toBe('inside');
  });

  test('NUL bytes and empty paths are bad input', async () => {
    const fs = toolbox();
    await expect(fs.call('file_read', { path: 'a.txt\0../../etc/passwd' })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'path',
      message: expect.stringContaining('NUL'),
    });
    await expect(fs.call('file_write', { path: '', content: 'x' })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'path',
    });
  });

  test('a root given through a symlink works with paths spelled either way', async () => {
    const alias = join(base, 'root-alias');
    await symlink(root, alias);
    const fs = toolbox({ root: alias });
    await fs.call('file_write', { path: join(alias, 'via-alias.txt'), content: '1' });
    await fs.call('file_write', { path: join(root, 'via-real.txt'), content: '2' });
    expect((await readdir(root)).sort()).toEqual(['via-alias.txt', 'via-real.txt']);
  });

  test('file_exists refuses paths outside instead of revealing whether they exist', async () => {
    const fs = toolbox();
    await expect(fs.call('file_exists', { path: '../outside/secret.txt' })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
    });
    await expect(fs.call('file_exists', { path: '../outside/nothing' })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
    });
  });

  test('file_delete removes a symlink itself, never the file outside it points to', async () => {
    await symlink(join(outside, 'secret.txt'), join(root, 'pointer'));
    const fs = toolbox();
    expect(await fs.call('file_delete', { path: 'pointer' })).toBe('Deleted pointer');
    expect(await readdir(root)).toEqual([]);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
  });

  test('the root itself cannot be deleted or overwritten', async () => {
    const fs = toolbox();
    await expect(fs.call('file_delete', { path: '.' })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
    });
    await expect(fs.call('file_write', { path: '.', content: 'x' })).rejects.toMatchObject({
      code: 'TOOL_FAILED',
    });
    expect((await stat(root)).isDirectory()).toBe(true);
  });

  test('file_list never descends into a symlinked folder leading out', async () => {
    await writeFile(join(root, 'own.txt'), '');
    await symlink(outside, join(root, 'escape'));
    const fs = toolbox();
    const listing = await fs.call('file_list', { directory: '.', pattern: '**/*' });
    expect(listing.files).toEqual(['./escape', './own.txt']);
  });

  test('reading a FIFO is refused at once instead of hanging', async () => {
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const fs = toolbox();
    await expect(fs.call('file_read', { path: 'pipe' })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
      message: expect.stringContaining('not a regular file'),
    });
  });

  test('a missing root is reported as a policy problem', async () => {
    const fs = toolbox({ root: join(base, 'missing') });
    await expect(fs.call('file_read', { path: 'a.txt' })).rejects.toMatchObject({
      code: 'TOOL_BAD_POLICY',
      field: 'policy.fs.root',
    });
  });
});

describe('file_write / file_append', () => {
  test('writes create missing folders and report the character count (code points)', async () => {
    const fs = toolbox();
    expect(await fs.call('file_write', { path: 'a/b/c.txt', content: '😀 hé' })).toBe(
      'Wrote 4 characters to a/b/c.txt',
    );
    expect(await readFile(join(root, 'a/b/c.txt'), 'utf8')).toBe('😀 hé');
    expect(await fs.call('file_append', { path: 'a/b/c.txt', content: '!\n' })).toBe(
      'Appended 2 characters to a/b/c.txt',
    );
    expect(await fs.call('file_append', { path: 'new/log.txt', content: 'first' })).toBe(
      'Appended 5 characters to new/log.txt',
    );
    expect(await readFile(join(root, 'a/b/c.txt'), 'utf8')).toBe('😀 hé!\n');
    expect(await readFile(join(root, 'new/log.txt'), 'utf8')).toBe('first');
  });

  test('writes are atomic: a concurrent reader sees the old or the new content, never a mix', async () => {
    const fs = toolbox();
    const size = 2 * 1024 * 1024;
    const contents = ['a', 'b', 'c', 'd'].map((letter) => letter.repeat(size));
    await fs.call('file_write', { path: 'big.txt', content: contents[0] as string });
    let writing = true;
    const seen = new Set<string>();
    const reader = (async () => {
      while (writing) {
        const text = await readFile(join(root, 'big.txt'), 'utf8');
        expect(text.length).toBe(size);
        expect(text[0]?.repeat(size) === text).toBe(true);
        seen.add(text[0] as string);
      }
    })();
    for (const content of contents.slice(1))
      await fs.call('file_write', { path: 'big.txt', content });
    writing = false;
    await reader;
    expect(seen.size).toBeGreaterThan(0);
    // No temp files are left behind.
    expect(await readdir(root)).toEqual(['big.txt']);
  });

  test('new files and folders honour the umask; none is made world-writable', async () => {
    const previous = process.umask(0o027);
    try {
      const fs = toolbox();
      await fs.call('file_write', { path: 'new.txt', content: 'x' });
      await fs.call('file_write', { path: 'deep/er/new.txt', content: 'x' });
      await fs.call('file_append', { path: 'appended.txt', content: 'x' });
      const mode = async (path: string) => (await stat(join(root, path))).mode & 0o777;
      expect(await mode('new.txt')).toBe(0o640);
      expect(await mode('deep/er/new.txt')).toBe(0o640);
      expect(await mode('deep')).toBe(0o750);
      expect(await mode('appended.txt')).toBe(0o640);
      // Replacing keeps the old bits, whatever the umask.
      await chmod(join(root, 'new.txt'), 0o664);
      await fs.call('file_write', { path: 'new.txt', content: 'y' });
      expect(await mode('new.txt')).toBe(0o664);
      // …but never the set-user-ID bit: new content is not the program that was trusted.
      await chmod(join(root, 'new.txt'), 0o4755);
      await fs.call('file_write', { path: 'new.txt', content: 'z' });
      expect((await stat(join(root, 'new.txt'))).mode & 0o7777).toBe(0o755);
    } finally {
      process.umask(previous);
    }
  });

  test('rewriting a file keeps its permission bits', async () => {
    await writeFile(join(root, 'private.txt'), 'old');
    await chmod(join(root, 'private.txt'), 0o600);
    await toolbox().call('file_write', { path: 'private.txt', content: 'new' });
    expect((await stat(join(root, 'private.txt'))).mode & 0o777).toBe(0o600);
  });

  test('write and append size caps refuse the call and leave the file as it was', async () => {
    const fs = toolbox({ maxWriteBytes: 10 });
    await fs.call('file_write', { path: 'capped.txt', content: '0123456789' });
    await expect(
      fs.call('file_write', { path: 'capped.txt', content: '01234567890' }),
    ).rejects.toMatchObject({ code: 'TOOL_LIMIT_EXCEEDED', field: 'content' });
    await expect(
      fs.call('file_append', { path: 'capped.txt', content: 'x' }),
    ).rejects.toMatchObject({ code: 'TOOL_LIMIT_EXCEEDED' });
    expect(await readFile(join(root, 'capped.txt'), 'utf8')).toBe('0123456789');
  });

  test('encodings: latin-1 and utf-16le are written as such; unencodable text is refused', async () => {
    const fs = toolbox();
    await fs.call('file_write', { path: 'l1.txt', content: 'café', encoding: 'latin-1' });
    expect([...(await readFile(join(root, 'l1.txt')))]).toEqual([0x63, 0x61, 0x66, 0xe9]);
    await fs.call('file_write', { path: 'u16.txt', content: 'hi', encoding: 'utf-16le' });
    expect([...(await readFile(join(root, 'u16.txt')))]).toEqual([0x68, 0, 0x69, 0]);
    await expect(
      fs.call('file_write', { path: 'a.txt', content: 'naïve', encoding: 'ascii' }),
    ).rejects.toMatchObject({ code: 'TOOL_BAD_INPUT', field: 'content' });
    await expect(
      fs.call('file_write', { path: 'a.txt', content: 'x', encoding: 'gbk' }),
    ).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'encoding',
      message: expect.stringContaining('utf-8, utf-16le, latin-1, ascii'),
    });
    expect(await readdir(root)).not.toContain('a.txt');
  });
});

describe('file_read', () => {
  test('reads utf-8 by default, and legacy encodings such as gbk when asked', async () => {
    await writeFile(join(root, 'zh.txt'), Buffer.from([0xd6, 0xd0, 0xce, 0xc4]));
    await writeFile(join(root, 'utf8.txt'), '第三章 chapter 3');
    const fs = toolbox();
    expect(await fs.call('file_read', { path: 'utf8.txt' })).toBe('第三章 chapter 3');
    expect(await fs.call('file_read', { path: 'zh.txt', encoding: 'gbk' })).toBe('中文');
    await expect(fs.call('file_read', { path: 'zh.txt' })).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: expect.stringContaining('not valid utf-8'),
    });
    await expect(
      fs.call('file_read', { path: 'zh.txt', encoding: 'klingon' }),
    ).rejects.toMatchObject({ code: 'TOOL_BAD_INPUT', field: 'encoding' });
  });

  test('missing files, folders and oversized files fail with clear codes', async () => {
    await mkdir(join(root, 'folder'));
    await writeFile(join(root, 'big.txt'), 'x'.repeat(101));
    const fs = toolbox({ maxReadBytes: 100 });
    await expect(fs.call('file_read', { path: 'nope.txt' })).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
    await expect(fs.call('file_read', { path: 'folder' })).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: expect.stringContaining('folder'),
    });
    await expect(fs.call('file_read', { path: 'big.txt' })).rejects.toMatchObject({
      code: 'TOOL_LIMIT_EXCEEDED',
      details: { size: 101, limit: 100 },
    });
  });
});

describe('file_exists / file_list / file_delete', () => {
  beforeEach(async () => {
    await mkdir(join(root, 'notes/sub'), { recursive: true });
    await writeFile(join(root, 'notes/a.txt'), '');
    await writeFile(join(root, 'notes/b.md'), '');
    await writeFile(join(root, 'notes/.env'), '');
    await writeFile(join(root, 'notes/sub/c.txt'), '');
    await writeFile(join(root, 'notes/sub/d.md'), '');
    await mkdir(join(root, 'notes/.cfg'));
    await writeFile(join(root, 'notes/.cfg/settings.txt'), '');
  });

  test('file_exists reports files and folders with the path as given', async () => {
    const fs = toolbox();
    expect(await fs.call('file_exists', { path: 'notes/a.txt' })).toEqual({
      exists: true,
      path: 'notes/a.txt',
    });
    expect(await fs.call('file_exists', { path: 'notes/sub' })).toEqual({
      exists: true,
      path: 'notes/sub',
    });
    expect(await fs.call('file_exists', { path: 'notes/zzz' })).toEqual({
      exists: false,
      path: 'notes/zzz',
    });
  });

  test('file_list: default * skips hidden entries, marks folders, sorts, prefixes the directory', async () => {
    const fs = toolbox();
    expect(await fs.call('file_list', { directory: 'notes' })).toEqual({
      files: ['notes/a.txt', 'notes/b.md', 'notes/sub/'],
      count: 3,
    });
    expect(await fs.call('file_list', { directory: 'notes', pattern: '*.txt' })).toEqual({
      files: ['notes/a.txt'],
      count: 1,
    });
    expect(await fs.call('file_list', { directory: 'notes', pattern: '.*' })).toEqual({
      files: ['notes/.cfg/', 'notes/.env'],
      count: 2,
    });
    expect(await fs.call('file_list', { directory: 'notes', pattern: '.cfg/*' })).toEqual({
      files: ['notes/.cfg/settings.txt'],
      count: 1,
    });
    expect(await fs.call('file_list', { directory: 'notes', pattern: '**/*.txt' })).toEqual({
      files: ['notes/a.txt', 'notes/sub/c.txt'],
      count: 2,
    });
    expect(await fs.call('file_list', { directory: 'notes', pattern: '**/*.md' })).toEqual({
      files: ['notes/b.md', 'notes/sub/d.md'],
      count: 2,
    });
    expect(
      await fs.call('file_list', { directory: 'notes', pattern: '{a.txt,sub/c.txt}' }),
    ).toEqual({ files: ['notes/a.txt', 'notes/sub/c.txt'], count: 2 });
  });

  test('a lone surrogate in content is bad input, not written as U+FFFD', async () => {
    for (const encoding of ['utf-8', 'utf-16le']) {
      await expect(
        toolbox().call('file_write', { path: 'odd.txt', content: 'a\uD800', encoding }),
      ).rejects.toMatchObject({ code: 'TOOL_BAD_INPUT', field: 'content' });
    }
  });

  test('file_list keeps the directory as given in every path, "." included', async () => {
    const fs = toolbox();
    await writeFile(join(root, 'top.txt'), '');
    const listed = async (directory: string) =>
      (await fs.call('file_list', { directory, pattern: '*.txt' })).files;
    expect(await listed('.')).toEqual(['./top.txt']);
    expect(await listed('./')).toEqual(['./top.txt']);
    expect(await listed('./notes')).toEqual(['./notes/a.txt']);
    expect(await listed('notes/')).toEqual(['notes/a.txt']);
    expect(await listed(`${root}/notes`)).toEqual([`${root}/notes/a.txt`]);
  });

  test('file_list cuts long listings and says so; bad patterns and missing folders are clear', async () => {
    const fs = toolbox({ maxListEntries: 2 });
    expect(await fs.call('file_list', { directory: 'notes', pattern: '**' })).toEqual({
      files: ['notes/a.txt', 'notes/b.md'],
      count: 5,
      truncated: true,
    });
    await expect(
      fs.call('file_list', { directory: 'notes', pattern: '/etc/*' }),
    ).rejects.toMatchObject({ code: 'TOOL_BAD_INPUT', field: 'pattern' });
    await expect(
      fs.call('file_list', { directory: 'notes', pattern: '../*' }),
    ).rejects.toMatchObject({ code: 'TOOL_BAD_INPUT', field: 'pattern' });
    await expect(fs.call('file_list', { directory: 'nowhere' })).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
      field: 'directory',
    });
    await expect(fs.call('file_list', { directory: 'notes/a.txt' })).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      field: 'directory',
    });
  });

  test('file_delete deletes files and empty folders, refuses non-empty ones and missing paths', async () => {
    const fs = toolbox();
    expect(await fs.call('file_delete', { path: 'notes/a.txt' })).toBe('Deleted notes/a.txt');
    await expect(fs.call('file_delete', { path: 'notes/a.txt' })).rejects.toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
    await expect(fs.call('file_delete', { path: 'notes/sub' })).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: expect.stringContaining('not empty'),
    });
    await fs.call('file_delete', { path: 'notes/sub/c.txt' });
    await fs.call('file_delete', { path: 'notes/sub/d.md' });
    expect(await fs.call('file_delete', { path: 'notes/sub' })).toBe('Deleted notes/sub');
    expect((await readdir(join(root, 'notes'))).sort()).toEqual(['.cfg', '.env', 'b.md']);
  });
});
