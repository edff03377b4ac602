import { mkdir, mkdtemp, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataPaths } from '../data-folder.ts';
import { isServerError } from '../errors.ts';
import { createNotesStore, parseNotesFilename } from './notes-store.ts';

const at = new Date(2026, 2, 7, 22, 48, 12);

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isServerError(error)) return error.code;
    throw error;
  }
  throw new Error('expected a ServerError');
}

describe('parseNotesFilename', () => {
  it('reads the course and the local time of a name the store writes', () => {
    expect(parseNotesFilename('数据结构_20260307_224812.md')).toEqual({
      courseName: '数据结构',
      writtenAt: at,
    });
    expect(parseNotesFilename('课堂笔记_20260307_224812.md').courseName).toBe('');
    expect(parseNotesFilename('my own notes.md')).toEqual({
      courseName: 'my own notes',
      writtenAt: null,
    });
  });
});

describe('createNotesStore', () => {
  it('writes {course}_{YYYYMMDD}_{HHMMSS}.md into data/summaries and reads it back', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'notes-'));
    const notes = createNotesStore(dataDir);
    // The folder is made when missing.
    const written = await notes.write('数据结构', '# 笔记', at);
    expect(written).toEqual({
      filename: '数据结构_20260307_224812.md',
      path: join(dataPaths(dataDir).summaries, '数据结构_20260307_224812.md'),
    });
    expect(await readFile(written.path, 'utf8')).toBe('# 笔记\n');
    const read = await notes.read(written.filename);
    expect(read).toMatchObject({
      filename: written.filename,
      course_name: '数据结构',
      content: '# 笔记\n',
      size: Buffer.byteLength('# 笔记\n'),
    });
    expect(read.updated_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('names notes without a course 课堂笔记_…, and a course name cannot leave the folder', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'notes-'));
    const notes = createNotesStore(dataDir);
    expect((await notes.write('', 'x\n', at)).filename).toBe('课堂笔记_20260307_224812.md');
    const sneaky = await notes.write('../../etc/passwd', 'y\n', at);
    expect(sneaky.filename).toBe('passwd_20260307_224812.md');
    expect(sneaky.path.startsWith(dataPaths(dataDir).summaries)).toBe(true);
  });

  it('lists the .md files newest first, and nothing for a missing folder', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'notes-'));
    const notes = createNotesStore(dataDir);
    expect(await notes.list()).toEqual([]);
    const folder = dataPaths(dataDir).summaries;
    await mkdir(join(folder, 'folder.md'), { recursive: true });
    await writeFile(join(folder, 'old.md'), 'old\n');
    await writeFile(join(folder, 'new.MD'), 'new\n');
    await writeFile(join(folder, 'other.txt'), 'not notes\n');
    await utimes(join(folder, 'old.md'), new Date(2026, 0, 1), new Date(2026, 0, 1));
    await utimes(join(folder, 'new.MD'), new Date(2026, 0, 2), new Date(2026, 0, 2));
    expect((await notes.list()).map((item) => item.filename)).toEqual(['new.MD', 'old.md']);
  });

  it('refuses names that are not plain .md names of the folder, and missing notes', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'notes-'));
    const notes = createNotesStore(dataDir);
    await notes.write('数据结构', 'x', at);
    for (const name of ['../mcp-token', '../x.md', 'a/b.md', 'x.txt', ' x.md', '']) {
      expect(await codeOf(notes.read(name)), name).toBe('NOTES_FILENAME_INVALID');
    }
    expect(await codeOf(notes.read('missing.md'))).toBe('NOTES_NOT_FOUND');
  });

  it('never reads through a link placed in the folder', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'notes-'));
    const folder = dataPaths(dataDir).summaries;
    await mkdir(folder, { recursive: true });
    await writeFile(join(dataDir, 'secret.txt'), 'API_KEY=sk-secret\n');
    await symlink(join(dataDir, 'secret.txt'), join(folder, 'linked.md'));
    expect(await codeOf(createNotesStore(dataDir).read('linked.md'))).toBe('FILE_LINK_REFUSED');
  });

  it('says which file it could not write', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'notes-'));
    // A file where the folder should be.
    await rm(dataPaths(dataDir).summaries, { recursive: true, force: true });
    await writeFile(dataPaths(dataDir).summaries, '');
    const notes = createNotesStore(dataDir);
    const error = await notes.write('数据结构', 'x', at).catch((caught: unknown) => caught);
    expect(isServerError(error) && error.code).toBe('NOTES_WRITE_FAILED');
    expect((error as Error).message).toContain('数据结构_20260307_224812.md');
  });
});
