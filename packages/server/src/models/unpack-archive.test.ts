import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildZip } from '../../test/support/zip-writer.ts';
import { entryTarget, unpackArchive } from './unpack-archive.ts';

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function archiveOf(
  entries: Parameters<typeof buildZip>[0],
): Promise<{ zip: string; out: string }> {
  const folder = await mkdtemp(join(tmpdir(), 'unpack-'));
  folders.push(folder);
  const zip = join(folder, 'archive.zip');
  await writeFile(zip, buildZip(entries));
  return { zip, out: join(folder, 'out') };
}

describe('entryTarget', () => {
  it('keeps names inside the folder and refuses every way out', () => {
    expect(entryTarget('/m', 'model/am/final.mdl')).toBe('/m/model/am/final.mdl');
    expect(entryTarget('/m', '../x')).toEqual({ problem: expect.stringContaining('outside') });
    expect(entryTarget('/m', 'a/../../x')).toEqual({ problem: expect.stringContaining('outside') });
    expect(entryTarget('/m', '/etc/passwd')).toEqual({
      problem: expect.stringContaining('absolute'),
    });
    expect(entryTarget('/m', 'C:/Windows/x')).toEqual({
      problem: expect.stringContaining('absolute'),
    });
    expect(entryTarget('/m', 'a\\..\\..\\x')).toEqual({
      problem: expect.stringContaining('outside'),
    });
  });
});

describe('unpackArchive', () => {
  it('writes folders and files as the archive has them', async () => {
    const { zip, out } = await archiveOf([
      { name: 'model/' },
      { name: 'model/am/final.mdl', data: Buffer.from('acoustic') },
      { name: 'model/conf/model.conf', data: Buffer.from('x'.repeat(10_000)) },
    ]);
    expect(await unpackArchive(zip, out)).toEqual({ files: 2, bytes: 10_008 });
    expect(await readFile(join(out, 'model', 'am', 'final.mdl'), 'utf8')).toBe('acoustic');
    expect((await readdir(join(out, 'model'))).sort()).toEqual(['am', 'conf']);
  });

  it('refuses an archive that inflates past the cap (a zip bomb), before writing the entry', async () => {
    const { zip, out } = await archiveOf([
      { name: 'model/am/final.mdl', data: Buffer.from('ok') },
      { name: 'model/zeros.bin', data: Buffer.alloc(5 * 1024 * 1024) },
    ]);
    await expect(
      unpackArchive(zip, out, { maxTotalBytes: 1024 * 1024, maxEntries: 10 }),
    ).rejects.toMatchObject({
      code: 'MODEL_ARCHIVE_INVALID',
      message: expect.stringContaining('more than 1048576 bytes'),
    });
    expect(await readdir(join(out, 'model'))).toEqual(['am']);
    await expect(
      unpackArchive(zip, `${out}-2`, { maxTotalBytes: 1e9, maxEntries: 1 }),
    ).rejects.toMatchObject({
      message: expect.stringContaining('2 entries, more than 1'),
    });
  });

  it('refuses a file that is not a ZIP archive', async () => {
    const { out } = await archiveOf([]);
    const notZip = join(out, '..', 'page.zip');
    await writeFile(notZip, '<html>captive portal</html>');
    await expect(unpackArchive(notZip, out)).rejects.toMatchObject({
      code: 'MODEL_ARCHIVE_INVALID',
      message: expect.stringContaining('not a readable ZIP file'),
    });
  });
});
