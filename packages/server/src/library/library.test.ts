// The library's part in resuming a class after a crash, on real files and a real index: a running
// class notes that its backend is alive even while nobody speaks, and the next start offers the
// class for resuming only within 30 minutes of that last sign of life.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TranscriptStore } from '@class-assistant/transcript-core';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClassMeta } from './class-folder.ts';
import { type Library, openLibrary, RESUME_WINDOW_MS } from './library.ts';

const quiet = { info() {}, warn() {}, error() {} };

let root: string | undefined;
const opened: Array<{ library: Library; store: TranscriptStore }> = [];
afterEach(async () => {
  for (const { library, store } of opened.splice(0)) {
    await library.close();
    await store.close();
  }
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

/** Opens the library of `dataDir` as a backend starting on it does. */
async function open(dataDir: string, options: { now?: () => Date; aliveIntervalMs?: number }) {
  const store = await TranscriptStore.open(join(dataDir, 'class_transcript.txt'));
  const library = await openLibrary({ dataDir, store, logger: quiet, rescanMs: 0, ...options });
  opened.push({ library, store });
  return { library, store };
}

const readMeta = async (dataDir: string, id: string) =>
  JSON.parse(await readFile(join(dataDir, 'classes', id, 'class.json'), 'utf8')) as ClassMeta;

/**
 * A class with two lines whose backend then "dies": its library and store are closed without
 * the class ending (what a kill -9 leaves: class.json without an end).
 */
async function classLeftRunning(dataDir: string) {
  const { library, store } = await open(dataDir, { aliveIntervalMs: 20 });
  await store.reset({ courseName: '数据结构' });
  await library.classStarted({
    courseName: '数据结构',
    materialName: '',
    materialText: '',
    startedAt: new Date(),
    source: null,
  });
  await store.append('链表的每个节点保存数据和指针。');
  await store.append('栈是后进先出。');
  const [listed] = library.list({ offset: 0, limit: 10 }).items;
  const id = listed!.id;
  // Nobody speaks, and the class still says it is alive.
  let latest = (await readMeta(dataDir, id)).alive_at ?? '';
  const deadline = Date.now() + 10_000;
  for (let notes = 0; notes < 2; ) {
    if (Date.now() > deadline) throw new Error('class.json never noted the class alive again');
    const noted = (await readMeta(dataDir, id)).alive_at!;
    if (noted > latest) {
      latest = noted;
      notes++;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const { mtime } = await stat(join(dataDir, 'class_transcript.txt'));
  expect(new Date(latest).getTime()).toBeGreaterThan(mtime.getTime());
  const died = opened.pop()!;
  await died.library.close();
  await died.store.close();
  const meta = await readMeta(dataDir, id);
  expect(meta.ended_at).toBeNull();
  return { id, lastAliveAt: new Date(meta.alive_at!) };
}

describe('a class whose backend died', () => {
  it('is offered for resuming within 30 minutes of its last sign of life, which a quiet class keeps writing', async () => {
    root = await mkdtemp(join(tmpdir(), 'class-assistant-library-'));
    const dataDir = join(root, 'data');
    const { id, lastAliveAt } = await classLeftRunning(dataDir);

    const later = new Date(lastAliveAt.getTime() + RESUME_WINDOW_MS - 60_000);
    const { library } = await open(dataDir, { now: () => later });
    expect(library.interrupted()).toEqual({
      id,
      courseName: '数据结构',
      materialName: '',
      startedAt: new Date((await readMeta(dataDir, id)).started_at),
      lastAliveAt,
    });
    await library.ready();
    // Waiting to be resumed, it is neither ended by the index nor listed as ended.
    expect((await readMeta(dataDir, id)).ended_at).toBeNull();
    expect(library.list({ offset: 0, limit: 10 }).items[0]).toMatchObject({ id, ended_at: null });
  });

  it('is closed at its last sign of life, with its lines, when that was more than 30 minutes ago', async () => {
    root = await mkdtemp(join(tmpdir(), 'class-assistant-library-'));
    const dataDir = join(root, 'data');
    const { id, lastAliveAt } = await classLeftRunning(dataDir);

    const later = new Date(lastAliveAt.getTime() + RESUME_WINDOW_MS + 60_000);
    const { library } = await open(dataDir, { now: () => later });
    expect(library.interrupted()).toBeNull();
    const meta = await readMeta(dataDir, id);
    expect(meta.ended_at).toBe(lastAliveAt.toISOString());
    const detail = await library.get(id);
    expect(detail.lines.map((line) => line.text)).toEqual([
      '链表的每个节点保存数据和指针。',
      '栈是后进先出。',
    ]);
  });
});

describe('a class transcribed from a recording', () => {
  it('keeps its source in class.json, the list and the class, and after the index is rebuilt', async () => {
    root = await mkdtemp(join(tmpdir(), 'class-assistant-library-'));
    const dataDir = join(root, 'data');
    const { library, store } = await open(dataDir, {});
    await store.reset({ courseName: '线性代数' });
    await library.classStarted({
      courseName: '线性代数',
      materialName: '',
      materialText: '',
      startedAt: new Date(),
      source: { kind: 'recording', file_name: 'lecture 3.mp3', duration_ms: null },
    });
    await store.append('今天讲矩阵的秩。', { time: { positionMs: 2_000 } });
    const id = library.list({ offset: 0, limit: 10 }).items[0]!.id;
    expect((await readMeta(dataDir, id)).source).toEqual({
      kind: 'recording',
      file_name: 'lecture 3.mp3',
      duration_ms: null,
    });
    // The length is known once the recording is over.
    const source = {
      kind: 'recording' as const,
      file_name: 'lecture 3.mp3',
      duration_ms: 3_733_000,
    };
    await library.classEnded({ source });
    expect((await readMeta(dataDir, id)).source).toEqual(source);
    expect(library.list({ offset: 0, limit: 10 }).items[0]).toMatchObject({ id, source });
    const detail = await library.get(id);
    expect(detail.summary.source).toEqual(source);
    expect(detail.lines).toEqual([{ id: 1, time: '00:00:02', text: '今天讲矩阵的秩。' }]);

    // A new backend on the folder (its index rebuilt from class.json) lists it the same.
    const first = opened.pop()!;
    await first.library.close();
    await first.store.close();
    await rm(join(dataDir, 'library.db'), { force: true });
    const reopened = await open(dataDir, {});
    await reopened.library.ready();
    expect(reopened.library.list({ offset: 0, limit: 10 }).items[0]).toMatchObject({ id, source });
  });

  it('says nothing of a source for a live class, and ignores a damaged one', async () => {
    root = await mkdtemp(join(tmpdir(), 'class-assistant-library-'));
    const dataDir = join(root, 'data');
    const { library, store } = await open(dataDir, {});
    await store.reset({ courseName: '数据结构' });
    await library.classStarted({
      courseName: '数据结构',
      materialName: '',
      materialText: '',
      startedAt: new Date(),
      source: null,
    });
    await store.append('栈是后进先出。');
    await library.classEnded({ source: null });
    const id = library.list({ offset: 0, limit: 10 }).items[0]!.id;
    expect('source' in (await readMeta(dataDir, id))).toBe(false);
    expect((await library.get(id)).summary.source).toBeNull();
    // A hand edit that breaks the field loses only the field.
    const metaPath = join(dataDir, 'classes', id, 'class.json');
    const meta = { ...(await readMeta(dataDir, id)), source: { kind: 'tape' } };
    await writeFile(metaPath, JSON.stringify(meta));
    const detail = await library.get(id);
    expect(detail.summary).toMatchObject({ course_name: '数据结构', source: null });
  });
});
