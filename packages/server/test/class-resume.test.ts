// A backend process that dies in the middle of a class (kill -9) and is started again on the same
// data folder goes on with the same class by itself: same id and folder, listening again, lines
// continuing in the same transcript after a line that records the gap. A clean stop (SIGTERM)
// ends the class as before; a class whose backend died more than 30 minutes ago is closed with
// its lines; a class whose recognizer cannot run any more is kept and the status says why.
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type BackendProcess, startBackendProcess } from './support/backend-process.ts';
import { classClient } from './support/class-client.ts';
import { waitFor } from './support/harness.ts';
import { type EventStreamClient, openEventStream } from './support/sse-client.ts';

let llm: FakeOpenAIServer | undefined;
let root: string | undefined;
const processes: BackendProcess[] = [];
const streams: EventStreamClient[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  for (const backend of processes.splice(0)) await backend.stop();
  await llm?.close();
  llm = undefined;
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

const MOCK_CLASS = ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=40', 'MOCK_LOOP=true', 'LOG_LEVEL=warn'];

interface Status {
  state: string;
  started_at: string | null;
  course_name: string;
  interruption?: {
    at: string;
    seconds: number;
    resumed: boolean;
    reason: { code: string; zh: string; en: string } | null;
  } | null;
}
interface ClassList {
  items: Array<{ id: string; live: boolean; ended_at: string | null; line_count: number }>;
}
interface ClassJson {
  id: string;
  ended_at: string | null;
  alive_at?: string;
  interruptions?: Array<{ at: string; seconds: number }>;
}

async function getJson<T>(url: string): Promise<T> {
  return (await (await fetch(url)).json()) as T;
}

async function start(settings: string[]): Promise<BackendProcess> {
  root ??= await mkdtemp(join(tmpdir(), 'class-assistant-resume-'));
  const backend = await startBackendProcess(settings, process.env, { root });
  processes.push(backend);
  return backend;
}

async function events(backend: BackendProcess): Promise<EventStreamClient> {
  const stream = await openEventStream(`${backend.base}/api/events`);
  streams.push(stream);
  return stream;
}

/** Starts a class and waits until `lines` lines were announced. */
async function classWithLines(backend: BackendProcess, lines: number) {
  const client = await classClient(backend.base);
  const stream = client.events;
  streams.push(stream);
  expect((await client.start({ course_name: '数据结构' })).body.status).toBe('started');
  await waitFor(
    () => stream.events.filter((event) => event.event === 'line.appended').length >= lines,
    30_000,
    `${lines} lines`,
  );
  const status = await getJson<Status>(`${backend.base}/api/monitor_status`);
  const [listed] = (await getJson<ClassList>(`${backend.base}/api/classes`)).items;
  return { stream, status, id: listed!.id };
}

async function kill(backend: BackendProcess, signal: NodeJS.Signals): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) =>
    backend.child.once('exit', (code) => resolve(code)),
  );
  backend.child.kill(signal);
  return exited;
}

/** The lines the UI was told about, by id. */
function announced(stream: EventStreamClient): Map<number, string> {
  const lines = new Map<number, string>();
  for (const event of stream.events) {
    if (event.event === 'line.appended' || event.event === 'line.updated') {
      const line = event.data as { id: number; text: string };
      lines.set(line.id, line.text);
    }
  }
  return lines;
}

const classJson = async (backend: BackendProcess, id: string) =>
  JSON.parse(
    await readFile(join(backend.dataDir, 'classes', id, 'class.json'), 'utf8'),
  ) as ClassJson;

