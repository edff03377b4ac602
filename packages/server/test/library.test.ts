// The class library through the HTTP API: classes kept one after another, search across them,
// export, notes, delete, an index rebuilt from the folders, hand edits, the import of an earlier
// version's files, and clear errors.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import type { LiveEvent } from '../src/events/event-hub.ts';
import { FAST_MOCK, waitFor } from './support/harness.ts';

const SUMMARY = '历史摘要：老师讲了链表的插入和删除。';
const NOTES = '# 数据结构课堂笔记\n\n## 知识点\n\n循环队列用 (rear + 1) % size == front 判满。';

let llm: FakeOpenAIServer;
beforeAll(async () => {
  llm = await createFakeOpenAIServer({
    chat: (request) => {
      const system = String(request.body.messages?.[0]?.content ?? '');
      return { type: 'text', content: system.includes('可以复习的笔记') ? NOTES : SUMMARY };
    },
  });
});
afterAll(async () => {
  await llm.close();
});

/** A backend on a data folder that outlives it: started, stopped and started again. */
interface Backend {
  app: FastifyInstance;
  events: LiveEvent[];
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

let root: string;
let backends: Backend[] = [];

async function newRoot(): Promise<string> {
  root = await mkdtemp(join(tmpdir(), 'class-assistant-library-'));
  await writeFile(
    join(root, '.env'),
    [
      ...FAST_MOCK,
      'HISTORY_FOLD_ENTRIES=10',
      `LLM_BASE_URL=${llm.baseURL}`,
      'LLM_API_KEY=sk-test',
      'LLM_MODEL=class-model',
      '',
    ].join('\n'),
  );
  return root;
}

async function startBackend(): Promise<Backend> {
  const app = await buildApp({
    dataDir: join(root, 'data'),
    envFile: join(root, '.env'),
    port: 8765,
  });
  await app.ready();
  const events: LiveEvent[] = [];
  app.classAssistant.hub.subscribe((event) => events.push(event));
  let closed = false;
  const backend: Backend = {
    app,
    events,
    request: (options) =>
      app.inject({ ...options, headers: { host: '127.0.0.1:8765', ...options.headers } }),
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
    },
  };
  backends.push(backend);
  return backend;
}

afterEach(async () => {
  for (const backend of backends) await backend.close();
  backends = [];
  await rm(root, { recursive: true, force: true });
});

/** Runs the bundled mock lecture as one class to its end; returns every line acknowledged. */
async function runClass(backend: Backend, body: object): Promise<Map<number, string>> {
  const from = backend.events.length;
  const started = await backend.request({
    method: 'POST',
    url: '/api/start_monitor',
    payload: body,
  });
  expect(started.json().status).toBe('started');
  await waitFor(
    () =>
      backend.events
        .slice(from)
        .some(
          (event) =>
            event.name === 'monitor.changed' &&
            (event.data as { recognizer_state?: string }).recognizer_state === 'ended',
        ),
    20_000,
    'the mock lecture to end',
  );
  const stopped = await backend.request({
    method: 'POST',
    url: '/api/stop_monitor?with_summary=false',
  });
  expect(stopped.json().status).toBe('stopped');
  await backend.app.classAssistant.library.ready();
  const acknowledged = new Map<number, string>();
  for (const event of backend.events.slice(from)) {
    if (event.name === 'line.appended' || event.name === 'line.updated') {
      const line = event.data as { id: number; text: string };
      acknowledged.set(line.id, line.text);
    }
  }
  return acknowledged;
}

const MATERIAL =
  '--- 第 1 页 ---\n循环队列 Circular queue\n判满条件：(rear + 1) % size == front，牺牲一个存储单元。\n';

/** A backend that ran 数据结构 (with material) and then Algorithms, each to its end. */
async function twoClasses() {
  await newRoot();
  const backend = await startBackend();
  const material = await backend.app.classAssistant.cite.write(
    '第4章 循环队列.pptx',
    MATERIAL,
    new Date(2026, 2, 9),
  );
  const first = await runClass(backend, { course_name: '数据结构', cite_filename: material });
  const second = await runClass(backend, { course_name: 'Algorithms' });
  return { backend, material, first, second };
}

