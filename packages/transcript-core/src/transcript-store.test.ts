import {
  appendFile,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTranscriptCoreError } from './errors.ts';
import { SUMMARY_END_MARKER, SUMMARY_START_MARKER } from './transcript-format.ts';
import { readTranscriptFile, TranscriptStore } from './transcript-store.ts';

let folder: string;
let path: string;
let clock: Date;
const now = () => clock;
const open = () => TranscriptStore.open(path, { now });
const content = () => readFile(path, 'utf8');

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'transcript-store-'));
  path = join(folder, 'data', 'class_transcript.txt');
  clock = new Date(2026, 8, 21, 10, 0, 0);
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('append', () => {
  it('creates the file and its folder, and writes [HH:MM:SS] lines from the clock', async () => {
    const store = await open();
    await store.append('同学们好，今天讲第三章。');
    clock = new Date(2026, 8, 21, 10, 0, 7);
    const entry = await store.append('  Who can tell me\nthe rank?  ');
    expect(entry).toEqual({ id: 2, time: '10:00:07', text: 'Who can tell me the rank?' });
    expect(await content()).toBe(
      '[10:00:00] 同学们好，今天讲第三章。\n[10:00:07] Who can tell me the rank?\n',
    );
    expect(store.entryCount).toBe(2);
    await store.close();
  });

  it('only adds bytes at the end: same file, earlier bytes untouched', async () => {
    const store = await open();
    await store.append('第一句 first line');
    const before = await readFile(path);
    const { ino } = await stat(path);
    for (let index = 0; index < 20; index += 1) await store.append(`第${index}句 mixed 内容`);
    const after = await readFile(path);
    expect((await stat(path)).ino).toBe(ino);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    await store.close();
  });

  it('keeps call order when appends are not awaited one by one', async () => {
    const store = await open();
    const texts = Array.from({ length: 30 }, (_, index) => `line ${index} 第${index}行`);
    await Promise.all(texts.map((text) => store.append(text)));
    expect((await store.read()).entries.map((entry) => entry.text)).toEqual(texts);
    await store.close();
  });

  it('uses the given time, and refuses empty text with a clear error', async () => {
    const store = await open();
    expect(await store.append('补录', { time: new Date(2026, 8, 21, 9, 59, 58) })).toEqual({
      id: 1,
      time: '09:59:58',
      text: '补录',
    });
    await expect(store.append(' \n ')).rejects.toMatchObject({ code: 'TRANSCRIPT_EMPTY_TEXT' });
    await store.close();
  });
  it('stamps a line with a position in a recording, hours past 24 included', async () => {
    const store = await open();
    expect(await store.append('第一句', { time: { positionMs: 2_100 } })).toEqual({
      id: 1,
      time: '00:00:02',
      text: '第一句',
    });
    await store.append('later', { time: { positionMs: (25 * 3600 + 3 * 60 + 10) * 1000 } });
    await store.append('as written', { time: '01:02:13' });
    expect(await readFile(path, 'utf8')).toBe(
      '[00:00:02] 第一句\n[25:03:10] later\n[01:02:13] as written\n',
    );
    // Read back as written: the positions survive a reopen.
    await store.close();
    const reopened = await open();
    expect((await reopened.read()).entries.map((entry) => entry.time)).toEqual([
      '00:00:02',
      '25:03:10',
      '01:02:13',
    ]);
    await expect(reopened.append('x', { time: { positionMs: -1 } })).rejects.toMatchObject({
      code: 'TRANSCRIPT_INVALID_ARGUMENT',
    });
    await expect(reopened.append('x', { time: '1:2:3' })).rejects.toThrow(/HH:MM:SS/);
    expect(reopened.entryCount).toBe(3);
    await reopened.close();
  });
});

