// The student marks moments of a running class (★, POST /api/marks) over a real socket: refused
// without a class, in the student's language; kept in the class folder at once, so a backend
// killed mid-class still lists them when it comes back and resumes the class; listed with the
// class in the library and at the end of the notes written when the class stops.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { afterEach, expect, it } from 'vitest';
import { type BackendProcess, startBackendProcess } from './support/backend-process.ts';
import { classClient } from './support/class-client.ts';
import { waitFor } from './support/harness.ts';

const NOTES = '# 数据结构课堂笔记\n\n## 知识点\n\n- 循环队列判满';

let llm: FakeOpenAIServer | undefined;
let root: string | undefined;
const processes: BackendProcess[] = [];
const closers: Array<() => void> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  for (const backend of processes.splice(0)) await backend.stop();
  await llm?.close();
  llm = undefined;
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

interface Mark {
  line_id: number;
  timestamp: string;
  text: string;
  note: string;
  marked_at: string;
}
interface ClassAnswer {
  class: { notes: string | null; live: boolean };
  lines: Array<{ id: number; timestamp: string; text: string }>;
  marks: Mark[];
}

async function mark(base: string, body: object, language = 'zh-CN') {
  const response = await fetch(`${base}/api/marks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'accept-language': language },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const classOf = async (base: string, id: string) =>
  (await (await fetch(`${base}/api/classes/${id}`)).json()) as ClassAnswer;

it('marks moments of the running class: kept through a crash, listed in the library and the notes', async () => {
  llm = await createFakeOpenAIServer({ chat: () => ({ type: 'text', content: NOTES }) });
  const settings = [
    'ASR_MODE=mock',
    'MOCK_INTERVAL_MS=40',
    'MOCK_LOOP=true',
    'LOG_LEVEL=warn',
    `LLM_BASE_URL=${llm.baseURL}`,
    'LLM_API_KEY=sk-test',
    'LLM_MODEL=class-model',
  ];
  root = await mkdtemp(join(tmpdir(), 'class-assistant-marks-'));
  const first = await startBackendProcess(settings, process.env, { root });
  processes.push(first);

  // No class: a clear refusal, in the student's language.
  const refusedZh = await mark(first.base, {});
  expect(refusedZh.status).toBe(409);
  expect(refusedZh.body.code).toBe('CLASS_NOT_RUNNING');
  expect(refusedZh.body.message).toMatch(/^现在没有在上的课：开始上课后才能标记此刻。$/);
  const refusedEn = await mark(first.base, {}, 'en-US');
  expect(refusedEn.body.message).toBe('No class is running: start a class to mark a moment of it.');

  const client = await classClient(first.base);
  closers.push(() => client.close());
  expect((await client.start({ course_name: '数据结构' })).body.status).toBe('started');
  const { class_id: id } = (await client.events.next((event) => event.event === 'library.changed'))
    .data as { class_id: string };
  await waitFor(async () => (await client.transcript()).length >= 5, 30_000, 'five lines');

  // The newest line, with its time and text as the class has them.
  const newest = await mark(first.base, {});
  expect(newest.status).toBe(200);
  expect(newest.body.class_id).toBe(id);
  const newestMark = newest.body.mark as Mark;
  expect(newestMark.line_id).toBeGreaterThanOrEqual(5);
  const noted = await mark(first.base, { line_id: 2, note: '这里要考' });
  expect(noted.status).toBe(200);
  const bad = await mark(first.base, { line_id: 100_000 }, 'en-US');
  expect(bad.status).toBe(400);
  expect(bad.body.code).toBe('MARK_LINE_INVALID');
  expect(bad.body.message).toMatch(/^The class has no line 100000 \(it has \d+ lines\)\.$/);
  // The live event tells the other windows.
  const told = await client.events.next((event) => event.event === 'mark.added');
  expect((told.data as { class_id: string; mark: Mark }).mark.line_id).toBe(newestMark.line_id);

  const during = await classOf(first.base, id);
  const lineOf = (lineId: number) => during.lines.find((line) => line.id === lineId)!;
  expect(during.marks.map((item) => [item.line_id, item.timestamp, item.text, item.note])).toEqual([
    [newestMark.line_id, lineOf(newestMark.line_id).timestamp, lineOf(newestMark.line_id).text, ''],
    [2, lineOf(2).timestamp, lineOf(2).text, '这里要考'],
  ]);

  // Killed mid-class: the marks were on disk already; the class resumes with them.
  const exited = new Promise((resolve) => first.child.once('exit', resolve));
  first.child.kill('SIGKILL');
  await exited;
  const second = await startBackendProcess(settings, process.env, { root });
  processes.push(second);
  await waitFor(async () => (await classOf(second.base, id)).class.live, 20_000, 'the resume');
  expect((await classOf(second.base, id)).marks).toEqual(during.marks);
  expect((await mark(second.base, { line_id: 1 })).status).toBe(200);

  // Stopped with notes: the marks close them, in the order of the class.
  const stopped = await fetch(`${second.base}/api/stop_monitor`, { method: 'POST' });
  const answer = (await stopped.json()) as { summary?: { filename: string } };
  expect(answer.summary?.filename).toMatch(/^数据结构_\d{8}_\d{6}\.md$/);
  const written = await readFile(
    join(second.dataDir, 'summaries', answer.summary!.filename),
    'utf8',
  );
  const [llmPart, marksPart] = written.split('\n\n## ★ 标记 / Marked moments\n\n');
  expect(llmPart).toBe(NOTES);
  const items = marksPart!.trimEnd().split('\n');
  expect(items).toHaveLength(3);
  expect(items[0]!.replaceAll('\\', '')).toBe(`- **${lineOf(1).timestamp}** ${lineOf(1).text}`);
  expect(items[1]!.replaceAll('\\', '')).toBe(
    `- **${lineOf(2).timestamp}** ${lineOf(2).text} — 这里要考`,
  );
  expect(items[2]!.replaceAll('\\', '')).toBe(
    `- **${lineOf(newestMark.line_id).timestamp}** ${lineOf(newestMark.line_id).text}`,
  );
  // The class keeps the same notes, marks included.
  const ended = await classOf(second.base, id);
  expect(ended.class.notes?.trimEnd()).toBe(written.trimEnd());
  expect(ended.marks).toHaveLength(3);
}, 120_000);
