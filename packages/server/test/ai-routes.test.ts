import { readdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, waitFor } from './support/harness.ts';
import { openEventStream } from './support/sse-client.ts';

let llm: FakeOpenAIServer;
let harness: Harness;
const fixedNow = new Date(2026, 2, 9, 10, 15, 30);
/** These tests read the English messages (Chinese is the default). */
const ENGLISH = { 'accept-language': 'en' };

async function setup(extraEnv: string[] = []) {
  harness = await createHarness({
    env: [
      'ASR_MODE=mock',
      `LLM_BASE_URL=${llm.baseURL}`,
      'LLM_API_KEY=sk-test-key-000000000000',
      'LLM_MODEL=class-model',
      'LLM_TIMEOUT=2',
      ...extraEnv,
    ],
    options: { now: () => new Date(fixedNow) },
  });
  const { store, cite } = harness.app.classAssistant;
  const material = await cite.write(
    'deck.pptx',
    '--- 第 1 页 ---\n双向链表 Doubly linked lists\n删除节点需要修改前驱和后继两个指针。\n',
    fixedNow,
  );
  await cite.activate(material);
  await store.reset({ courseName: '数据结构', materialName: material });
  await store.append(ROLL_CALL);
}

const ROLL_CALL =
  '好，这个问题我随机点名，请学号尾号是 7 的同学回答一下，删除双向链表的节点要改几个指针？';

const userMessage = (index: number) =>
  llm.chatRequests[index]?.body.messages?.at(-1)?.content as string;
const systemMessage = (index: number) =>
  llm.chatRequests[index]?.body.messages?.[0]?.content as string;

beforeEach(async () => {
  llm = await createFakeOpenAIServer({ apiKey: 'sk-test-key-000000000000' });
});
afterEach(async () => {
  await harness?.close();
  await llm.close();
});

