import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRotatingLogFile } from './rotating-log-file.ts';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'rotating-log-'));
});
afterEach(() => rm(folder, { recursive: true, force: true }));

describe('openRotatingLogFile', () => {
  it('keeps the previous run as .1 and caps every file, keeping the newest lines', async () => {
    const path = join(folder, '_startup.log');
    await writeFile(path, 'previous run\n');
    const file = openRotatingLogFile({ path, maxBytes: 64 * 1024, kept: 2 });
    expect(await readFile(`${path}.1`, 'utf8')).toBe('previous run\n');
    // 1 MiB of lines, 16 times what the three files hold.
    const line = (index: number) => `${JSON.stringify({ index, msg: 'x'.repeat(80) })}\n`;
    let index = 0;
    for (let written = 0; written < 1024 * 1024; index++) {
      const text = line(index);
      file.write(text);
      written += text.length;
    }
    file.write('the last line\n');
    file.close();
    file.write('after the close\n');
    expect((await readdir(folder)).sort()).toEqual([
      '_startup.log',
      '_startup.log.1',
      '_startup.log.2',
    ]);
    for (const name of await readdir(folder)) {
      expect((await stat(join(folder, name))).size).toBeLessThanOrEqual(64 * 1024);
    }
    // The newest lines, in order, across the files; no line split between two files.
    const text = [`${path}.2`, `${path}.1`, path].map((name) => readFile(name, 'utf8'));
    const lines = (await Promise.all(text))
      .join('')
      .split('\n')
      .filter((entry) => entry !== '');
    expect(lines.at(-1)).toBe('the last line');
    const indexes = lines
      .slice(0, -1)
      .map((entry) => (JSON.parse(entry) as { index: number }).index);
    expect(indexes.at(-1)).toBe(index - 1);
    expect(indexes).toEqual(indexes.map((_, position) => indexes[0]! + position));
  });

  it('cuts a line longer than a whole file to the cap', async () => {
    const path = join(folder, 'big.log');
    const file = openRotatingLogFile({ path, maxBytes: 1000, kept: 1 });
    file.write(`${'y'.repeat(5000)}\n`);
    file.close();
    const text = await readFile(path, 'utf8');
    expect(text.length).toBe(1000);
    expect(text.endsWith('\n')).toBe(true);
  });
});