describe('a backend killed mid-class', () => {
  it('resumes the class by itself when started again: same class, lines go on after a gap marker', async () => {
    llm = await createFakeOpenAIServer({
      chat: () => ({ type: 'text', content: '历史摘要：链表、栈和队列。' }),
    });
    const settings = [
      ...MOCK_CLASS,
      'HISTORY_FOLD_ENTRIES=10',
      `LLM_BASE_URL=${llm.baseURL}`,
      'LLM_API_KEY=sk-test',
      'LLM_MODEL=class-model',
    ];
    const first = await start(settings);
    const before = await classWithLines(first, 30);
    const killedAt = Date.now();
    await kill(first, 'SIGKILL');
    await before.stream.ended;
    const acknowledged = announced(before.stream);
    const lastBefore = Math.max(...acknowledged.keys());

    const second = await start(settings);
    const after = await events(second);
    // Listening again by itself, as the same class (same start: the UI keeps its lines).
    const status = await waitFor(
      async () => {
        const current = await getJson<Status>(`${second.base}/api/monitor_status`);
        return current.state === 'running' ? current : undefined;
      },
      20_000,
      'the class to resume',
    );
    const resumedAt = Date.now();
    expect(status).toMatchObject({
      course_name: '数据结构',
      started_at: before.status.started_at,
      interruption: { resumed: true, reason: null },
    });
    const gap = status.interruption!.seconds;
    expect(gap).toBeGreaterThanOrEqual(0);
    expect(gap).toBeLessThanOrEqual(Math.ceil((resumedAt - killedAt) / 1000) + 1);

    // The marker line first, then new lines with growing ids after the ones before the crash.
    const transcript = await getJson<{ entries: Array<{ id: number; text: string }> }>(
      `${second.base}/api/transcript?limit=10000`,
    );
    const marker = transcript.entries.find((entry) => entry.text.startsWith('—— 中断'));
    expect(marker?.text).toBe(`—— 中断 ${gap} 秒 ——`);
    expect(marker!.id).toBeGreaterThan(lastBefore);
    await waitFor(
      () =>
        after.events.filter(
          (event) =>
            event.event === 'line.appended' && (event.data as { id: number }).id > marker!.id + 3,
        ).length > 0,
      20_000,
      'new lines after the marker',
    );

    // One class in the library, the same one, running, its gap in class.json.
    const list = await getJson<ClassList>(`${second.base}/api/classes`);
    expect(list.items.map((item) => item.id)).toEqual([before.id]);
    expect(list.items[0]).toMatchObject({ live: true, ended_at: null });
    const meta = await classJson(second, before.id);
    expect(meta.ended_at).toBeNull();
    expect(meta.interruptions).toEqual([{ at: status.interruption!.at, seconds: gap }]);

    // Ended by the student: every line from both runs in one transcript, export and search.
    const stopped = await fetch(`${second.base}/api/stop_monitor?with_summary=false`, {
      method: 'POST',
    });
    expect(((await stopped.json()) as { status: string }).status).toBe('stopped');
    const detail = await getJson<{ lines: Array<{ id: number; text: string }> }>(
      `${second.base}/api/classes/${before.id}`,
    );
    const kept = new Map(detail.lines.map((line) => [line.id, line.text]));
    for (const [id, text] of acknowledged) expect(kept.get(id), `line ${id}`).toBe(text);
    expect(kept.get(marker!.id)).toBe(marker!.text);
    expect(detail.lines.length).toBeGreaterThan(marker!.id + 3);
    expect([...kept.keys()]).toEqual(detail.lines.map((_, index) => index + 1));

    const exported = await (
      await fetch(`${second.base}/api/classes/${before.id}/export?format=txt`)
    ).text();
    const exportedLines = exported.split('\n').filter((line) => line.startsWith('['));
    expect(exportedLines).toHaveLength(detail.lines.length);
    expect(exportedLines[marker!.id - 1]).toContain(marker!.text);

    const hits = await waitFor(
      async () => {
        const found = await getJson<{ hits: Array<{ class_id: string }> }>(
          `${second.base}/api/search?q=${encodeURIComponent('中断')}`,
        );
        return found.hits.length > 0 ? found.hits : undefined;
      },
      20_000,
      'the class to be searchable',
    );
    expect(hits.every((hit) => hit.class_id === before.id)).toBe(true);
    const lecture = await getJson<{ hits: Array<{ class_id: string }> }>(
      `${second.base}/api/search?q=${encodeURIComponent('随机点名')}`,
    );
    expect(lecture.hits.length).toBeGreaterThan(0);
    expect(lecture.hits.every((hit) => hit.class_id === before.id)).toBe(true);
    expect((await getJson<ClassList>(`${second.base}/api/classes`)).items).toHaveLength(1);
  }, 120_000);

  it('resumes a class with material on the page its last lines were about', async () => {
    root = await mkdtemp(join(tmpdir(), 'class-assistant-resume-'));
    await mkdir(join(root, 'data', 'cite'), { recursive: true });
    await writeFile(
      join(root, 'data', 'cite', 'deck.txt'),
      '--- 第 1 页 ---\n栈 Stack\n后进先出，栈顶 push 和 pop\n\n--- 第 2 页 ---\n队列 Queue\n先进先出，队头出队，队尾入队\n',
    );
    const walk = join(root, 'walk.txt');
    await writeFile(
      walk,
      '先讲栈，后进先出\n栈顶 push 和 pop\n接下来是队列，先进先出\n出队在队头，入队在队尾\n',
    );
    // After the crash the teacher only says things that match no page.
    const asides = join(root, 'asides.txt');
    await writeFile(asides, '后面的同学安静一点\n大家能听清楚吗\n');
    const settings = (script: string) => [
      'ASR_MODE=mock',
      'MOCK_INTERVAL_MS=40',
      'MOCK_LOOP=false',
      'LOG_LEVEL=warn',
      `MOCK_SCRIPT=${script}`,
    ];
    const first = await start(settings(walk));
    const client = await classClient(first.base);
    streams.push(client.events);
    expect(
      (await client.start({ course_name: '数据结构', cite_filename: 'deck.txt' })).body.status,
    ).toBe('started');
    await client.recognizerState('ended');
    expect(
      (await getJson<{ current_page: number }>(`${first.base}/api/monitor_status`)).current_page,
    ).toBe(2);
    await kill(first, 'SIGKILL');

    const second = await start(settings(asides));
    const status = await waitFor(
      async () => {
        const current = await getJson<Status & { current_page: number | null }>(
          `${second.base}/api/monitor_status`,
        );
        return current.state === 'running' ? current : undefined;
      },
      20_000,
      'the class to resume',
    );
    expect(status.interruption).toMatchObject({ resumed: true });
    expect(status.current_page).toBe(2);
  });

  it('closes, without resuming, a class whose backend was last alive more than 30 minutes ago', async () => {
    const first = await start(MOCK_CLASS);
    const before = await classWithLines(first, 10);
    await kill(first, 'SIGKILL');
    await before.stream.ended;
    const acknowledged = announced(before.stream);
    // Its last signs of life: 31 minutes ago.
    const longAgo = new Date(Date.now() - 31 * 60_000);
    const metaPath = join(first.dataDir, 'classes', before.id, 'class.json');
    const meta = JSON.parse(await readFile(metaPath, 'utf8')) as ClassJson;
    await writeFile(metaPath, JSON.stringify({ ...meta, alive_at: longAgo.toISOString() }));
    await utimes(join(first.dataDir, 'class_transcript.txt'), longAgo, longAgo);

    const second = await start(MOCK_CLASS);
    const list = await getJson<ClassList>(`${second.base}/api/classes`);
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({ id: before.id, live: false });
    expect(list.items[0]!.ended_at).toBe(longAgo.toISOString());
    expect(list.items[0]!.line_count).toBeGreaterThanOrEqual(acknowledged.size);
    const status = await getJson<Status>(`${second.base}/api/monitor_status`);
    expect(status).toMatchObject({ state: 'idle', interruption: null });
    const detail = await getJson<{ lines: Array<{ id: number; text: string }> }>(
      `${second.base}/api/classes/${before.id}`,
    );
    for (const [id, text] of acknowledged) {
      expect(detail.lines.find((line) => line.id === id)?.text).toBe(text);
    }
    expect(detail.lines.some((line) => line.text.startsWith('—— 中断'))).toBe(false);
  }, 60_000);

  it('keeps the class and says why when it cannot resume (its lecture script is gone)', async () => {
    const script = join(await mkdtemp(join(tmpdir(), 'class-assistant-script-')), 'lecture.txt');
    await writeFile(
      script,
      [
        '第一句：链表。',
        '第二句：栈。',
        '第三句：队列。',
        '第四句：树。',
        '第五句：图。',
        '第六句：堆。',
        '第七句：散列。',
        '第八句：排序。',
      ].join('\n'),
    );
    const settings = [...MOCK_CLASS, `MOCK_SCRIPT=${script}`];
    const first = await start(settings);
    const before = await classWithLines(first, 5);
    await kill(first, 'SIGKILL');
    await before.stream.ended;
    const acknowledged = announced(before.stream);
    await rm(script);

    const second = await start(settings);
    const status = await waitFor(
      async () => {
        const current = await getJson<Status>(`${second.base}/api/monitor_status`);
        return current.interruption ? current : undefined;
      },
      20_000,
      'the status to say the class could not resume',
    );
    expect(status).toMatchObject({
      state: 'idle',
      interruption: { resumed: false, reason: { code: 'RECOGNIZER_UNAVAILABLE' } },
    });
    expect(status.interruption!.reason!.en).toContain('MOCK_SCRIPT');
    const list = await getJson<ClassList>(`${second.base}/api/classes`);
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({ id: before.id, live: false });
    expect(list.items[0]!.ended_at).not.toBeNull();
    const detail = await getJson<{ lines: Array<{ id: number; text: string }> }>(
      `${second.base}/api/classes/${before.id}`,
    );
    for (const [id, text] of acknowledged) {
      expect(detail.lines.find((line) => line.id === id)?.text).toBe(text);
    }
  }, 60_000);
});

describe('a backend stopped cleanly mid-class', () => {
  it('ends the class on SIGTERM; started again, it does not resume it', async () => {
    const first = await start(MOCK_CLASS);
    const before = await classWithLines(first, 5);
    expect(await kill(first, 'SIGTERM')).toBe(0);
    const ended = await classJson(first, before.id);
    expect(ended.ended_at).not.toBeNull();

    const second = await start(MOCK_CLASS);
    // The index is caught up with the folders (and nothing was queued to resume) once the list
    // answers with the class ended.
    const list = await getJson<ClassList>(`${second.base}/api/classes`);
    expect(list.items).toHaveLength(1);
    expect(list.items[0]).toMatchObject({ id: before.id, live: false, ended_at: ended.ended_at });
    const status = await getJson<Status>(`${second.base}/api/monitor_status`);
    expect(status).toMatchObject({ state: 'idle', interruption: null });
    const meta = await classJson(second, before.id);
    expect(meta.interruptions ?? []).toEqual([]);
    const live = await readFile(join(second.dataDir, 'class_transcript.txt'), 'utf8');
    expect(live).not.toContain('—— 中断');
  }, 60_000);
});