describe('replaceLast', () => {
  it('rewrites only the last entry, keeping its time, longer or shorter', async () => {
    const store = await open();
    await store.append('今天我们讲');
    clock = new Date(2026, 8, 21, 10, 0, 3);
    await store.append('张三你来');
    const { ino } = await stat(path);
    const prefix = '[10:00:00] 今天我们讲\n';
    clock = new Date(2026, 8, 21, 10, 0, 9);
    expect(await store.replaceLast('张三你来回答一下这个问题')).toEqual({
      id: 2,
      time: '10:00:03',
      text: '张三你来回答一下这个问题',
    });
    expect(await content()).toBe(`${prefix}[10:00:03] 张三你来回答一下这个问题\n`);
    await store.replaceLast('OK');
    expect(await content()).toBe(`${prefix}[10:00:03] OK\n`);
    expect((await stat(path)).ino).toBe(ino);
    await store.append('next');
    expect(await content()).toBe(`${prefix}[10:00:03] OK\n[10:00:09] next\n`);
    await store.close();
  });

  it('keeps lines that follow the last entry (an old footer)', async () => {
    const store0 = await open();
    await store0.close();
    await writeFile(
      path,
      '[10:00:00] 第一句\n[10:00:05] 第二\n\n=== 课堂记录 结束于 2026-09-21 11:30:00 ===\n',
    );
    const store = await open();
    await store.replaceLast('第二句完整了');
    expect(await content()).toBe(
      '[10:00:00] 第一句\n[10:00:05] 第二句完整了\n\n=== 课堂记录 结束于 2026-09-21 11:30:00 ===\n',
    );
    await store.close();
  });

  it('refuses when there is no entry', async () => {
    const store = await open();
    const error = await store.replaceLast('x').catch((caught: unknown) => caught);
    expect(isTranscriptCoreError(error) && error.code).toBe('TRANSCRIPT_NO_ENTRY');
    await store.close();
  });
});

describe('reading', () => {
  it('readRecent skips the summary block and counts minutes on the clock', async () => {
    const store = await open();
    await store.append('十点整');
    await store.fold({ summary: '讲了矩阵', entries: [] });
    clock = new Date(2026, 8, 21, 10, 5, 0);
    await store.append('十点五分 five past');
    clock = new Date(2026, 8, 21, 10, 6, 0);
    expect(await store.readRecent({ minutes: 2 })).toEqual([
      { id: 2, time: '10:05:00', text: '十点五分 five past' },
    ]);
    expect((await store.readRecent({ count: 10 })).map((entry) => entry.text)).toEqual([
      '十点整',
      '十点五分 five past',
    ]);
    expect(await store.readSummary()).toBe('讲了矩阵');
    await expect(store.readRecent({ hours: 1 } as never)).rejects.toMatchObject({
      code: 'TRANSCRIPT_INVALID_ARGUMENT',
    });
    await store.close();
  });

  it("opens and continues an old product's file: header, no final newline, CRLF kept", async () => {
    const store0 = await open();
    await store0.close();
    await writeFile(
      path,
      '=== 课堂记录 开始于 2026-09-21 09:58:00 ===\r\n课程：线性代数\r\n\r\n[10:00:01] 同学们好\r\n[10:00:04] 今天讲',
    );
    const store = await open();
    expect(await store.readHeader()).toEqual({
      startedAt: '2026-09-21 09:58:00',
      courseName: '线性代数',
      materialName: null,
      foldedCount: 0,
    });
    await store.replaceLast('今天讲第三章。');
    await store.append('第一节 Section one');
    expect(await content()).toBe(
      '=== 课堂记录 开始于 2026-09-21 09:58:00 ===\r\n课程：线性代数\r\n\r\n[10:00:01] 同学们好\r\n[10:00:04] 今天讲第三章。\r\n[10:00:00] 第一节 Section one\r\n',
    );
    await store.close();
  });

  it('readTranscriptFile reads without opening for writing; a missing file is empty', async () => {
    expect((await readTranscriptFile(join(folder, 'none.txt'))).entries).toEqual([]);
    const store = await open();
    await store.append('hello 你好');
    expect((await readTranscriptFile(path)).entries).toEqual([
      { id: 1, time: '10:00:00', text: 'hello 你好' },
    ]);
    await store.close();
  });
});

