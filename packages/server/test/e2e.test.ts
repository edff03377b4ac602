// A whole class over real sockets: upload a deck, run a mock class with it, watch lines and
// alerts arrive on the SSE stream and the original WebSocket, ask for rescue and catch-up from a
// fake OpenAI-compatible server over HTTP, stop and get notes.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createHarness, type Harness, waitFor } from './support/harness.ts';
import { openEventStream, type ReceivedEvent } from './support/sse-client.ts';

let harness: Harness | undefined;
let llm: FakeOpenAIServer | undefined;
afterEach(async () => {
  await harness?.close();
  await llm?.close();
  harness = undefined;
  llm = undefined;
});

function connectAlerts(base: string): Promise<{ messages: unknown[]; socket: WebSocket }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${base.replace('http', 'ws')}/api/ws/alerts`);
    const messages: unknown[] = [];
    socket.on('message', (data) => {
      const text = data.toString();
      messages.push(text === 'pong' ? text : JSON.parse(text));
    });
    socket.on('open', () => resolve({ messages, socket }));
    socket.on('error', reject);
  });
}

describe('a class end to end', () => {
  it('upload, mock class, live lines and alerts, rescue, catch-up, stop with notes', async () => {
    llm = await createFakeOpenAIServer({
      chat: (request) => {
        const system = String(request.body.messages?.[0]?.content ?? '');
        if (system.includes('"question"')) {
          return {
            type: 'text',
            content: JSON.stringify({
              question: '删除双向链表的节点要改几个指针？',
              context: '老师在讲双向链表的删除（资料第 1 页）。',
              answer: '两个：前驱的 next 和后继的 prev。',
            }),
          };
        }
        if (system.includes('老师讲到哪了'))
          return { type: 'text', content: '### 现在讲到\n循环队列。', chunkSize: 4 };
        return {
          type: 'text',
          content: '# 数据结构 课堂笔记\n\n## 作业与截止时间\n实现循环队列，周五截止。',
        };
      },
    });
    harness = await createHarness({
      env: [
        'ASR_MODE=mock',
        'MOCK_INTERVAL_MS=40',
        'MOCK_LOOP=false',
        `LLM_BASE_URL=${llm.baseURL}`,
        'LLM_API_KEY=sk-e2e',
        'LLM_MODEL=class-model',
      ],
    });
    const base = await harness.listen();

    const form = new FormData();
    form.append(
      'file',
      new Blob([await readFile(new URL('./fixtures/slides.pptx', import.meta.url))]),
      'slides.pptx',
    );
    const uploaded = (await (
      await fetch(`${base}/api/upload_ppt`, { method: 'POST', body: form })
    ).json()) as {
      cite_filename: string;
    };
    const listed = (await (await fetch(`${base}/api/cite_files`)).json()) as {
      items: Array<{ filename: string; pages: number }>;
    };
    expect(listed.items[0]).toMatchObject({ filename: uploaded.cite_filename, pages: 2 });

    const events = await openEventStream(`${base}/api/events`);
    const opened = await events.next((event) => event.event === 'stream.opened');
    expect(opened.data).toMatchObject({
      gap: false,
      replayed: 0,
      monitor: { state: 'idle' },
      partial: '',
    });
    const alerts = await connectAlerts(base);
    alerts.socket.send('ping');

    const started = await fetch(`${base}/api/start_monitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ course_name: '数据结构', cite_filename: uploaded.cite_filename }),
    });
    expect(((await started.json()) as { status: string }).status).toBe('started');
    expect(await readFile(join(harness.dataDir, 'current_class_material.txt'), 'utf8')).toContain(
      'Slide 2: 栈与队列',
    );

    const alert = await events.next(
      (event) =>
        event.event === 'alert.raised' && (event.data as { level: string }).level === 'danger',
      20_000,
    );
    expect(alert.data).toMatchObject({ type: 'keyword_alert', keywords: ['点名', '同学回答'] });
    expect(alert.id).toMatch(/^\d+$/);
    await waitFor(
      () => alerts.messages.some((message) => typeof message === 'object'),
      10_000,
      'ws alert',
    );
    expect(alerts.messages[0]).toBe('pong');
    expect(alerts.messages[1]).toEqual(alert.data);

    const line = await events.next((event) => event.event === 'line.appended');
    const transcript = await readFile(join(harness.dataDir, 'class_transcript.txt'), 'utf8');
    expect(transcript).toContain(
      `[${(line.data as { timestamp: string }).timestamp}] ${(line.data as { text: string }).text}`,
    );
    expect(events.events.some((event) => event.event === 'partial.changed')).toBe(true);

    const rescue = await (await fetch(`${base}/api/emergency_rescue`, { method: 'POST' })).json();
    expect(rescue).toMatchObject({
      status: 'success',
      answer: '两个：前驱的 next 和后继的 prev。',
    });
    const rescuePrompt = String(llm.chatRequests[0]!.body.messages!.at(-1)!.content);
    expect(rescuePrompt).toContain('Slide 1: 数据结构 — 链表 Linked lists');
    expect(rescuePrompt).toContain('请学号尾号是 7 的同学回答一下');

    const catchup = await openEventStream(`${base}/api/catchup/stream`, { method: 'POST' });
    expect((await catchup.next((event) => event.event === 'end')).data).toMatchObject({
      status: 'success',
      summary: '### 现在讲到\n循环队列。',
      sources: { material: uploaded.cite_filename, pages: [1, 2] },
    });

    await events.next(
      (event) =>
        event.event === 'monitor.changed' &&
        (event.data as { recognizer_state: string }).recognizer_state === 'ended',
      20_000,
    );
    const stopped = (await (
      await fetch(`${base}/api/stop_monitor`, { method: 'POST' })
    ).json()) as {
      summary: { filename: string };
    };
    expect(stopped.summary.filename).toMatch(/^数据结构_\d{8}_\d{6}\.md$/);
    expect(
      await readFile(join(harness.dataDir, 'summaries', stopped.summary.filename), 'utf8'),
    ).toContain('周五截止');
    const written = await events.next((event) => event.event === 'notes.written');
    expect(written.data).toEqual({ filename: stopped.summary.filename, course_name: '数据结构' });
    alerts.socket.close();
    events.close();
  });
});

