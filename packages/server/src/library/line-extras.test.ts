import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  lineExtrasPath,
  openLineExtrasLog,
  parseLineExtras,
  readLineExtras,
} from './line-extras.ts';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'line-extras-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('line extras', () => {
  it('takes the last value of each field, and skips torn or malformed records', () => {
    const map = parseLineExtras(
      [
        '{"id":1,"page":3}',
        '{"id":1,"translation":"Hello"}',
        '{"id":2,"audio_ms":1500,"page":"seven"}',
        'not json',
        '{"page":4}',
        '{"id":1,"page":null}',
        '{"id":3,"pa',
      ].join('\n'),
    );
    expect(map.get(1)).toEqual({ page: null, translation: 'Hello', audio_ms: null });
    expect(map.get(2)).toEqual({ page: null, translation: null, audio_ms: 1500 });
    expect(map.has(3)).toBe(false);
  });

  it('keeps every change in the class folder, and a class going on reads them back', async () => {
    const errors: unknown[] = [];
    const log = await openLineExtrasLog(folder, (error) => errors.push(error));
    expect(await readLineExtras(folder)).toEqual(new Map());
    log.set(1, { page: 2, audio_ms: 0 });
    log.set(2, { audio_ms: 4200 });
    log.set(1, { translation: '同学们好' });
    // Read at once from memory, before the file has it.
    expect(log.get(1)).toEqual({ page: 2, translation: '同学们好', audio_ms: 0 });
    expect(log.get(9)).toEqual({ page: null, translation: null, audio_ms: null });
    await log.flush();
    expect((await readFile(lineExtrasPath(folder), 'utf8')).trim().split('\n')).toHaveLength(3);

    // A crash tore the last record: the others survive, and the next run appends after it.
    await appendFile(lineExtrasPath(folder), '{"id":2,"tran');
    const again = await openLineExtrasLog(folder, (error) => errors.push(error));
    expect(again.get(1)).toEqual({ page: 2, translation: '同学们好', audio_ms: 0 });
    again.set(3, { page: 5 });
    await again.flush();
    const read = await readLineExtras(folder);
    expect(read.get(2)).toEqual({ page: null, translation: null, audio_ms: 4200 });
    expect(read.get(3)?.page).toBe(5);
    expect(errors).toEqual([]);
  });
});