describe('fold', () => {
  it('moves the oldest entries into the block, atomically, keeping the header and the rest', async () => {
    const store = await open();
    await store.reset({ courseName: '线性代数', materialName: 'ch3.txt' });
    for (let index = 0; index < 5; index += 1) await store.append(`第${index}句 sentence ${index}`);
    const oldest = (await store.read()).entries.slice(0, 3);
    const { ino } = await stat(path);
    expect(await store.fold({ summary: '前三句讲了开场。', entries: oldest })).toEqual({
      folded: true,
      foldedCount: 3,
      keptCount: 2,
    });
    expect((await stat(path)).ino).not.toBe(ino); // a new file was renamed over the old one
    expect(await content()).toBe(
      '=== 课堂记录 开始于 2026-09-21 10:00:00 ===\n课程：线性代数\n参考资料：ch3.txt\n=== 已折叠 3 条 ===\n\n' +
        `${SUMMARY_START_MARKER}\n前三句讲了开场。\n${SUMMARY_END_MARKER}\n` +
        '[10:00:00] 第3句 sentence 3\n[10:00:00] 第4句 sentence 4\n',
    );
    await store.append('after the fold');
    expect((await store.readRecent({ count: 3 })).map((entry) => entry.text)).toEqual([
      '第3句 sentence 3',
      '第4句 sentence 4',
      'after the fold',
    ]);
    expect(await readdir(join(folder, 'data'))).toEqual(['class_transcript.txt']);
    await store.close();
  });

  it('keeps every entry id across folds and a reopen; new entries continue the sequence', async () => {
    const store = await open();
    await store.reset({ courseName: '数据结构' });
    for (let index = 1; index <= 6; index += 1) await store.append(`第${index}句`);
    const before = (await store.read()).entries;
    expect(before.map((entry) => entry.id)).toEqual([1, 2, 3, 4, 5, 6]);
    await store.fold({ summary: '前两句', entries: before.slice(0, 2) });
    expect((await store.read()).entries).toEqual(before.slice(2));
    await store.fold({ summary: '前四句', entries: before.slice(2, 4) });
    expect((await store.read()).entries).toEqual(before.slice(4));
    expect(await content()).toContain('=== 已折叠 4 条 ===');
    await store.close();
    // A restarted backend sees the same ids and continues after them.
    const reopened = await open();
    expect((await reopened.read()).entries.map((entry) => entry.id)).toEqual([5, 6]);
    expect(reopened.lastId).toBe(6);
    expect((await reopened.append('第7句')).id).toBe(7);
    expect((await reopened.replaceLast('第7句，改')).id).toBe(7);
    await reopened.reset();
    expect(reopened.lastId).toBe(0);
    expect((await reopened.append('新课第一句')).id).toBe(1);
    await reopened.close();
  });

  it('refuses when the entries to fold changed, and changes nothing', async () => {
    const store = await open();
    await store.append('张三你来');
    const snapshot = (await store.read()).entries;
    await store.replaceLast('张三你来回答');
    const before = await content();
    expect(await store.fold({ summary: 's', entries: snapshot })).toEqual({
      folded: false,
      reason: 'entries-changed',
    });
    expect(await content()).toBe(before);
    await expect(store.fold({ summary: ' \n ', entries: [] })).rejects.toMatchObject({
      code: 'TRANSCRIPT_SUMMARY_EMPTY',
    });
    await store.close();
  });

  it('removes temp files a killed fold left behind, but not those of a running process', async () => {
    const store0 = await open();
    await store0.close();
    const stale = join(folder, 'data', '.class_transcript.txt.tmp-999999999-abcd');
    const live = join(folder, 'data', `.class_transcript.txt.tmp-${process.ppid}-abcd`);
    await writeFile(stale, 'half a fold');
    await writeFile(live, 'a fold in progress');
    const store = await open();
    const names = await readdir(join(folder, 'data'));
    expect(names).not.toContain('.class_transcript.txt.tmp-999999999-abcd');
    expect(names).toContain(`.class_transcript.txt.tmp-${process.ppid}-abcd`);
    await store.close();
  });
});