describe('rescue', () => {
  it('answers question/context/answer from the transcript and the material', async () => {
    await setup();
    llm.enqueueChat({
      type: 'text',
      content:
        '```json\n{"question":"删除双向链表的节点要改几个指针？","context":"老师在讲双向链表的删除。","answer":"两个：前驱的 next 和后继的 prev。","lines":["#1", 99]}\n```',
    });
    const response = await harness.request({ method: 'POST', url: '/api/emergency_rescue' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      status: 'success',
      question: '删除双向链表的节点要改几个指针？',
      context: '老师在讲双向链表的删除。',
      answer: '两个：前驱的 next 和后继的 prev。',
      format: 'json',
      // What the answer is based on: the line (its id and time), the slide page sent; the line
      // the model named, without the id it made up.
      sources: {
        from: '10:15:30',
        to: '10:15:30',
        lines: [{ id: 1, timestamp: '10:15:30', text: ROLL_CALL }],
        material: 'deck_20260309_101530.txt',
        pages: [1],
        cited: [1],
      },
    });
    const request = llm.chatRequests[0]!;
    expect(request.body.model).toBe('class-model');
    expect(systemMessage(0)).toContain(
      '{"question": "…", "context": "…", "answer": "…", "lines": [12]}',
    );
    expect(userMessage(0)).toContain('【课程资料】\n--- 第 1 页 ---\n双向链表 Doubly linked lists');
    expect(userMessage(0)).toMatch(/#1 \[10:15:30\] 好，这个问题我随机点名/);
    expect(userMessage(0)).toContain('【课程名称】数据结构');
  });

  it('uses a plain-text answer when the model ignores the JSON format', async () => {
    await setup();
    llm.enqueueChat({ type: 'text', content: '老师问的是删除节点要改几个指针：答两个。' });
    const body = (await harness.request({ method: 'POST', url: '/api/emergency_rescue' })).json();
    expect(body).toMatchObject({
      status: 'success',
      format: 'text',
      answer: '老师问的是删除节点要改几个指针：答两个。',
    });
  });

  it('answers the original warning without calling the LLM when there is no transcript', async () => {
    await setup();
    await harness.app.classAssistant.store.reset({});
    const body = (await harness.request({ method: 'POST', url: '/api/emergency_rescue' })).json();
    expect(body).toMatchObject({
      status: 'warning',
      format: 'none',
      sources: { from: '', to: '', lines: [], pages: [], cited: [] },
    });
    expect(llm.chatRequests).toHaveLength(0);
  });

  it('passes the follow-up chat history in order', async () => {
    await setup();
    llm.enqueueChat({ type: 'text', content: '因为单链表只有 next 指针。' });
    const response = await harness.request({
      method: 'POST',
      url: '/api/emergency_rescue_chat',
      payload: {
        context: '双向链表删除',
        question: '要改几个指针？',
        answer: '两个',
        followup: '单链表呢？',
        history: [
          { role: 'user', content: '为什么是两个？' },
          { role: 'assistant', content: '前驱和后继各一个。' },
        ],
      },
    });
    expect(response.json()).toEqual({ status: 'success', answer: '因为单链表只有 next 指针。' });
    const messages = llm.chatRequests[0]!.body.messages!;
    expect(messages.slice(-3)).toEqual([
      { role: 'user', content: '为什么是两个？' },
      { role: 'assistant', content: '前驱和后继各一个。' },
      { role: 'user', content: '单链表呢？' },
    ]);
    expect(messages[1]!.content).toContain('建议回答：两个');
  });
});

describe('catch-up and notes', () => {
  it('summarises where the teacher is and answers a follow-up', async () => {
    await setup();
    llm.enqueueChat(
      { type: 'text', content: '### 现在讲到\n双向链表的删除（资料第 1 页）。' },
      { type: 'text', content: '本节课还没有布置作业。' },
    );
    const catchup = (await harness.request({ method: 'POST', url: '/api/catchup' })).json();
    expect(catchup).toEqual({
      status: 'success',
      summary: '### 现在讲到\n双向链表的删除（资料第 1 页）。',
      // The span it covers and what went into it.
      sources: {
        from: '10:15:30',
        to: '10:15:30',
        lines: [{ id: 1, timestamp: '10:15:30', text: ROLL_CALL }],
        material: 'deck_20260309_101530.txt',
        pages: [1],
        cited: [],
      },
    });
    expect(systemMessage(0)).toContain('### 作业与截止时间');
    const chat = await harness.request({
      method: 'POST',
      url: '/api/catchup_chat',
      payload: { summary: catchup.summary, question: '有作业吗？', history: [] },
    });
    expect(chat.json()).toEqual({ status: 'success', answer: '本节课还没有布置作业。' });
    expect(llm.chatRequests[1]!.body.messages![1]!.content).toContain(
      '【之前的进度总结】\n### 现在讲到',
    );
  });

  it('writes notes to data/summaries/{course}_{YYYYMMDD}_{HHMMSS}.md', async () => {
    await setup();
    const notes = '# 数据结构 课堂笔记（2026-03-09）\n\n## 知识点\n- 双向链表删除：改两个指针。';
    llm.enqueueChat({ type: 'text', content: notes });
    const response = await harness.request({ method: 'POST', url: '/api/generate_summary' });
    expect(response.json()).toEqual({
      status: 'success',
      filename: '数据结构_20260309_101530.md',
      course_name: '数据结构',
      summary: notes,
    });
    expect(
      await readFile(join(harness.dataDir, 'summaries', '数据结构_20260309_101530.md'), 'utf8'),
    ).toBe(`${notes}\n`);
    expect(userMessage(0)).toContain('【日期】2026-03-09');
  });

  it('refuses notes without a transcript', async () => {
    await setup();
    await harness.app.classAssistant.store.reset({});
    const response = await harness.request({ method: 'POST', url: '/api/generate_summary' });
    expect(response.statusCode).toBe(409);
    expect(response.json().code).toBe('TRANSCRIPT_EMPTY');
  });
});

describe('LLM failures give clear codes and never fake notes', () => {
  const failing = [
    {
      name: 'not configured',
      env: ['LLM_API_KEY='],
      replies: [],
      status: 503,
      code: 'LLM_NOT_CONFIGURED',
      field: 'LLM_API_KEY',
      requests: 0,
    },
    {
      name: 'a server error, also on the retry',
      env: [],
      replies: [
        { type: 'error', status: 500, message: 'upstream exploded' },
        { type: 'error', status: 500, message: 'upstream exploded' },
      ],
      status: 502,
      code: 'LLM_ERROR',
      requests: 2,
    },
    {
      name: 'a refused key (not retried)',
      env: [],
      replies: [{ type: 'error', status: 401, message: 'Incorrect API key provided.' }],
      status: 502,
      code: 'LLM_AUTH_FAILED',
      field: 'LLM_API_KEY',
      requests: 1,
    },
    {
      name: 'a hanging provider',
      env: ['LLM_TIMEOUT=0.3'],
      replies: [{ type: 'hang' }, { type: 'hang' }],
      status: 504,
      code: 'LLM_TIMEOUT',
      field: 'LLM_TIMEOUT',
      requests: 2,
    },
    {
      name: 'a dropped connection',
      env: [],
      replies: [{ type: 'disconnect' }, { type: 'disconnect' }],
      status: 502,
      code: 'LLM_UNREACHABLE',
      requests: 2,
    },
    {
      name: 'a malformed body',
      env: [],
      replies: [{ type: 'malformed', body: '<html>gateway</html>' }],
      status: 502,
      code: 'LLM_BAD_RESPONSE',
      requests: 1,
    },
    {
      name: 'an empty answer',
      env: [],
      replies: [{ type: 'text', content: '   ' }],
      status: 502,
      code: 'LLM_BAD_RESPONSE',
      requests: 1,
    },
  ] as const;

  for (const scenario of failing) {
    it(`notes with ${scenario.name}: ${scenario.code}, no file`, async () => {
      await setup([...scenario.env]);
      llm.enqueueChat(...scenario.replies);
      const response = await harness.request({ method: 'POST', url: '/api/generate_summary' });
      expect(response.statusCode).toBe(scenario.status);
      const body = response.json();
      expect(body).toMatchObject({ status: 'error', code: scenario.code });
      if ('field' in scenario) expect(body.field).toBe(scenario.field);
      expect(body.message).not.toMatch(/at .*\.ts:\d+/);
      expect(llm.chatRequests).toHaveLength(scenario.requests);
      expect(await readdir(join(harness.dataDir, 'summaries'))).toEqual([]);
    });
  }

  it('recovers when the retry succeeds', async () => {
    await setup();
    llm.enqueueChat(
      { type: 'error', status: 503, message: 'busy' },
      { type: 'text', content: '讲到双向链表。' },
    );
    const body = (await harness.request({ method: 'POST', url: '/api/catchup' })).json();
    expect(body).toMatchObject({ status: 'success', summary: '讲到双向链表。' });
    expect(llm.chatRequests).toHaveLength(2);
  });

  it('reports an unreachable provider', async () => {
    const closed = await createFakeOpenAIServer();
    const url = closed.baseURL;
    await closed.close();
    await setup([`LLM_BASE_URL=${url}`]);
    const response = await harness.request({ method: 'POST', url: '/api/emergency_rescue' });
    expect(response.statusCode).toBe(502);
    expect(response.json()).toMatchObject({ code: 'LLM_UNREACHABLE', field: 'LLM_BASE_URL' });
  });

  it('stop_monitor reports the failure as summary_error and writes no notes', async () => {
    await setup(['MOCK_INTERVAL_MS=100000']);
    await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      payload: { course_name: '数据结构' },
    });
    await harness.app.classAssistant.store.append('今天的作业是实现循环队列。');
    llm.enqueueChat(
      { type: 'error', status: 500, message: 'down' },
      { type: 'error', status: 500, message: 'down' },
    );
    const body = (await harness.request({ method: 'POST', url: '/api/stop_monitor' })).json();
    expect(body).toMatchObject({ status: 'stopped', summary_error_code: 'LLM_ERROR' });
    expect(body.summary).toBeUndefined();
    expect(await readdir(join(harness.dataDir, 'summaries'))).toEqual([]);
  });

  it('stop_monitor writes the notes when the LLM answers', async () => {
    await setup(['MOCK_INTERVAL_MS=100000']);
    await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      payload: { course_name: '数据结构' },
    });
    await harness.app.classAssistant.store.append('今天的作业是实现循环队列。');
    llm.enqueueChat({ type: 'text', content: '# 笔记\n作业：循环队列。' });
    const body = (await harness.request({ method: 'POST', url: '/api/stop_monitor' })).json();
    expect(body).toMatchObject({
      status: 'stopped',
      summary: { filename: '数据结构_20260309_101530.md', course_name: '数据结构' },
    });
    expect(userMessage(0)).toContain('今天的作业是实现循环队列。');
  });
});