async function search(backend: Backend, query: string, extra = '') {
  const response = await backend.request({
    method: 'GET',
    url: `/api/search?q=${encodeURIComponent(query)}${extra}`,
  });
  expect(response.statusCode).toBe(200);
  return response.json().hits as Array<{
    class_id: string;
    course_name: string;
    kind: string;
    line_id?: number;
    timestamp?: string;
    snippet: string;
  }>;
}

describe('every class is kept', () => {
  it('keeps two classes in a row, each with every acknowledged line although the live file was folded', async () => {
    const { backend, material, first, second } = await twoClasses();
    expect(first.size).toBeGreaterThan(15);

    const list = (await backend.request({ method: 'GET', url: '/api/classes' })).json();
    expect(list.total).toBe(2);
    const [newer, older] = list.items;
    expect(newer).toMatchObject({
      course_name: 'Algorithms',
      live: false,
      line_count: second.size,
    });
    expect(older).toMatchObject({
      course_name: '数据结构',
      material_name: material,
      line_count: first.size,
      has_notes: false,
      live: false,
    });
    expect(older.alert_count).toBeGreaterThan(0);
    expect(older.ended_at).not.toBeNull();
    expect(Date.parse(newer.started_at)).toBeGreaterThanOrEqual(Date.parse(older.started_at));

    // The live file was folded (it keeps only the last lines), the class keeps them all.
    const live = await readFile(join(root, 'data', 'class_transcript.txt'), 'utf8');
    expect(live).toMatch(/=== 已折叠 \d+ 条 ===/);
    const detail = (
      await backend.request({ method: 'GET', url: `/api/classes/${older.id}` })
    ).json();
    expect(
      new Map(detail.lines.map((line: { id: number; text: string }) => [line.id, line.text])),
    ).toEqual(first);
    expect(detail.class.history_summary).toBe(SUMMARY);
    // Alerts carry the id of the line they were raised on.
    const rollCall = detail.alerts.find((alert: { keywords: string[] }) =>
      alert.keywords.includes('点名'),
    );
    expect(rollCall.level).toBe('danger');
    expect(first.get(rollCall.line_id)).toContain('随机点名');

    // Plain files a person can read (lines.jsonl: the lines' material pages).
    const folder = join(root, 'data', 'classes', older.id);
    expect((await readdir(folder)).sort()).toEqual([
      'class.json',
      'lines.jsonl',
      'material.txt',
      'transcript.txt',
    ]);
    const transcript = await readFile(join(folder, 'transcript.txt'), 'utf8');
    expect(transcript).toMatch(
      /^=== 课堂记录 开始于 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d ===\n课程：数据结构\n/,
    );
    expect(transcript).toContain(`=== 历史摘要 开始 ===\n${SUMMARY}\n=== 历史摘要 结束 ===`);
    expect(transcript).not.toContain('已折叠');
    const meta = JSON.parse(await readFile(join(folder, 'class.json'), 'utf8'));
    expect(meta).toMatchObject({ id: older.id, course_name: '数据结构', line_count: first.size });
    expect(await readFile(join(folder, 'material.txt'), 'utf8')).toContain(
      '循环队列 Circular queue',
    );
  });
});