describe('changes made by others', () => {
  it('notices a line appended by another program and keeps both', async () => {
    const store = await open();
    await store.append('mine 1');
    await appendFile(path, '[10:00:01] theirs 他们的\n');
    await store.append('mine 2');
    expect((await store.read()).entries.map((entry) => entry.text)).toEqual([
      'mine 1',
      'theirs 他们的',
      'mine 2',
    ]);
    await store.close();
  });

  it('notices the file replaced by an editor, and a deleted file is started afresh', async () => {
    const store = await open();
    await store.append('original line');
    const edited = join(folder, 'edited.txt');
    await writeFile(edited, '[09:00:00] edited by hand 手改的\n');
    await rename(edited, path);
    await store.append('after edit');
    expect(await content()).toBe('[09:00:00] edited by hand 手改的\n[10:00:00] after edit\n');
    await rm(path);
    await store.append('after delete');
    expect(await content()).toBe('[10:00:00] after delete\n');
    await store.close();
  });
});

describe('open and close', () => {
  it('drops only the incomplete character a torn append left at the end', async () => {
    const store0 = await open();
    await store0.close();
    const torn = Buffer.concat([
      Buffer.from('[10:00:00] 完整\n[10:00:01] 半'),
      Buffer.from('句', 'utf8').subarray(0, 2),
    ]);
    await writeFile(path, torn);
    const store = await open();
    expect((await store.read()).entries).toEqual([
      { id: 1, time: '10:00:00', text: '完整' },
      { id: 2, time: '10:00:01', text: '半' },
    ]);
    await store.append('next');
    expect(await content()).toBe('[10:00:00] 完整\n[10:00:01] 半\n[10:00:00] next\n');
    await store.close();
  });

  it('refuses use after close', async () => {
    const store = await open();
    await store.close();
    await expect(store.append('x')).rejects.toMatchObject({ code: 'TRANSCRIPT_CLOSED' });
    await expect(store.readSummary()).rejects.toMatchObject({ code: 'TRANSCRIPT_CLOSED' });
  });

  it('rejects malformed options and timestamps with a coded error, writing nothing', async () => {
    const invalid = (message: RegExp) => ({
      code: 'TRANSCRIPT_INVALID_ARGUMENT',
      message: expect.stringMatching(message),
    });
    await expect(TranscriptStore.open(path, null as never)).rejects.toMatchObject(
      invalid(/options must be an object, got null/),
    );
    await expect(TranscriptStore.open(path, { now: 'noon' as never })).rejects.toMatchObject(
      invalid(/options\.now must be a function/),
    );
    await expect(TranscriptStore.open(path, { durable: 'yes' as never })).rejects.toMatchObject(
      invalid(/options\.durable must be a boolean/),
    );
    const store = await open();
    await expect(store.append('hello', null as never)).rejects.toMatchObject(
      invalid(/append: options must be an object/),
    );
    await expect(store.append('hello', { time: new Date(Number.NaN) })).rejects.toMatchObject(
      invalid(/options\.time is an invalid Date/),
    );
    await expect(store.reset({ courseName: 42 as never })).rejects.toMatchObject(
      invalid(/header\.courseName must be a string, got 42/),
    );
    clock = new Date(Number.NaN);
    await expect(store.append('hello')).rejects.toMatchObject(
      invalid(/options\.now\(\) returned an invalid Date/),
    );
    expect(await content()).not.toContain('NaN');
    expect((await store.read()).entries).toEqual([]);
    await store.close();
  });

  it('names the path when the file cannot be opened', async () => {
    await writeFile(join(folder, 'blocker'), 'a file where a folder should be');
    await expect(
      TranscriptStore.open(join(folder, 'blocker', 'class_transcript.txt')),
    ).rejects.toMatchObject({
      code: 'TRANSCRIPT_IO_FAILED',
      message: expect.stringContaining('blocker'),
    });
  });
});