describe('streamed variants over a real socket', () => {
  it('streams text.delta events and ends with the same body as the JSON route', async () => {
    await setup();
    const base = await harness.listen();
    llm.enqueueChat({ type: 'text', content: '### 现在讲到\n双向链表。', chunkSize: 3 });
    const stream = await openEventStream(`${base}/api/catchup/stream`, {
      method: 'POST',
      headers: ENGLISH,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const end = await stream.next((event) => event.event === 'end');
    const deltas = stream.events.filter((event) => event.event === 'text.delta');
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map((event) => (event.data as { text: string }).text).join('')).toBe(
      '### 现在讲到\n双向链表。',
    );
    expect(end.data).toEqual({
      status: 'success',
      summary: '### 现在讲到\n双向链表。',
      sources: expect.objectContaining({ from: '10:15:30', to: '10:15:30', pages: [1] }),
    });
    await stream.ended;
    expect(llm.chatRequests[0]!.body.stream).toBe(true);
  });

  it('streams a follow-up chat, whose request has a JSON body, to the end', async () => {
    await setup();
    const base = await harness.listen();
    llm.enqueueChat({
      type: 'text',
      content: '因为有 next 和 prev 两个指针。',
      chunkSize: 4,
      delayMs: 20,
    });
    const stream = await openEventStream(`${base}/api/emergency_rescue_chat/stream`, {
      method: 'POST',
      body: { context: '链表', question: '几个指针？', answer: '两个', followup: '为什么？' },
    });
    const end = await stream.next((event) => event.event === 'end');
    expect(end.data).toEqual({ status: 'success', answer: '因为有 next 和 prev 两个指针。' });
    expect(stream.events.filter((event) => event.event === 'text.delta').length).toBeGreaterThan(2);
    await stream.ended;
  });

  it('ends a failing stream with error.raised, and refuses before streaming when unconfigured', async () => {
    await setup();
    const base = await harness.listen();
    llm.enqueueChat(
      { type: 'error', status: 500, message: 'down' },
      { type: 'error', status: 500, message: 'down' },
    );
    const stream = await openEventStream(`${base}/api/emergency_rescue/stream`, {
      method: 'POST',
      headers: ENGLISH,
    });
    const failed = await stream.next((event) => event.event === 'error.raised');
    expect(failed.data).toMatchObject({ status: 'error', code: 'LLM_ERROR' });
    await harness.request({
      method: 'POST',
      url: '/api/settings',
      payload: { fields: { LLM_API_KEY: '' } },
    });
    const refused = await fetch(`${base}/api/generate_summary/stream`, {
      method: 'POST',
      headers: ENGLISH,
    });
    expect(refused.status, await refused.clone().text()).toBe(503);
    expect(await refused.json()).toMatchObject({ code: 'LLM_NOT_CONFIGURED' });
  });

  it('cuts a stream that stalls for LLM_TIMEOUT part-way, without a retry that would repeat it', async () => {
    // A provider that sends the start of an answer, then nothing more.
    let requests = 0;
    const stalling = createServer((request, response) => {
      requests++;
      request.resume();
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: '讲到' } }] })}\n\n`,
      );
    });
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}/v1`;
      await setup(['LLM_TIMEOUT=0.5', `LLM_BASE_URL=${url}`]);
      const base = await harness.listen();
      const stream = await openEventStream(`${base}/api/catchup/stream`, {
        method: 'POST',
        headers: ENGLISH,
      });
      const failed = await stream.next((event) => event.event === 'error.raised');
      expect(failed.data, JSON.stringify(failed.data)).toMatchObject({
        code: 'LLM_TIMEOUT',
        message: `The LLM at ${url} stopped sending the catch-up answer part-way: nothing arrived for 0.5 s (LLM_TIMEOUT).`,
      });
      expect(stream.events.filter((event) => event.event === 'text.delta')).toHaveLength(1);
      expect(requests).toBe(1);
    } finally {
      stalling.closeAllConnections();
      await new Promise((resolve) => stalling.close(resolve));
    }
  });

  it('retries a stream that stalls before its first word, then says so', async () => {
    await setup(['LLM_TIMEOUT=0.5']);
    const base = await harness.listen();
    const late = { type: 'text', content: 'too late', delayMs: 2000 } as const;
    llm.enqueueChat(late, late);
    const stream = await openEventStream(`${base}/api/catchup/stream`, {
      method: 'POST',
      headers: ENGLISH,
    });
    const failed = await stream.next((event) => event.event === 'error.raised');
    expect(failed.data).toMatchObject({
      code: 'LLM_TIMEOUT',
      message: `The LLM at ${llm.baseURL} began the catch-up answer but sent nothing for 0.5 s, also after one retry (LLM_TIMEOUT).`,
    });
    expect(llm.chatRequests).toHaveLength(2);
  });

  it('retries a stream whose provider does not answer, like the plain routes', async () => {
    await setup(['LLM_TIMEOUT=0.5']);
    const base = await harness.listen();
    llm.enqueueChat(
      { type: 'hang' },
      { type: 'text', content: '讲到双向链表的删除。', chunkSize: 3 },
    );
    const stream = await openEventStream(`${base}/api/catchup/stream`, {
      method: 'POST',
      headers: ENGLISH,
    });
    const end = await stream.next((event) => event.event === 'end');
    expect(end.data).toMatchObject({ status: 'success', summary: '讲到双向链表的删除。' });
    expect(llm.chatRequests).toHaveLength(2);
  });

  it('says the provider did not answer (not that it stopped sending) when both tries hang', async () => {
    await setup(['LLM_TIMEOUT=0.5']);
    const base = await harness.listen();
    llm.enqueueChat({ type: 'hang' }, { type: 'hang' });
    const stream = await openEventStream(`${base}/api/catchup/stream`, {
      method: 'POST',
      headers: ENGLISH,
    });
    const failed = await stream.next((event) => event.event === 'error.raised');
    expect(failed.data).toMatchObject({
      code: 'LLM_TIMEOUT',
      message: `The LLM at ${llm.baseURL} did not answer the catch-up request within 0.5 s, also after one retry (LLM_TIMEOUT).`,
    });
    expect(llm.chatRequests).toHaveLength(2);
  });
});