describe('search, export, notes and delete', () => {
  it('finds lines, notes and material across classes with marked snippets, best first', async () => {
    const { backend, first } = await twoClasses();
    const [newer, older] = (await backend.request({ method: 'GET', url: '/api/classes' })).json()
      .items;

    // Notes for a past class through the LLM, streamed like /api/generate_summary/stream.
    const streamed = await backend.request({
      method: 'POST',
      url: `/api/classes/${older.id}/notes/stream`,
    });
    expect(streamed.headers['content-type']).toContain('text/event-stream');
    expect(streamed.body).toContain('event: text.delta');
    expect(streamed.body).toContain('event: end');
    const notesRequest = llm.chatRequests.at(-1)!;
    expect(String(notesRequest.body.messages?.at(-1)?.content)).toContain('随机点名');
    await backend.app.classAssistant.library.ready();

    // A 2-character Chinese query: every line of both classes, marked.
    const twoChars = await search(backend, '指针');
    const expected = [...first.values()].filter((text) => text.includes('指针'));
    expect(twoChars.filter((hit) => hit.kind === 'line').length).toBe(2 * expected.length);
    expect(twoChars[0]!.snippet).toContain('<mark>指针</mark>');
    // Best first: of lines saying it once, the shortest (BM25's length normalisation).
    expect(twoChars[0]!.snippet).toBe('对，两个<mark>指针</mark>：前驱的 next 和后继的 prev。');

    // Longer Chinese, English words by prefix, several words, one course.
    const hit = (await search(backend, '随机点名')).find((entry) => entry.class_id === older.id)!;
    expect(hit).toMatchObject({ kind: 'line', course_name: '数据结构' });
    expect(first.get(hit.line_id!)).toContain('随机点名');
    expect(hit.timestamp).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(hit.snippet).toContain('<mark>随机点名</mark>');
    const english = await search(backend, 'deadl');
    expect(english.length).toBe(2);
    expect(english[0]!.snippet).toMatch(/<mark>deadl<\/mark>ine/i);
    const mixed = await search(backend, 'push 栈');
    expect(mixed.length).toBe(2);
    expect(mixed[0]!.snippet).toContain('<mark>push</mark>');
    // Chinese and a word in one part (no space) is one phrase.
    expect((await search(backend, '入栈叫push')).length).toBe(2);
    expect(await search(backend, '出栈叫push')).toEqual([]);
    const oneCourse = await search(backend, '指针', `&course=${encodeURIComponent('Algorithms')}`);
    expect(oneCourse.length).toBe(expected.length);
    expect(oneCourse.every((entry) => entry.class_id === newer.id)).toBe(true);
    expect(await search(backend, '量子力学')).toEqual([]);

    // Notes and material are searched too.
    const notesHits = (await search(backend, '判满')).filter((entry) => entry.kind !== 'line');
    expect(notesHits.map((entry) => entry.kind).sort()).toEqual(['material', 'notes']);
    expect(notesHits.every((entry) => entry.class_id === older.id)).toBe(true);
    expect(notesHits.find((entry) => entry.kind === 'material')!.snippet).toContain(
      '<mark>判满</mark>',
    );
    // A single Chinese character works as well.
    expect((await search(backend, '栈')).length).toBeGreaterThan(0);

    // Export in three formats.
    const markdown = await backend.request({
      method: 'GET',
      url: `/api/classes/${older.id}/export?format=md`,
    });
    expect(markdown.statusCode).toBe(200);
    expect(markdown.headers['content-type']).toContain('text/markdown');
    expect(String(markdown.headers['content-disposition'])).toContain(
      `filename*=UTF-8''${encodeURIComponent(`数据结构_${older.id}.md`)}`,
    );
    expect(markdown.body).toMatch(/^# 数据结构 · \d{4}-\d\d-\d\d \d\d:\d\d\n/);
    expect(markdown.body).toContain('## 课堂记录 (Transcript)');
    expect(markdown.body).toMatch(
      /- \*\*\[\d\d:\d\d:\d\d\]\*\* 🔴 \*\*.*随机点名.*\*\* _\(.*点名.*\)_/,
    );
    expect(markdown.body).toContain(`## 历史摘要 (History summary)\n\n${SUMMARY}`);
    expect(markdown.body).toContain('## 笔记 (Notes)\n\n# 数据结构课堂笔记');
    const text = await backend.request({
      method: 'GET',
      url: `/api/classes/${older.id}/export?format=txt`,
    });
    expect(text.headers['content-type']).toContain('text/plain');
    expect(text.body).toBe(
      await readFile(join(root, 'data', 'classes', older.id, 'transcript.txt'), 'utf8'),
    );
    const srt = await backend.request({
      method: 'GET',
      url: `/api/classes/${older.id}/export?format=srt`,
    });
    const cues = srt.body.trim().split('\n\n');
    expect(cues.length).toBe(first.size);
    expect(cues[0]).toMatch(/^1\n00:00:0\d,000 --> 00:00:\d\d,000\n.+$/);
    expect(cues.every((cue, index) => cue.startsWith(`${index + 1}\n`))).toBe(true);

    // Delete: the folder and the hits go, the other class stays.
    const deleted = await backend.request({ method: 'DELETE', url: `/api/classes/${older.id}` });
    expect(deleted.json()).toMatchObject({ status: 'success', class_id: older.id });
    await expect(stat(join(root, 'data', 'classes', older.id))).rejects.toThrow();
    expect((await search(backend, '判满')).filter((entry) => entry.class_id === older.id)).toEqual(
      [],
    );
    expect((await search(backend, '指针')).every((entry) => entry.class_id === newer.id)).toBe(
      true,
    );
    expect((await backend.request({ method: 'GET', url: '/api/classes' })).json().total).toBe(1);
    expect(
      backend.events.some(
        (event) =>
          event.name === 'library.changed' &&
          (event.data as { class_id: string; change: string }).change === 'deleted',
      ),
    ).toBe(true);
  });

  it('answers bad ids and queries with clear 4xx errors, and keeps the running class', async () => {
    await newRoot();
    const backend = await startBackend();
    const call = async (method: 'GET' | 'POST' | 'DELETE', url: string) => {
      const response = await backend.request({ method, url });
      return { status: response.statusCode, body: response.json() };
    };
    expect(await call('GET', '/api/classes/..%2F..%2Fsecrets')).toMatchObject({
      status: 400,
      body: { code: 'CLASS_ID_INVALID', field: 'id' },
    });
    expect(await call('GET', '/api/classes/20200101-000000-zzzz')).toMatchObject({
      status: 404,
      body: { code: 'CLASS_NOT_FOUND' },
    });
    expect(await call('DELETE', '/api/classes/not-a-class')).toMatchObject({
      status: 400,
      body: { code: 'CLASS_ID_INVALID' },
    });
    expect(await call('POST', '/api/classes/20200101-000000-zzzz/notes')).toMatchObject({
      status: 404,
      body: { code: 'CLASS_NOT_FOUND' },
    });
    expect(await call('GET', '/api/search?q=')).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED', field: 'querystring.q' },
    });
    expect(await call('GET', '/api/search?q=%E3%80%82!!%20%3F')).toMatchObject({
      status: 400,
      body: { code: 'SEARCH_QUERY_INVALID', field: 'q' },
    });
    expect(await call('GET', '/api/search?q=abc&limit=0')).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED', field: 'querystring.limit' },
    });
    expect(await call('GET', '/api/classes?limit=500')).toMatchObject({ status: 400 });

    await backend.request({
      method: 'POST',
      url: '/api/settings',
      payload: { fields: { MOCK_LOOP: 'true' } },
    });
    await backend.request({
      method: 'POST',
      url: '/api/start_monitor',
      payload: { course_name: '数据结构' },
    });
    const [running] = (await call('GET', '/api/classes')).body.items;
    expect(running).toMatchObject({ live: true, ended_at: null, course_name: '数据结构' });
    expect(await call('GET', `/api/classes/${running.id}/export?format=pdf`)).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_FAILED', field: 'querystring.format' },
    });
    expect(await call('DELETE', `/api/classes/${running.id}`)).toMatchObject({
      status: 409,
      body: { code: 'CLASS_RUNNING' },
    });
    // The running class is readable, with its lines so far.
    await waitFor(
      async () => (await call('GET', `/api/classes/${running.id}`)).body.lines.length > 2,
    );
    await backend.request({ method: 'POST', url: '/api/stop_monitor?with_summary=false' });
    expect((await call('DELETE', `/api/classes/${running.id}`)).status).toBe(200);
  });
});

