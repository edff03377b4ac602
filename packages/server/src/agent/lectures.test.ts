import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isToolError } from '@class-assistant/agent-std';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLectures, type Lectures } from './lectures.ts';

let dataDir: string;
let lectures: Lectures;

const PAST = '20260302-100000-abcd';
const CURRENT = '20260309-100000-wxyz';

/** A class folder as the library writes it. */
async function addClass(options: {
  id: string;
  course: string;
  started: string;
  ended: string | null;
  lines: Array<[string, string]>;
  material?: string;
  notes?: string;
}) {
  const folder = join(dataDir, 'classes', options.id);
  await mkdir(folder, { recursive: true });
  const header = `=== 课堂记录 开始于 ${options.started} ===\n课程：${options.course}\n\n`;
  await writeFile(
    join(folder, 'transcript.txt'),
    header + options.lines.map(([time, text]) => `[${time}] ${text}\n`).join(''),
  );
  if (options.material) await writeFile(join(folder, 'material.txt'), options.material);
  if (options.notes) await writeFile(join(folder, 'notes.md'), options.notes);
  await writeFile(
    join(folder, 'class.json'),
    JSON.stringify({
      id: options.id,
      course_name: options.course,
      material_name: options.material ? 'deck_20260309_095000.txt' : '',
      started_at: new Date(options.started.replace(' ', 'T')).toISOString(),
      ended_at: options.ended,
      line_count: options.lines.length,
      alerts: [],
      notes_file: options.notes ? 'notes.md' : null,
      material_file: options.material ? 'material.txt' : null,
    }),
  );
}

const DECK =
  '--- 第 1 页 ---\n链表\n--- 第 2 页 ---\n堆是一棵完全二叉树\n--- 第 3 页 ---\n堆的插入：上浮\n';

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'lectures-'));
  await mkdir(join(dataDir, 'cite'));
  await mkdir(join(dataDir, 'summaries'));
  await addClass({
    id: PAST,
    course: '数据结构',
    started: '2026-03-02 10:00:00',
    ended: '2026-03-02T02:45:00.000Z',
    lines: [
      ['10:00:05', '今天讲二叉搜索树。'],
      ['10:20:00', '二叉搜索树的删除分三种情况。'],
    ],
    notes: '# 笔记\n\n二叉搜索树：左小右大。\n',
  });
  // The running class: lines 1-3 were folded into its folder, 4-6 are still in the live file.
  await addClass({
    id: CURRENT,
    course: '数据结构',
    started: '2026-03-09 10:00:00',
    ended: null,
    lines: [
      ['10:00:01', '上节课讲了二叉搜索树。'],
      ['10:05:00', '今天讲堆。'],
      ['10:09:30', '堆是一种优先队列。'],
    ],
    material: DECK,
  });
  await writeFile(
    join(dataDir, 'class_transcript.txt'),
    [
      '=== 课堂记录 开始于 2026-03-09 10:00:00 ===',
      '课程：数据结构',
      '=== 已折叠 3 条 ===',
      '',
      '=== 历史摘要 开始 ===',
      '讲了堆的定义。',
      '=== 历史摘要 结束 ===',
      '[10:12:00] 堆的插入要上浮。',
      '[10:15:00] 删除堆顶要下沉。',
      '',
    ].join('\n'),
  );
  await writeFile(join(dataDir, 'cite', 'deck_20260309_095000.txt'), DECK);
  await writeFile(
    join(dataDir, 'cite', '第5章_树_20260301_080000.txt'),
    '第五章 树\n树是一种层次结构。',
  );
  await writeFile(join(dataDir, 'summaries', '数据结构_20260302_110000.md'), '# 二叉搜索树笔记\n');
  lectures = createLectures({ dataDir, index: null });
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** The code and field of the ToolError a call fails with. */
async function failure(call: Promise<unknown>) {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!isToolError(error)) throw new Error(`expected a ToolError, got ${String(error)}`);
  return { code: error.code, field: error.field, message: error.message };
}

describe('the running class', () => {
  it('holds the lines folded into its folder and those still in the live transcript', async () => {
    const lecture = await lectures.read();
    expect(lecture).toMatchObject({
      id: CURRENT,
      live: true,
      current: true,
      courseName: '数据结构',
    });
    expect(lecture.entries.map((entry) => `${entry.id} ${entry.text}`)).toEqual([
      '1 上节课讲了二叉搜索树。',
      '2 今天讲堆。',
      '3 堆是一种优先队列。',
      '4 堆的插入要上浮。',
      '5 删除堆顶要下沉。',
    ]);
    const past = await lectures.read(PAST);
    expect(past).toMatchObject({ live: false, current: false, date: '2026-03-02 10:00' });
  });

  it('is listed as live, newest first, with its lines counted', async () => {
    const { total, classes } = await lectures.list({ limit: 10 });
    expect(total).toBe(2);
    expect(classes.map((item) => [item.class_id, item.live, item.ended, item.line_count])).toEqual([
      [CURRENT, true, false, 5],
      [PAST, false, true, 2],
    ]);
    expect((await lectures.list({ limit: 10, course: '操作系统' })).classes).toEqual([]);
  });
});

