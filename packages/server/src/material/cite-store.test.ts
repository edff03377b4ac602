import { mkdtemp, readFile, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isServerError } from '../errors.ts';
import { createCiteStore, sanitizeMaterialName } from './cite-store.ts';

const at = new Date(2026, 2, 7, 22, 48, 12);

describe('sanitizeMaterialName', () => {
  it.each([
    ['../../第3章 链表.pptx', '第3章_链表'],
    ['C:\\Users\\me\\week1: intro?.pdf', 'week1_intro'],
    ['..pptx', 'material'],
    ['  spaced   out  .docx', 'spaced_out'],
    ['CON.pptx', '_CON'],
    ['a\u0000b\u202ec.pdf', 'abc'],
    ['.hidden.pdf', 'hidden'],
    [`${'长'.repeat(100)}.pptx`, '长'.repeat(80)],
  ])('%j -> %j', (input, expected) => {
    expect(sanitizeMaterialName(input)).toBe(expected);
  });
});

describe('createCiteStore', () => {
  it('writes <name>_<timestamp>.txt and never overwrites an earlier upload', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cite-'));
    const cite = createCiteStore(dataDir);
    const names = await Promise.all([
      cite.write('week1.pptx', 'one', at),
      cite.write('week1.pptx', 'two', at),
      cite.write('week1.pdf', 'three', at),
    ]);
    expect(names).toEqual([
      'week1_20260307_224812.txt',
      'week1_20260307_224812_2.txt',
      'week1_20260307_224812_3.txt',
    ]);
    expect(await readFile(join(dataDir, 'cite', names[0]!), 'utf8')).toBe('one');
    expect(await readFile(join(dataDir, 'cite', names[2]!), 'utf8')).toBe('three');
  });

  it('lists .txt files newest first with the original’s fields', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cite-'));
    const cite = createCiteStore(dataDir);
    expect(await cite.list()).toEqual([]);
    const old = await cite.write('old.pptx', 'old text', at);
    const fresh = await cite.write('new.pptx', 'new', at);
    await writeFile(join(dataDir, 'cite', 'ignored.md'), 'x');
    await utimes(join(dataDir, 'cite', old), at, at);
    const items = await cite.list();
    expect(items.map((item) => item.filename)).toEqual([fresh, old]);
    expect(items[1]).toEqual({
      filename: old,
      updated_at: '2026-03-07 22:48:12',
      updated_at_iso: at.toISOString(),
      size: 8,
      pages: 0,
    });
  });

  it('activates a cite file as the class material, or empties it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cite-'));
    const cite = createCiteStore(dataDir);
    const name = await cite.write('deck.pptx', '--- 第 1 页 ---\n链表\n', at);
    await cite.activate(name);
    expect(await cite.readCurrent()).toBe('--- 第 1 页 ---\n链表\n');
    await cite.activate(null);
    expect(await readFile(cite.currentMaterialPath, 'utf8')).toBe('');
  });

  it('refuses names with folders and names that do not exist', async () => {
    const cite = createCiteStore(await mkdtemp(join(tmpdir(), 'cite-')));
    for (const name of ['../.env', 'a/b.txt', '..\\x.txt', 'notes.md', ' spaced.txt']) {
      const error = await cite.activate(name).catch((caught: unknown) => caught);
      expect(isServerError(error) && error.code).toBe('CITE_FILENAME_INVALID');
    }
    const error = await cite.activate('missing.txt').catch((caught: unknown) => caught);
    expect(isServerError(error) && [error.code, error.statusCode]).toEqual([
      'CITE_FILE_NOT_FOUND',
      404,
    ]);
  });
});