describe('the index is only an index', () => {
  async function twoClassesThenRestart(damage: (path: string) => Promise<void>) {
    await newRoot();
    let backend = await startBackend();
    await runClass(backend, { course_name: '数据结构' });
    await runClass(backend, { course_name: 'Algorithms' });
    const queries = ['指针', '随机点名', 'deadl', '循环队列 rear'];
    const before = await Promise.all(queries.map((query) => search(backend, query)));
    expect(before.every((hits) => hits.length > 0)).toBe(true);
    await backend.close();
    await damage(join(root, 'data', 'library.db'));
    backend = await startBackend();
    await backend.app.classAssistant.library.ready();
    const after = await Promise.all(queries.map((query) => search(backend, query)));
    expect(after).toEqual(before);
    return backend;
  }

  it('rebuilds a deleted library.db from the class folders: the same hits', async () => {
    await twoClassesThenRestart((path) => rm(path));
  });

  it('rebuilds a truncated library.db from the class folders: the same hits', async () => {
    await twoClassesThenRestart(async (path) => {
      const { size } = await stat(path);
      await truncate(path, Math.floor(size / 3));
      await rm(`${path}-wal`, { force: true });
    });
  });

  it('rebuilds a library.db that is not a database at all', async () => {
    await twoClassesThenRestart((path) => writeFile(path, 'not a database'.repeat(100)));
  });

  it('re-indexes a class folder edited by hand', async () => {
    await newRoot();
    let backend = await startBackend();
    await runClass(backend, { course_name: '数据结构' });
    const [kept] = (await backend.request({ method: 'GET', url: '/api/classes' })).json().items;
    await backend.close();
    const folder = join(root, 'data', 'classes', kept.id);
    const transcript = await readFile(join(folder, 'transcript.txt'), 'utf8');
    await writeFile(
      join(folder, 'transcript.txt'),
      `${transcript.replace('随机点名', '按学号点名')}[10:59:00] 补充：红黑树下周讲。\n`,
    );
    const meta = JSON.parse(await readFile(join(folder, 'class.json'), 'utf8'));
    await writeFile(
      join(folder, 'class.json'),
      JSON.stringify({ ...meta, course_name: '数据结构与算法' }),
    );
    backend = await startBackend();
    await backend.app.classAssistant.library.ready();
    const [hit] = await search(backend, '红黑树');
    expect(hit).toMatchObject({ class_id: kept.id, course_name: '数据结构与算法', kind: 'line' });
    expect(hit!.line_id).toBe(kept.line_count + 1);
    expect(await search(backend, '随机点名')).toEqual([]);
    expect((await search(backend, '按学号点名')).length).toBe(1);

    // While running: a class opened after an edit is indexed again at once.
    await writeFile(join(folder, 'notes.md'), '# 手写笔记\n\n哈希表的装填因子。\n');
    await backend.request({ method: 'GET', url: `/api/classes/${kept.id}` });
    await backend.app.classAssistant.library.ready();
    expect((await search(backend, '装填因子'))[0]).toMatchObject({
      kind: 'notes',
      class_id: kept.id,
    });
  });
});

