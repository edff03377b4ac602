// A backend process killed with SIGKILL in the middle of a class: after a restart the class is
// in the library with every line the UI was told about over server-sent events — also the lines
// that history folding had already moved out of the live transcript file. (The class resumes by
// itself; test/class-resume.test.ts has the resuming.)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { afterEach, expect, it } from 'vitest';
import { type BackendProcess, startBackendProcess } from './support/backend-process.ts';
import { waitFor } from './support/harness.ts';
import { openEventStream } from './support/sse-client.ts';

let llm: FakeOpenAIServer | undefined;
let root: string | undefined;
const processes: BackendProcess[] = [];
afterEach(async () => {
  for (const backend of processes.splice(0)) await backend.stop();
  await llm?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

it('keeps every acknowledged line of a class whose backend was killed with SIGKILL', async () => {
  llm = await createFakeOpenAIServer({
    chat: () => ({ type: 'text', content: '历史摘要：链表、栈和队列。' }),
  });
  root = await mkdtemp(join(tmpdir(), 'class-assistant-crash-'));
  const settings = [
    'ASR_MODE=mock',
    'MOCK_INTERVAL_MS=25',
    'MOCK_LOOP=true',
    'HISTORY_FOLD_ENTRIES=10',
    `LLM_BASE_URL=${llm.baseURL}`,
    'LLM_API_KEY=sk-test',
    'LLM_MODEL=class-model',
    'LOG_LEVEL=warn',
  ];
  const first = await startBackendProcess(settings, process.env, { root });
  processes.push(first);
  const events = await openEventStream(`${first.base}/api/events`);
  const started = await fetch(`${first.base}/api/start_monitor`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ course_name: '数据结构' }),
  });
  expect(((await started.json()) as { status: string }).status).toBe('started');
  await waitFor(
    () =>
      events.events.filter((event) => event.event === 'history.folded').length >= 3 &&
      events.events.filter((event) => event.event === 'line.appended').length >= 60,
    30_000,
    'lines and history folds',
  );
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  await events.ended;
  const acknowledged = new Map<number, string>();
  for (const event of events.events) {
    if (event.event === 'line.appended' || event.event === 'line.updated') {
      const line = event.data as { id: number; text: string };
      acknowledged.set(line.id, line.text);
    }
  }

  const second = await startBackendProcess(settings, process.env, { root });
  processes.push(second);
  await waitFor(
    async () =>
      ((await (await fetch(`${second.base}/api/monitor_status`)).json()) as { state: string })
        .state === 'running',
    20_000,
    'the class to resume',
  );
  // Ended by the student: the class with every line, indexed.
  await fetch(`${second.base}/api/stop_monitor?with_summary=false`, { method: 'POST' });
  const list = (await (await fetch(`${second.base}/api/classes`)).json()) as {
    items: Array<{ id: string; live: boolean; ended_at: string | null; line_count: number }>;
  };
  expect(list.items).toHaveLength(1);
  const [kept] = list.items;
  expect(kept).toMatchObject({ live: false });
  expect(kept!.ended_at).not.toBeNull();
  expect(kept!.line_count).toBeGreaterThanOrEqual(acknowledged.size);
  const detail = (await (await fetch(`${second.base}/api/classes/${kept!.id}`)).json()) as {
    lines: Array<{ id: number; text: string }>;
    class: { history_summary: string };
  };
  const lines = new Map(detail.lines.map((line) => [line.id, line.text]));
  for (const [id, text] of acknowledged) expect(lines.get(id), `line ${id}`).toBe(text);
  expect([...lines.keys()]).toEqual(detail.lines.map((_, index) => index + 1));
  expect(detail.class.history_summary).toBe('历史摘要：链表、栈和队列。');
  // And it is searchable.
  const search = await waitFor(
    async () => {
      const found = (await (
        await fetch(`${second.base}/api/search?q=${encodeURIComponent('随机点名')}`)
      ).json()) as { hits: Array<{ class_id: string }> };
      return found.hits.length > 0 ? found : undefined;
    },
    20_000,
    'the class to be searchable',
  );
  expect(search.hits.every((hit) => hit.class_id === kept!.id)).toBe(true);
});