describe('class_lines', () => {
  it('reads a time window, the lines around one, or the last ones', async () => {
    const ids = async (options: Parameters<Lectures['lines']>[0]) =>
      (await lectures.lines(options)).lines.map((line) => line.id);
    expect(await ids({ from: '10:05', to: '10:12', limit: 40 })).toEqual([2, 3, 4]);
    // More than the limit: the first ones after `from`, the last ones before `to`.
    expect(await ids({ from: '10:00', limit: 2 })).toEqual([1, 2]);
    expect(await ids({ to: '10:12:00', limit: 2 })).toEqual([3, 4]);
    expect(await ids({ aroundLineId: 3, limit: 3 })).toEqual([2, 3, 4]);
    expect(await ids({ limit: 2 })).toEqual([4, 5]);
    expect(await ids({ classId: PAST, from: '9:00', limit: 40 })).toEqual([1, 2]);
    const window = await lectures.lines({ from: '10:06', to: '10:09', limit: 40 });
    expect(window).toMatchObject({ lines: [], more_before: 2, more_after: 3, total_lines: 5 });
    const around = await lectures.lines({ aroundLineId: 2, limit: 2 });
    expect(around).toMatchObject({ more_before: 0, more_after: 3 });
    expect(await failure(lectures.lines({ aroundLineId: 40, limit: 5 }))).toMatchObject({
      code: 'TOOL_NOT_FOUND',
      field: 'around_line_id',
    });
  });

  it('names a class id that is not one, or not in the library', async () => {
    expect(await failure(lectures.lines({ classId: '../../etc', limit: 5 }))).toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'class_id',
    });
    expect(
      await failure(lectures.lines({ classId: '20200101-000000-zzzz', limit: 5 })),
    ).toMatchObject({
      code: 'TOOL_NOT_FOUND',
      field: 'class_id',
    });
  });
});

describe('material_page', () => {
  it('reads a page of the current material, of a class, or of a material named in part', async () => {
    expect(await lectures.materialPage({ page: 2 })).toMatchObject({
      material: 'deck_20260309_095000.txt',
      class_id: CURRENT,
      page: 2,
      pages: 3,
      text: '--- 第 2 页 ---\n堆是一棵完全二叉树',
    });
    expect((await lectures.materialPage({ page: 3, material: CURRENT })).text).toContain('上浮');
    // A material without page markers is one page.
    expect(await lectures.materialPage({ page: 1, material: '第5章 树' })).toMatchObject({
      material: '第5章_树_20260301_080000.txt',
      pages: 1,
      text: '第五章 树\n树是一种层次结构。',
    });
    expect((await lectures.materialPage({ page: 1, material: 'deck.pptx' })).material).toBe(
      'deck_20260309_095000.txt',
    );
  });

  it('says which pages and materials there are when asked for others', async () => {
    expect(await failure(lectures.materialPage({ page: 9 }))).toMatchObject({
      code: 'TOOL_NOT_FOUND',
      field: 'page',
      message: '"deck_20260309_095000.txt" has no page 9 (pages 1 to 3)',
    });
    const missing = await failure(lectures.materialPage({ page: 1, material: '操作系统' }));
    expect(missing.message).toContain('no material matches "操作系统"');
    expect(missing.message).toContain('deck_20260309_095000.txt');
    expect(await failure(lectures.materialPage({ page: 1, material: PAST }))).toMatchObject({
      code: 'TOOL_NOT_FOUND',
      field: 'material',
    });
  });
});

describe('class_search without the index', () => {
  it('finds lines, pages and notes in the current class first, then in earlier classes', async () => {
    const { hits, current_matches } = await lectures.search('二叉搜索树', { limit: 10 });
    expect(current_matches).toBe(1);
    expect(hits.map((hit) => [hit.class_id, hit.current, hit.kind, hit.line_id ?? null])).toEqual([
      [CURRENT, true, 'line', 1],
      [PAST, false, 'line', 1],
      [PAST, false, 'line', 2],
      [PAST, false, 'notes', null],
    ]);
    const pages = await lectures.search('堆', { limit: 10, classId: CURRENT });
    expect(pages.hits.filter((hit) => hit.kind === 'material').map((hit) => hit.page)).toEqual([
      2, 3,
    ]);
    // The folded lines and the live ones alike, in time order.
    expect(
      pages.hits.filter((hit) => hit.kind === 'line').map((hit) => [hit.line_id, hit.time]),
    ).toEqual([
      [2, '10:05:00'],
      [3, '10:09:30'],
      [4, '10:12:00'],
      [5, '10:15:00'],
    ]);
    expect(await failure(lectures.search('？！', { limit: 5 }))).toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'query',
    });
  });
});

describe('notes_read', () => {
  it('reads a class’s notes or a notes file, and says when there are none', async () => {
    expect(await lectures.notes({ classId: PAST })).toMatchObject({
      class_id: PAST,
      notes: '# 笔记\n\n二叉搜索树：左小右大。\n',
      truncated: false,
    });
    expect(await lectures.notes({ filename: '数据结构_20260302_110000.md' })).toMatchObject({
      course_name: '数据结构',
      notes: '# 二叉搜索树笔记\n',
    });
    expect(await failure(lectures.notes({}))).toMatchObject({
      code: 'TOOL_NOT_FOUND',
      message: `class ${CURRENT} has no notes yet (class_list shows which classes have notes)`,
    });
    expect(await failure(lectures.notes({ filename: '../.env' }))).toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'filename',
    });
    const missing = await failure(lectures.notes({ filename: 'x.md' }));
    expect(missing.message).toContain('数据结构_20260302_110000.md');
  });
});