describe('GET /api/events', () => {
  it('replays what a reconnecting client missed (Last-Event-ID) and sends heartbeats', async () => {
    harness = await createHarness({ env: ['ASR_MODE=mock'], options: { sseHeartbeatMs: 50 } });
    const base = await harness.listen();
    const { hub } = harness.app.classAssistant;
    const first = await openEventStream(`${base}/api/events`);
    await first.next((event) => event.event === 'stream.opened');
    hub.publish('material.uploaded', { cite_filename: 'a.txt', text_length: 1 });
    const seen = await first.next((event) => event.event === 'material.uploaded');
    first.close();
    hub.publish('material.uploaded', { cite_filename: 'b.txt', text_length: 2 });
    hub.publish('notes.written', { filename: 'n.md', course_name: 'c' });

    const again = await openEventStream(`${base}/api/events`, {
      headers: { 'last-event-id': seen.id! },
    });
    const opened = await again.next((event) => event.event === 'stream.opened');
    expect(opened.data).toMatchObject({ replayed: 2, gap: false });
    await again.next((event) => event.event === 'notes.written');
    const replayed = again.events.filter((event: ReceivedEvent) => event.event !== 'stream.opened');
    expect(replayed.map((event) => [event.event, event.data])).toEqual([
      ['material.uploaded', { cite_filename: 'b.txt', text_length: 2 }],
      ['notes.written', { filename: 'n.md', course_name: 'c' }],
    ]);
    await waitFor(() => again.comments.includes('heartbeat'), 5000, 'heartbeat');
    again.close();

    const tooOld = await openEventStream(`${base}/api/events?last_event_id=0`);
    expect((await tooOld.next((event) => event.event === 'stream.opened')).data).toMatchObject({
      replayed: 3,
      gap: false,
    });
    tooOld.close();
  });

  it('reports a gap when the missed events are no longer buffered', async () => {
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
    const base = await harness.listen();
    const { hub } = harness.app.classAssistant;
    for (let index = 0; index < 1005; index++)
      hub.publish('partial.changed', { text: String(index) });
    const stream = await openEventStream(`${base}/api/events`, {
      headers: { 'last-event-id': '1' },
    });
    expect((await stream.next((event) => event.event === 'stream.opened')).data).toMatchObject({
      gap: true,
      replayed: 0,
    });
    stream.close();
  });

  it('treats an id from before a restart as a gap and still sends every new event', async () => {
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
    const base = await harness.listen();
    const { hub } = harness.app.classAssistant;
    hub.publish('material.uploaded', { cite_filename: 'a.txt', text_length: 1 });
    // The client last saw id 500 from the backend that ran before this one.
    const stream = await openEventStream(`${base}/api/events`, {
      headers: { 'last-event-id': '500' },
    });
    expect((await stream.next((event) => event.event === 'stream.opened')).data).toMatchObject({
      gap: true,
      replayed: 0,
      last_event_id: 1,
    });
    hub.publish('notes.written', { filename: 'n.md', course_name: 'c' });
    const next = await stream.next((event) => event.event === 'notes.written');
    expect(next.id).toBe('2');
    stream.close();
  });

  it('is closed by the server on shutdown so it cannot hold the process', async () => {
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
    const base = await harness.listen();
    const stream = await openEventStream(`${base}/api/events`);
    await stream.next((event) => event.event === 'stream.opened');
    await harness.close();
    await stream.ended;
  });
});