describe('a provider that is not OpenAI-compatible', () => {
  it('is reported as such, streamed or not (an HTML page from a proxy, an empty event stream)', async () => {
    // A proxy's login page answers everything with 200 and HTML.
    const proxy = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<html><body>Please log in to the campus network</body></html>');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`;
      await setup([`LLM_BASE_URL=${proxyUrl}`]);
      const base = await harness.listen();
      const expected = `The LLM at ${proxyUrl} answered the catch-up request with text/html ("<html><body>Please log in to the campus network</body></html>"), not an OpenAI-compatible response: check LLM_BASE_URL.`;
      const plain = await harness.request({
        method: 'POST',
        url: '/api/catchup',
        headers: ENGLISH,
      });
      expect(plain.statusCode).toBe(502);
      expect(plain.json()).toMatchObject({
        code: 'LLM_BAD_RESPONSE',
        message: expected,
        field: 'LLM_BASE_URL',
      });
      const stream = await openEventStream(`${base}/api/catchup/stream`, {
        method: 'POST',
        headers: ENGLISH,
      });
      const failed = await stream.next((event) => event.event === 'error.raised');
      expect(failed.data).toMatchObject({ code: 'LLM_BAD_RESPONSE', message: expected });
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
    // An event stream without a single OpenAI event.
    await harness.close();
    await setup();
    const base = await harness.listen();
    llm.enqueueChat({ type: 'malformed', body: '<html>gateway</html>\n\n' });
    const stream = await openEventStream(`${base}/api/catchup/stream`, {
      method: 'POST',
      headers: ENGLISH,
    });
    const failed = await stream.next((event) => event.event === 'error.raised');
    expect(failed.data).toMatchObject({
      code: 'LLM_BAD_RESPONSE',
      message: `The LLM at ${llm.baseURL} answered the catch-up request with an event stream ("<html>gateway</html>") holding no OpenAI-compatible event, not an OpenAI-compatible response: check LLM_BASE_URL.`,
    });
  });
});

