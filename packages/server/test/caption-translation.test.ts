// Translated captions end to end: a mock class over the real HTTP API and its event stream, the
// scripted fake OpenAI-compatible LLM on a loopback socket (streaming). Each Chinese line gets
// `line.translated` events (partial, then final) within 5 s of its `line.appended`; the
// translations are kept with the class (/api/transcript, the library, a backend started again on
// the same data folder — without asking the LLM again), searchable and exported. Without an LLM
// the class says so once and goes on; a slow or failing LLM never holds a line back.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createFakeOpenAIServer,
  type FakeChatReply,
  type FakeOpenAIServer,
  type RecordedChatRequest,
} from '@class-assistant/agent-std/testing';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { type ClassClient, classClient } from './support/class-client.ts';
import { waitFor } from './support/harness.ts';
import type { ReceivedEvent } from './support/sse-client.ts';

const KEY = 'sk-translate-test-0000000000';

const SCRIPT = [
  '好，同学们我们开始上课，今天讲循环队列。',
  '循环队列里，rear 等于 front 的时候，到底是队空还是队满？',
  'Today we continue with stacks and queues.',
  '常见的做法是空出一个位置，表示队满。',
  '王小明，你来说说栈和队列有什么区别？',
  'A stack is last in, first out.',
  '下面布置作业：实现一个循环队列，这周五之前提交。',
  '下节课我们讲树和二叉树。',
];
const CHINESE = SCRIPT.filter((line) => /\p{Script=Han}/u.test(line));
const ENGLISH = SCRIPT.filter((line) => !/\p{Script=Han}/u.test(line));

/** The fake model's English for each Chinese line: "EN <n>: circular queue …" (searchable). */
const englishOf = (text: string) =>
  `EN${SCRIPT.indexOf(text) + 1}: the teacher says ${text.length} characters about circularqueue${SCRIPT.indexOf(text) + 1}`;

/** The numbered lines a request asks to translate. */
function linesOf(request: RecordedChatRequest): string[] {
  const user = String(request.body.messages?.at(-1)?.content ?? '');
  return user
    .split('\n')
    .slice(1)
    .map((line) => line.replace(/^\d+\. /, ''));
}

/** A streamed answer translating every line of the request, a few characters at a time. */
function translate(request: RecordedChatRequest): FakeChatReply {
  const content = linesOf(request)
    .map((line, index) => `${index + 1}. ${englishOf(line)}`)
    .join('\n');
  return { type: 'text', content, chunkSize: 4, delayMs: 10 };
}

