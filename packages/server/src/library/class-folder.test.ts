import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  appendClassEntries,
  classIdTime,
  folderSignature,
  isClassId,
  mergeEntries,
  newClassId,
  readClassFolder,
  writeClassTranscript,
} from './class-folder.ts';

let folder: string | undefined;
afterEach(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('class ids', () => {
  it('sort by local start time and are checked strictly', () => {
    const id = newClassId(new Date(2026, 10, 23, 10, 15, 0), () => 'k3f9');
    expect(id).toBe('20261123-101500-k3f9');
    expect(isClassId(id)).toBe(true);
    expect(classIdTime(id)).toEqual(new Date(2026, 10, 23, 10, 15, 0));
    expect(isClassId(newClassId(new Date()))).toBe(true);
    for (const bad of ['../20261123-101500-k3f9', '20261123-101500-K3F9', '20261123-101500', '']) {
      expect(isClassId(bad)).toBe(false);
    }
  });
});

describe('mergeEntries', () => {
  const entry = (id: number, text: string) => ({ id, time: '10:00:00', text });

  it('adds newer ids and takes the newer text of the last entry', () => {
    const merged = mergeEntries(
      [entry(1, 'a'), entry(2, 'b')],
      [entry(1, 'a'), entry(2, 'b longer'), entry(3, 'c')],
    );
    expect(merged.entries).toEqual([entry(1, 'a'), entry(2, 'b longer'), entry(3, 'c')]);
    expect(merged.appended).toEqual([entry(3, 'c')]);
    expect(merged.replacedLast).toBe(true);
  });

  it('keeps ids positions when the incoming ids skip some', () => {
    expect(mergeEntries([entry(1, 'a')], [entry(5, 'e')]).entries).toEqual([
      entry(1, 'a'),
      entry(2, 'e'),
    ]);
  });
});

describe('class folders on disk', () => {
  it('append batches to transcript.txt and read back with ids', async () => {
    folder = await mkdtemp(join(tmpdir(), 'class-folder-'));
    await writeClassTranscript(folder, {
      headerLines: ['=== 课堂记录 开始于 2026-03-09 10:00:00 ===', '课程：数据结构'],
      summary: '',
      entries: [],
    });
    await appendClassEntries(folder, [
      { id: 1, time: '10:00:01', text: '第一行' },
      { id: 2, time: '10:00:02', text: '第二行' },
    ]);
    expect(await readFile(join(folder, 'transcript.txt'), 'utf8')).toBe(
      '=== 课堂记录 开始于 2026-03-09 10:00:00 ===\n课程：数据结构\n\n[10:00:01] 第一行\n[10:00:02] 第二行\n',
    );
    const content = await readClassFolder(folder, '20260309-100000-abcd');
    // No class.json: rebuilt from the folder name and the header, never lost.
    expect(content?.meta).toMatchObject({
      id: '20260309-100000-abcd',
      course_name: '数据结构',
      started_at: new Date(2026, 2, 9, 10, 0, 0).toISOString(),
      line_count: 2,
    });
    expect(content?.transcript.entries.map((e) => e.id)).toEqual([1, 2]);
  });

  it('reads a damaged class.json leniently and changes its signature when a file changes', async () => {
    folder = await mkdtemp(join(tmpdir(), 'class-folder-'));
    await mkdir(folder, { recursive: true });
    await writeFile(
      join(folder, 'class.json'),
      JSON.stringify({
        id: 'x',
        started_at: '2026-03-09T02:00:00.000Z',
        course_name: 42,
        alerts: 'no',
      }),
    );
    const content = await readClassFolder(folder, '20260309-100000-abcd');
    expect(content?.meta).toMatchObject({
      id: '20260309-100000-abcd',
      course_name: '',
      alerts: [],
    });
    const before = await folderSignature(folder);
    await writeFile(join(folder, 'notes.md'), '# 笔记\n');
    expect(await folderSignature(folder)).not.toBe(before);
    expect(await readClassFolder(join(folder, 'missing'), '20260309-100000-abcd')).toBeNull();
  });
});