/** One answer of the tiny gateway: its content type (none when absent) and body. */
interface GatewayAnswer {
  type?: string;
  body: string;
}

/**
 * A tiny OpenAI-compatible gateway over real HTTP that labels its answers as some gateways do:
 * each chat request gets the next scripted answer, with status 200.
 */
async function startGateway(answers: GatewayAnswer[]) {
  const requests: Array<{ stream?: boolean }> = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (part: string) => {
      body += part;
    });
    request.on('end', () => {
      requests.push(JSON.parse(body));
      const answer = answers.shift();
      if (!answer) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end('{"error":{"message":"gateway: no answer left"}}');
        return;
      }
      response.writeHead(200, answer.type === undefined ? {} : { 'content-type': answer.type });
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** A chat-completion event stream: one chunk per piece of text, then `data: [DONE]`. */
function eventStream(pieces: string[], finishReason = 'stop'): string {
  const chunk = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'class-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  return `${pieces.map((piece) => chunk({ content: piece }, null)).join('')}${chunk({}, finishReason)}data: [DONE]\n\n`;
}

describe('gateways that label their event streams differently', () => {
  let gateway: Awaited<ReturnType<typeof startGateway>> | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  async function streamCatchup(answers: GatewayAnswer[]) {
    gateway = await startGateway(answers);
    await setup([`LLM_BASE_URL=${gateway.url}`]);
    const base = await harness.listen();
    return { base, url: gateway.url };
  }

  it('reads valid events sent as application/octet-stream, text/plain or with no content type', async () => {
    const types = ['application/octet-stream', 'text/plain; charset=utf-8', undefined];
    const { base } = await streamCatchup(
      types.map((type) => ({
        ...(type ? { type } : {}),
        body: eventStream(['### 现在讲到', '\n双向', '链表。']),
      })),
    );
    for (const type of types) {
      const stream = await openEventStream(`${base}/api/catchup/stream`, {
        method: 'POST',
        headers: ENGLISH,
      });
      const end = await stream.next(
        (event) => event.event === 'end' || event.event === 'error.raised',
      );
      expect(end, `${type}: ${JSON.stringify(end.data)}`).toMatchObject({
        event: 'end',
        data: { status: 'success', summary: '### 现在讲到\n双向链表。' },
      });
      expect(stream.events.filter((event) => event.event === 'text.delta')).toHaveLength(3);
      await stream.ended;
    }
    expect(gateway!.requests.map((request) => request.stream)).toEqual([true, true, true]);
  });

  it('refuses a JSON error body at once with what it says, without a retry', async () => {
    const { base, url } = await streamCatchup([
      {
        type: 'application/json',
        body: '{"error":{"message":"Model Not Exist","type":"invalid_request_error"}}',
      },
    ]);
    const stream = await openEventStream(`${base}/api/catchup/stream`, {
      method: 'POST',
      headers: ENGLISH,
    });
    const failed = await stream.next((event) => event.event === 'error.raised');
    expect(failed.data).toMatchObject({
      code: 'LLM_BAD_RESPONSE',
      field: 'LLM_BASE_URL',
      message: `The LLM at ${url} answered the catch-up request with application/json ("{"error":{"message":"Model Not Exist","type":"invalid_request_error"}}"), not an OpenAI-compatible response: check LLM_BASE_URL.`,
    });
    expect(gateway!.requests).toHaveLength(1);
  });

  it('says the model sent an empty answer when the stream holds only data: [DONE]', async () => {
    const { base, url } = await streamCatchup([
      { type: 'text/event-stream', body: 'data: [DONE]\n\n' },
      { body: ': keep-alive\r\n\r\ndata:[DONE]\r\n\r\n' },
      { type: 'text/event-stream', body: eventStream([], 'length') },
    ]);
    for (let attempt = 0; attempt < 2; attempt++) {
      const stream = await openEventStream(`${base}/api/catchup/stream`, {
        method: 'POST',
        headers: ENGLISH,
      });
      const failed = await stream.next((event) => event.event === 'error.raised');
      expect(failed.data).toMatchObject({
        code: 'LLM_BAD_RESPONSE',
        message: `The LLM at ${url} sent an empty answer to the catch-up request: its stream ended ([DONE]) before any part of an answer.`,
      });
    }
    const stream = await openEventStream(`${base}/api/catchup/stream`, {
      method: 'POST',
      headers: ENGLISH,
    });
    const failed = await stream.next((event) => event.event === 'error.raised');
    expect(failed.data).toMatchObject({
      code: 'LLM_BAD_RESPONSE',
      message: `The LLM at ${url} sent an empty answer to the catch-up request: no text in its 1 streamed chunk (finish reason: length).`,
    });
    expect(gateway!.requests).toHaveLength(3);
  });

  it('still refuses a body of another type that holds no event, showing its start', async () => {
    const { base, url } = await streamCatchup([
      { type: 'application/octet-stream', body: 'Bad gateway: upstream closed\n' },
      { body: '' },
    ]);
    const stream = await openEventStream(`${base}/api/catchup/stream`, {
      method: 'POST',
      headers: ENGLISH,
    });
    const failed = await stream.next((event) => event.event === 'error.raised');
    expect(failed.data).toMatchObject({
      code: 'LLM_BAD_RESPONSE',
      message: `The LLM at ${url} answered the catch-up request with a body of type application/octet-stream ("Bad gateway: upstream closed") holding no OpenAI-compatible event, not an OpenAI-compatible response: check LLM_BASE_URL.`,
    });
    const empty = await openEventStream(`${base}/api/catchup/stream`, {
      method: 'POST',
      headers: ENGLISH,
    });
    const nothing = await empty.next((event) => event.event === 'error.raised');
    expect(nothing.data).toMatchObject({
      message: `The LLM at ${url} answered the catch-up request with a body without a content type holding no OpenAI-compatible event, not an OpenAI-compatible response: check LLM_BASE_URL.`,
    });
  });
});

describe('history folding', () => {
  it('folds older lines into the history block through the LLM every HISTORY_FOLD_ENTRIES entries', async () => {
    await setup(['MOCK_INTERVAL_MS=30', 'MOCK_LOOP=false', 'HISTORY_FOLD_ENTRIES=10']);
    llm.enqueueChat({
      type: 'text',
      content: '讲了链表的插入、删除和双向链表；点名问了删除要改几个指针。',
    });
    const folded = new Promise((resolve) => {
      harness.app.classAssistant.hub.subscribe((event) => {
        if (event.name === 'history.folded') resolve(event.data);
      });
    });
    await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      payload: { course_name: '数据结构' },
    });
    expect(await folded).toMatchObject({
      summary: '讲了链表的插入、删除和双向链表；点名问了删除要改几个指针。',
      folded_entries: 5,
    });
    const foldRequest = llm.chatRequests[0]!;
    expect(String(foldRequest.body.messages![0]!.content)).toContain('压缩');
    expect(String(foldRequest.body.messages![1]!.content)).toContain('【需要合并的课堂转录】\n[');
    const text = await readFile(join(harness.dataDir, 'class_transcript.txt'), 'utf8');
    expect(text).toContain(
      '=== 历史摘要 开始 ===\n讲了链表的插入、删除和双向链表；点名问了删除要改几个指针。\n=== 历史摘要 结束 ===',
    );
    const transcript = (await harness.request({ url: '/api/transcript' })).json();
    expect(transcript.history_summary).toBe(
      '讲了链表的插入、删除和双向链表；点名问了删除要改几个指针。',
    );
    await harness.request({ method: 'POST', url: '/api/stop_monitor?with_summary=false' });
  });

  it('keeps line ids over SSE across a fold; /api/transcript carries the same ids', async () => {
    await setup(['MOCK_INTERVAL_MS=30', 'MOCK_LOOP=false', 'HISTORY_FOLD_ENTRIES=10']);
    llm.enqueueChat({ type: 'text', content: '前五句讲了链表。' });
    const base = await harness.listen();
    const stream = await openEventStream(`${base}/api/events`);
    await harness.request({ method: 'POST', url: '/api/start_monitor', payload: {} });
    const folded = await stream.next((event) => event.event === 'history.folded', 20_000);
    expect(folded.data).toMatchObject({ folded_entries: 5, first_id: 6 });
    // The lines still in the file are those the events announced with the same ids.
    const atFold = stream.events.slice(0, stream.events.indexOf(folded));
    const announced = new Map<number, string>();
    for (const event of atFold) {
      if (event.event !== 'line.appended' && event.event !== 'line.updated') continue;
      const line = event.data as { id: number; text: string };
      expect(line.id).toEqual(expect.any(Number));
      announced.set(line.id, line.text);
    }
    const ids = [...announced.keys()];
    expect(ids.length).toBeGreaterThanOrEqual(10);
    expect(ids).toEqual(ids.map((_, position) => position + 1));
    // Lines after the fold continue the sequence.
    const next = await stream.next(
      (event) => event.event === 'line.appended' && stream.events.indexOf(event) > atFold.length,
    );
    expect((next.data as { id: number }).id).toBe(ids.length + 1);
    const transcript = (await harness.request({ url: '/api/transcript' })).json() as {
      entries: Array<{ id: number; index: number; text: string }>;
    };
    expect(transcript.entries[0]).toMatchObject({ id: 6, index: 0, text: announced.get(6) });
    for (const entry of transcript.entries.filter((entry) => announced.has(entry.id))) {
      expect(entry.text).toBe(announced.get(entry.id));
    }
    stream.close();
    await harness.request({ method: 'POST', url: '/api/stop_monitor?with_summary=false' });
  });

  it('reports a failing fold once and loses no line', async () => {
    await setup([
      'MOCK_INTERVAL_MS=30',
      'MOCK_LOOP=false',
      'HISTORY_FOLD_ENTRIES=10',
      'LLM_API_KEY=',
    ]);
    const errors: unknown[] = [];
    harness.app.classAssistant.hub.subscribe((event) => {
      if (event.name === 'error.raised') errors.push(event.data);
    });
    await harness.request({ method: 'POST', url: '/api/start_monitor', payload: {} });
    await waitFor(
      () => harness.app.classAssistant.monitor.status().recognizer_state === 'ended',
      20_000,
      'end',
    );
    await harness.request({ method: 'POST', url: '/api/stop_monitor?with_summary=false' });
    expect(errors).toEqual([
      {
        source: 'history folding',
        code: 'LLM_NOT_CONFIGURED',
        message: expect.stringContaining('LLM_API_KEY'),
      },
    ]);
    const text = await readFile(join(harness.dataDir, 'class_transcript.txt'), 'utf8');
    expect(text).not.toContain('历史摘要');
    expect(text.split('\n').filter((line) => line.startsWith('['))).toHaveLength(27);
  });
});