interface Backend {
  app: FastifyInstance;
  base: string;
  client: ClassClient;
  /** When each event arrived at the client (ms, performance.now()), by its index in `events`. */
  arrivals: number[];
  stop(): Promise<void>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function folder(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'class-assistant-translate-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  await writeFile(join(root, 'lecture.txt'), `${SCRIPT.join('\n')}\n`);
  await mkdir(join(root, 'data', 'cite'), { recursive: true });
  return root;
}

async function startBackend(root: string, settings: string[]): Promise<Backend> {
  await writeFile(join(root, '.env'), `${settings.join('\n')}\n`);
  const app = await buildApp({ dataDir: join(root, 'data'), envFile: join(root, '.env') });
  await app.listen({ host: '127.0.0.1', port: 0 });
  let closed = false;
  const base = `http://127.0.0.1:${app.classAssistant.port()}`;
  const client = await classClient(base);
  const arrivals: number[] = [];
  // Stamps each event as it arrives (the client parses the stream as it comes).
  const stamp = setInterval(() => {
    while (arrivals.length < client.events.events.length) arrivals.push(performance.now());
  }, 2);
  const stop = async () => {
    if (closed) return;
    closed = true;
    clearInterval(stamp);
    client.close();
    await app.close();
  };
  cleanups.push(stop);
  return { app, base, client, arrivals, stop };
}

const llmSettings = (llm: FakeOpenAIServer) => [
  `LLM_BASE_URL=${llm.baseURL}`,
  `LLM_API_KEY=${KEY}`,
  'LLM_MODEL=translate-model',
];
const mockSettings = (root: string, intervalMs: number) => [
  'ASR_MODE=mock',
  `MOCK_SCRIPT=${join(root, 'lecture.txt')}`,
  `MOCK_INTERVAL_MS=${intervalMs}`,
  'MOCK_LOOP=false',
  'STUDENT_NAME=王小明',
];

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

interface Line {
  id: number;
  text: string;
  translation: string | null;
}

const dataOf = <T>(event: ReceivedEvent) => event.data as T;

describe('translated captions', () => {
  it('translates each Chinese line within 5 s, streamed, batched with the glossary, kept, searchable and exported', async () => {
    const llm = await createFakeOpenAIServer({ apiKey: KEY, chat: translate });
    cleanups.push(() => llm.close());
    const root = await folder();
    await writeFile(
      join(root, 'data', 'cite', 'queues.txt'),
      '--- 第 1 页 ---\n循环队列 enqueue dequeue\n循环队列的 enqueue 和 dequeue\n循环队列判满\n',
    );
    const settings = [...mockSettings(root, 300), ...llmSettings(llm), 'TRANSLATE_CAPTIONS=en'];
    const first = await startBackend(root, settings);
    const { client, base, arrivals } = first;
    const started = await client.start({ course_name: '数据结构', cite_filename: 'queues.txt' });
    expect(started.body.status).toBe('started');
    await client.recognizerState('ended');

    // Every Chinese line: its final translation within 5 s of its line.appended.
    const appended = () => client.all('line.appended').map((event) => dataOf<Line>(event));
    const finals = await waitFor(
      () => {
        const done = client
          .all('line.translated')
          .filter((event) => dataOf<{ final: boolean }>(event).final);
        return done.length >= CHINESE.length && done;
      },
      60_000,
      'every Chinese line to be translated',
    );
    const events = client.events.events;
    await waitFor(() => arrivals.length >= events.length, 5000, 'the events to be stamped');
    const latencies: number[] = [];
    for (const line of appended().filter((item) => CHINESE.includes(item.text))) {
      const appendedAt =
        arrivals[
          events.findIndex(
            (event) => event.event === 'line.appended' && dataOf<Line>(event).id === line.id,
          )
        ]!;
      const finalIndex = events.findIndex(
        (event) =>
          event.event === 'line.translated' &&
          dataOf<{ id: number; final: boolean }>(event).id === line.id &&
          dataOf<{ final: boolean }>(event).final,
      );
      expect(finalIndex).toBeGreaterThan(-1);
      expect(dataOf<{ translation: string }>(events[finalIndex]!).translation).toBe(
        englishOf(line.text),
      );
      latencies.push(arrivals[finalIndex]! - appendedAt);
    }
    expect(Math.max(...latencies)).toBeLessThan(5000);
    console.info(
      `line.appended -> final line.translated: ${latencies.map((ms) => Math.round(ms)).join(', ')} ms`,
    );
    expect(finals).toHaveLength(CHINESE.length);
    // The text streamed: parts of translations came before the final ones.
    const partials = client
      .all('line.translated')
      .filter((event) => !dataOf<{ final: boolean }>(event).final);
    expect(partials.length).toBeGreaterThan(0);
    for (const partial of partials) {
      const { id, translation } = dataOf<{ id: number; translation: string }>(partial);
      const line = appended().find((item) => item.id === id)!;
      expect(englishOf(line.text).startsWith(translation)).toBe(true);
    }

    // The LLM got batches of several lines, the glossary, and never an English line.
    const sent = llm.chatRequests.flatMap(linesOf);
    expect(sent.sort()).toEqual([...CHINESE].sort());
    expect(Math.max(...llm.chatRequests.map((request) => linesOf(request).length))).toBeGreaterThan(
      1,
    );
    const system = String(llm.chatRequests[0]?.body.messages?.[0]?.content);
    expect(system).toContain('王小明');
    expect(system).toContain('enqueue');
    expect(system).toContain('循环队列');
    expect(system).toContain('English');
    for (const line of ENGLISH) expect(JSON.stringify(llm.chatRequests)).not.toContain(line);

    // Kept with the lines: /api/transcript, then the class in the library once it ended.
    const transcript = await getJson<{ entries: Line[] }>(`${base}/api/transcript`);
    for (const entry of transcript.entries) {
      expect(entry.translation).toBe(CHINESE.includes(entry.text) ? englishOf(entry.text) : null);
    }
    const classId = String(
      (await getJson<{ items: Array<{ id: string }> }>(`${base}/api/classes`)).items[0]?.id,
    );
    expect((await client.stop()).status).toBe(200);
    const detail = await getJson<{ lines: Line[] }>(`${base}/api/classes/${classId}`);
    expect(detail.lines.map((line) => line.translation)).toEqual(
      SCRIPT.map((text) => (CHINESE.includes(text) ? englishOf(text) : null)),
    );

    // A search in the student's language finds the line.
    const target = SCRIPT.indexOf(CHINESE[3]!) + 1;
    const search = await waitFor(
      async () => {
        const answer = await getJson<{
          hits: Array<{ kind: string; line_id?: number; class_id: string }>;
        }>(`${base}/api/search?q=circularqueue${target}`);
        return answer.hits.length > 0 && answer.hits;
      },
      20_000,
      'the translation to be indexed',
    );
    expect(search[0]).toMatchObject({ kind: 'line', line_id: target, class_id: classId });

    // Exports: the translation under the line (Markdown), a second subtitle line (SRT).
    const markdown = await (await fetch(`${base}/api/classes/${classId}/export?format=md`)).text();
    expect(markdown).toContain(`  > ${englishOf(CHINESE[0]!)}`);
    const srt = await (await fetch(`${base}/api/classes/${classId}/export?format=srt`)).text();
    expect(srt).toContain(`${CHINESE[1]}\n${englishOf(CHINESE[1]!)}\n`);
    expect(srt).toContain(`${ENGLISH[0]}\n\n`);

    // A backend started again on the same data folder: the translations come from the folder.
    const requestsBefore = llm.chatRequests.length;
    await first.stop();
    const second = await startBackend(root, settings);
    const again = await getJson<{ entries: Line[] }>(`${second.base}/api/transcript`);
    expect(again.entries.filter((entry) => entry.translation !== null)).toHaveLength(
      CHINESE.length,
    );
    const reread = await getJson<{ lines: Line[] }>(`${second.base}/api/classes/${classId}`);
    expect(reread.lines.filter((line) => line.translation !== null)).toHaveLength(CHINESE.length);
    const searched = await waitFor(
      async () => {
        const answer = await getJson<{ hits: unknown[] }>(
          `${second.base}/api/search?q=circularqueue${target}`,
        );
        return answer.hits.length > 0 && answer.hits;
      },
      20_000,
      'the index of the restarted backend',
    );
    expect(searched).toHaveLength(1);
    expect(llm.chatRequests.length).toBe(requestsBefore);
  }, 120_000);

  it('without an LLM says so once and the lines keep coming', async () => {
    const root = await folder();
    const backend = await startBackend(root, [
      ...mockSettings(root, 40),
      'LLM_API_KEY=',
      'TRANSLATE_CAPTIONS=zh',
    ]);
    expect((await backend.client.start({ course_name: 'Algorithms' })).body.status).toBe('started');
    await backend.client.recognizerState('ended');
    expect(backend.client.all('line.appended').map((event) => dataOf<Line>(event).text)).toEqual(
      SCRIPT,
    );
    const errors = backend.client
      .all('error.raised')
      .map((event) =>
        dataOf<{ source: string; code: string; messages?: { zh: string; en: string } }>(event),
      );
    expect(errors).toEqual([
      expect.objectContaining({ source: 'translation', code: 'LLM_NOT_CONFIGURED' }),
    ]);
    expect(errors[0]?.messages?.en).toContain('LLM_BASE_URL');
    expect(errors[0]?.messages?.zh).toContain('字幕翻译');
    expect(backend.client.all('line.translated')).toEqual([]);
  }, 60_000);

  it('a slow LLM holds no line back, a failing one is reported once and the lines wait for it', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const llm = await createFakeOpenAIServer({
      apiKey: KEY,
      chat: async (request) => {
        calls++;
        // The first request hangs until the class is over; then the LLM rate-limits twice (the
        // client's own retry included), then answers.
        if (calls === 1) {
          await released;
          return { type: 'error', status: 429, message: 'Rate limit reached' };
        }
        if (calls === 2) return { type: 'error', status: 429, message: 'Rate limit reached' };
        return translate(request);
      },
    });
    cleanups.push(() => llm.close());
    const root = await folder();
    const backend = await startBackend(root, [
      ...mockSettings(root, 40),
      ...llmSettings(llm),
      'TRANSLATE_CAPTIONS=en',
    ]);
    const { client } = backend;
    expect((await client.start({ course_name: '数据结构' })).body.status).toBe('started');
    // Every line is written while the LLM has not answered at all.
    await client.recognizerState('ended');
    expect(client.all('line.appended')).toHaveLength(SCRIPT.length);
    expect(calls).toBeLessThanOrEqual(1);
    expect(client.all('line.translated')).toEqual([]);
    // The class ends with its translations still to come: they finish into its folder.
    const classId = String(
      (await getJson<{ items: Array<{ id: string }> }>(`${backend.base}/api/classes`)).items[0]?.id,
    );
    expect((await client.stop()).status).toBe(200);
    release();
    await waitFor(
      () =>
        client.all('line.translated').filter((event) => dataOf<{ final: boolean }>(event).final)
          .length >= CHINESE.length,
      60_000,
      'the lines to be translated after the failure',
    );
    const errors = client
      .all('error.raised')
      .map((event) => dataOf<{ source: string; code: string }>(event));
    expect(errors).toEqual([
      expect.objectContaining({ source: 'translation', code: 'LLM_RATE_LIMITED' }),
    ]);
    // The backlog went in bigger batches: every Chinese line translated, none twice.
    const translated = client
      .all('line.translated')
      .filter((event) => dataOf<{ final: boolean }>(event).final)
      .map((event) => dataOf<{ id: number }>(event).id);
    expect(new Set(translated).size).toBe(CHINESE.length);
    expect(
      Math.max(...llm.chatRequests.slice(2).map((request) => linesOf(request).length)),
    ).toBeGreaterThan(4);
    const kept = await waitFor(
      async () => {
        const detail = await getJson<{ lines: Line[] }>(`${backend.base}/api/classes/${classId}`);
        return (
          detail.lines.every(
            (line) => (line.translation !== null) === CHINESE.includes(line.text),
          ) && detail
        );
      },
      10_000,
      'the ended class to keep its translations',
    );
    expect(kept.lines.map((line) => line.translation)).toEqual(
      SCRIPT.map((text) => (CHINESE.includes(text) ? englishOf(text) : null)),
    );
    const file = await readFile(join(root, 'data', 'classes', classId, 'lines.jsonl'), 'utf8');
    expect(file).toContain(englishOf(CHINESE[0]!));
    await waitFor(
      async () => {
        const answer = await getJson<{ hits: unknown[] }>(
          `${backend.base}/api/search?q=circularqueue1`,
        );
        return answer.hits.length > 0;
      },
      20_000,
      'the ended class to be indexed again with its translations',
    );
  }, 90_000);
});
