// A class without an LLM, in a backend process: history folding cannot summarise, so the lines
// stay in the live transcript, the fold is tried once per fold point — one warning in the log,
// not an error per line — and once an LLM is configured (the fake OpenAI-compatible server on a
// loopback port, entered through /api/settings) the lines waiting are summarised.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { afterEach, expect, it } from 'vitest';
import { type BackendProcess, startBackendProcess } from './support/backend-process.ts';
import { classClient } from './support/class-client.ts';
import { waitFor } from './support/harness.ts';

const KEY = 'sk-fold-test-000000000000';
const SUMMARY = '前面讲了链表的插入和删除，点名问了删除要改几个指针。';

let backend: BackendProcess | undefined;
let llm: FakeOpenAIServer | undefined;
afterEach(async () => {
  await backend?.stop();
  await llm?.close();
  backend = undefined;
  llm = undefined;
});

interface LogLine {
  level: number;
  msg?: string;
  source?: string;
  code?: string;
  reqId?: unknown;
}

it('folds a class without an LLM once per fold point with one warning, and summarises the waiting lines once one is configured', async () => {
  llm = await createFakeOpenAIServer({
    apiKey: KEY,
    chat: () => ({ type: 'text', content: SUMMARY }),
  });
  backend = await startBackendProcess([
    'ASR_MODE=mock',
    'MOCK_INTERVAL_MS=2',
    'MOCK_LOOP=true',
    'LLM_API_KEY=',
  ]);
  const { base, dataDir } = backend;
  const logFile = join(dataDir, '_startup.log');
  const logBefore = (await stat(logFile)).size;
  const client = await classClient(base);
  const stream = client.events;
  expect((await client.start({ course_name: '数据结构' })).body.status).toBe('started');
  await stream.next(
    (event) => event.event === 'line.appended' && (event.data as { id: number }).id >= 2000,
    240_000,
  );

  // What the class added to the log: the requests of this test aside, a few hundred bytes.
  const log = (await readFile(logFile)).subarray(logBefore).toString('utf8');
  const entries = log
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
  const classLog = log
    .split('\n')
    .filter((line) => line.startsWith('{') && (JSON.parse(line) as LogLine).reqId === undefined);
  expect(Buffer.byteLength(classLog.join('\n'))).toBeLessThanOrEqual(64 * 1024);
  expect(entries.filter((entry) => entry.level >= 50)).toEqual([]);
  const folding = entries.filter((entry) => entry.source === 'history folding');
  expect(folding).toEqual([
    expect.objectContaining({
      level: 40,
      code: 'LLM_NOT_CONFIGURED',
      msg: expect.stringContaining('waiting for an LLM'),
    }),
  ]);
  // The UI heard of it once.
  expect(
    stream.events.filter(
      (event) =>
        event.event === 'error.raised' &&
        (event.data as { source: string }).source === 'history folding',
    ),
  ).toHaveLength(1);
  // Nothing left the live file, and no fold was written.
  const live = await readFile(join(dataDir, 'class_transcript.txt'), 'utf8');
  const liveLines = live.split('\n').filter((line) => line.startsWith('['));
  expect(liveLines.length).toBeGreaterThanOrEqual(2000);
  expect(live).not.toContain('历史摘要');
  expect(stream.events.some((event) => event.event === 'history.folded')).toBe(false);

  // An LLM is configured during the class: the waiting lines are summarised, oldest first.
  const saved = await fetch(`${base}/api/settings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      fields: { LLM_BASE_URL: llm.baseURL, LLM_API_KEY: KEY, LLM_MODEL: 'fold-model' },
    }),
  });
  expect(saved.status).toBe(200);
  const folded = await stream.next((event) => event.event === 'history.folded', 120_000);
  expect(folded.data).toMatchObject({ summary: SUMMARY, folded_entries: 200, first_id: 201 });
  const request = String(llm.chatRequests[0]?.body.messages?.at(-1)?.content);
  const sent = request.slice(request.indexOf('【需要合并的课堂转录】\n')).split('\n').slice(1);
  expect(sent).toEqual(liveLines.slice(0, 200));
  // The class pauses (no new lines): the rest of the backlog is folded, batch after batch,
  // until fewer lines than HISTORY_FOLD_ENTRIES (50) are left.
  const paused = await fetch(`${base}/api/pause_monitor`, { method: 'POST' });
  expect(((await paused.json()) as { status: string }).status).toBe('paused');
  const transcript = await waitFor(
    async () => {
      const answer = (await (await fetch(`${base}/api/transcript`)).json()) as {
        total: number;
        history_summary: string;
      };
      return answer.total < 50 && answer;
    },
    240_000,
    'the backlog to be folded',
  );
  expect(transcript.history_summary).toBe(SUMMARY);
  const after = await readFile(join(dataDir, 'class_transcript.txt'), 'utf8');
  expect(after).toContain(`=== 历史摘要 开始 ===\n${SUMMARY}\n=== 历史摘要 结束 ===`);
  expect(after.split('\n').filter((line) => line.startsWith('[')).length).toBeLessThan(50);
  const finalLog = (await readFile(logFile)).subarray(logBefore).toString('utf8');
  expect(finalLog).toContain('an LLM is configured now');
  // Every line of the class is kept in the library.
  const lastId = Math.max(
    ...stream.events
      .filter((event) => event.event === 'line.appended')
      .map((event) => (event.data as { id: number }).id),
  );
  stream.close();
  const stopped = await fetch(`${base}/api/stop_monitor?with_summary=false`, { method: 'POST' });
  expect(((await stopped.json()) as { status: string }).status).toBe('stopped');
  const classes = (await (await fetch(`${base}/api/classes`)).json()) as {
    items: Array<{ line_count: number }>;
  };
  expect(classes.items[0]?.line_count).toBe(lastId);
}, 600_000);
