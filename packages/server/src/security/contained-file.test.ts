import { execFileSync } from 'node:child_process';
import { link, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readContainedText } from './contained-file.ts';

let base: string;
let data: string;
const secret = () => join(base, '.env');

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'contained-file-'));
  data = join(base, 'data');
  await mkdir(join(data, 'cite'), { recursive: true });
  await writeFile(secret(), 'LLM_API_KEY=sk-secret\n');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const refused = (name: string) => ({
  code: 'FILE_LINK_REFUSED',
  statusCode: 403,
  message: expect.stringContaining(`${name} was not read`),
});

describe('readContainedText', () => {
  it('reads a plain file, and says undefined for a missing one or a missing folder', async () => {
    await writeFile(join(data, 'cite', 'week1.txt'), '第 1 页');
    expect(await readContainedText(data, ['cite', 'week1.txt'])).toBe('第 1 页');
    expect(await readContainedText(data, ['cite', 'none.txt'])).toBeUndefined();
    expect(await readContainedText(data, ['summaries', 'none.md'])).toBeUndefined();
  });

  it('refuses a symbolic link, a hard link and a linked folder, naming the file', async () => {
    await symlink(secret(), join(data, 'cite', 'soft.txt'));
    await link(secret(), join(data, 'cite', 'hard.txt'));
    await symlink(base, join(data, 'classes'));
    await expect(readContainedText(data, ['cite', 'soft.txt'])).rejects.toMatchObject(
      refused('cite/soft.txt'),
    );
    await expect(readContainedText(data, ['cite', 'hard.txt'])).rejects.toMatchObject(
      refused('cite/hard.txt'),
    );
    await expect(readContainedText(data, ['classes', '.env'])).rejects.toMatchObject(
      refused('classes/.env'),
    );
  });

  it('refuses a folder or a FIFO where a file is expected, without hanging', async () => {
    await mkdir(join(data, 'cite', 'folder.txt'));
    await expect(readContainedText(data, ['cite', 'folder.txt'])).rejects.toMatchObject(
      refused('cite/folder.txt'),
    );
    if (process.platform === 'win32') return;
    execFileSync('mkfifo', [join(data, 'cite', 'pipe.txt')]);
    await expect(readContainedText(data, ['cite', 'pipe.txt'])).rejects.toMatchObject(
      refused('cite/pipe.txt'),
    );
  });
});