describe('the first start after an earlier version', () => {
  it('imports the live transcript and the notes as classes', async () => {
    await newRoot();
    const data = join(root, 'data');
    await mkdir(join(data, 'summaries'), { recursive: true });
    await writeFile(
      join(data, 'class_transcript.txt'),
      [
        '=== 课堂记录 开始于 2026-03-09 10:00:00 ===',
        '课程：线性代数',
        '=== 已折叠 40 条 ===',
        '',
        '=== 历史摘要 开始 ===',
        '前四十行讲了行列式的定义。',
        '=== 历史摘要 结束 ===',
        '[10:40:00] 今天的重点是矩阵的秩。',
        '[10:41:00] 秩等于线性无关的行向量的最大个数。',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(data, 'summaries', '线性代数_20260309_115000.md'),
      '# 线性代数笔记\n\n矩阵的秩。\n',
    );
    await writeFile(
      join(data, 'summaries', '大学物理_20260301_090000.md'),
      '# 物理笔记\n\n动量守恒。\n',
    );
    const backend = await startBackend();
    await backend.app.classAssistant.library.ready();
    const items = (await backend.request({ method: 'GET', url: '/api/classes' })).json().items;
    expect(items.map((item: { course_name: string }) => item.course_name)).toEqual([
      '线性代数',
      '大学物理',
    ]);
    expect(items[0]).toMatchObject({ line_count: 2, has_notes: true });
    expect(items[0].id).toMatch(/^20260309-100000-[a-z0-9]{4}$/);
    expect(items[1]).toMatchObject({ line_count: 0, has_notes: true });
    const detail = (
      await backend.request({ method: 'GET', url: `/api/classes/${items[0].id}` })
    ).json();
    expect(detail.lines.map((line: { id: number }) => line.id)).toEqual([41, 42]);
    expect(detail.class.history_summary).toBe('前四十行讲了行列式的定义。');
    expect(detail.class.notes).toContain('矩阵的秩');
    expect((await search(backend, '动量守恒'))[0]).toMatchObject({
      kind: 'notes',
      class_id: items[1].id,
    });
    expect((await search(backend, '线性无关'))[0]).toMatchObject({ line_id: 42 });
    // The original files stay where the original client reads them.
    expect(await readdir(join(data, 'summaries'))).toHaveLength(2);
  });
});
