// The page the teacher is on, end to end: a mock class whose script walks a deck uploaded as its
// material, over a real socket — the page on each line (events, /api/transcript, the library,
// search), `page.changed` in order, the current page in the status and for the agent's
// material_page, and the notes request to the (fake) LLM labelled with pages.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type ClassClient, classClient } from './support/class-client.ts';
import { createHarness, type Harness } from './support/harness.ts';

const DECK = [
  '--- 第 1 页 ---\n栈 Stack\n后进先出 LIFO：只在栈顶 push 和 pop\n',
  '--- 第 2 页 ---\n队列 Queue\n先进先出 FIFO：队头出队，队尾入队\n',
  '--- 第 3 页 ---\n循环队列 Circular queue\n取模回绕；判满时牺牲一个单元\n',
  '--- 第 4 页 ---\n二叉树 Binary tree\n左子树、右子树；满二叉树与完全二叉树\n',
  '--- 第 5 页 ---\n堆 Heap\n大顶堆：插入时上浮，删除时下沉\n',
].join('\n');

/** The lecture: each line with the page it is about (asides keep the page before them). */
const LECTURE: Array<[string, number]> = [
  ['今天先讲栈，栈顶这个位置很重要', 1],
  ['后进先出，就是 LIFO', 1],
  ['后面的同学安静一点', 1],
  ['接下来是队列，先进先出', 2],
  ['出队在队头，入队在队尾', 2],
  ['循环队列怎么判满呢', 3],
  ['要取模，还要牺牲一个单元', 3],
  ['二叉树分左子树和右子树', 4],
  ['满二叉树和完全二叉树不一样', 4],
  ['最后讲堆，大顶堆', 5],
  ['插入的时候上浮，删除的时候下沉', 5],
];

let harness: Harness | undefined;
let llm: FakeOpenAIServer | undefined;
let client: ClassClient | undefined;
let mcp: Client | undefined;

afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
  client?.close();
  client = undefined;
  await harness?.close();
  harness = undefined;
  await llm?.close();
  llm = undefined;
});

/** A line or a search hit, as far as these checks read it. */
interface Paged {
  text: string;
  page: number | null;
  kind: string;
  snippet: string;
}

/** The JSON answer of a GET (the fields these checks read). */
interface Answer {
  current_page?: number | null;
  entries: Paged[];
  lines: Paged[];
  hits: Paged[];
  items: Array<{ id: string }>;
  text: string;
  message: string;
}

async function getJson(url: string): Promise<{ status: number; body: Answer }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Answer };
}

describe('the page tracker in a class', () => {
  it('gives each line its page, tells each change, and the library, search, agent and notes know it', async () => {
    llm = await createFakeOpenAIServer({
      chat: () => ({
        type: 'text',
        content: '# 数据结构课堂笔记\n\n## 知识点\n\n### 第 1 页 栈\n',
      }),
    });
    harness = await createHarness();
    const script = join(harness.root, 'lecture.txt');
    await writeFile(script, `${LECTURE.map(([text]) => text).join('\n')}\n`);
    await mkdir(join(harness.dataDir, 'cite'), { recursive: true });
    await writeFile(join(harness.dataDir, 'cite', 'deck.txt'), DECK);
    await writeFile(
      harness.envFile,
      `${[
        'ASR_MODE=mock',
        'MOCK_INTERVAL_MS=40',
        'MOCK_LOOP=false',
        `MOCK_SCRIPT=${script}`,
        `LLM_BASE_URL=${llm.baseURL}`,
        'LLM_API_KEY=sk-test',
        'LLM_MODEL=m',
      ].join('\n')}\n`,
    );
    await harness.app.classAssistant.settings.load();
    const base = await harness.listen();
    client = await classClient(base);

    const idle = await getJson(`${base}/api/monitor_status`);
    expect(idle.body.current_page).toBeNull();
    const started = await client.start({ course_name: '数据结构', cite_filename: 'deck.txt' });
    expect(started.status).toBe(200);
    await client.recognizerState('ended');

    // Every line carries its page, on its event and in /api/transcript.
    const appended = client.all('line.appended').map((event) => event.data as Paged);
    expect(appended.map((line) => [line.text, line.page])).toEqual(LECTURE);
    const transcript = await getJson(`${base}/api/transcript`);
    expect(transcript.body.entries.map((line) => line.page)).toEqual(
      LECTURE.map(([, page]) => page),
    );
    // The changes, in order, each once, and the current page in the status.
    expect(client.all('page.changed').map((event) => event.data)).toEqual([
      { page: 1, page_count: 5, title: '栈 Stack' },
      { page: 2, page_count: 5, title: '队列 Queue' },
      { page: 3, page_count: 5, title: '循环队列 Circular queue' },
      { page: 4, page_count: 5, title: '二叉树 Binary tree' },
      { page: 5, page_count: 5, title: '堆 Heap' },
    ]);
    expect((await getJson(`${base}/api/monitor_status`)).body.current_page).toBe(5);

    // What the bar opens on a tap: the page's text; a page the deck lacks is named.
    const page = await getJson(`${base}/api/material/pages/3`);
    expect(page.body).toMatchObject({ page: 3, page_count: 5, title: '循环队列 Circular queue' });
    expect(page.body.text).toContain('判满时牺牲一个单元');
    const missing = await getJson(`${base}/api/material/pages/9`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'MATERIAL_PAGE_NOT_FOUND' });
    expect(missing.body.message).toContain('5');

    // The agent's material_page without a page: the page the teacher is on.
    mcp = new Client({ name: 'test-client', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: {
          headers: { authorization: `Bearer ${harness.app.classAssistant.mcpToken}` },
        },
      }),
    );
    const current = await mcp.callTool({ name: 'material_page', arguments: {} });
    expect(current.isError, JSON.stringify(current.content)).toBeFalsy();
    expect(current.structuredContent).toMatchObject({ page: 5, pages: 5 });
    expect((current.structuredContent as { text: string }).text).toContain('大顶堆');

    // Catch-up is told the page the teacher is on and each line's page.
    const catchup = await fetch(`${base}/api/catchup`, { method: 'POST' });
    expect(catchup.status).toBe(200);
    const catchupSent = JSON.stringify(llm.chatRequests.at(-1)?.body.messages);
    expect(catchupSent).toContain('【老师现在讲到】资料第 5 页');
    expect(catchupSent).toContain('(第 4 页) 二叉树分左子树和右子树');

    // Notes: the transcript sent to the LLM labels each line with its page.
    const stopped = await fetch(`${base}/api/stop_monitor`, { method: 'POST' });
    expect(stopped.status).toBe(200);
    const notesRequest = llm.chatRequests.find((request) =>
      JSON.stringify(request.body.messages).includes('【日期】'),
    );
    const sent = JSON.stringify(notesRequest?.body.messages);
    expect(sent).toContain('(第 1 页) 今天先讲栈');
    expect(sent).toContain('(第 3 页) 要取模，还要牺牲一个单元');
    expect(sent).toContain('按资料页分组');
    const idleAgain = await mcp.callTool({ name: 'material_page', arguments: {} });
    expect(idleAgain.isError).toBe(true);
    expect(JSON.stringify(idleAgain.content)).toContain('give a page number');

    // The library's class and its search hits carry the pages.
    const classes = await getJson(`${base}/api/classes`);
    const id = classes.body.items[0]!.id;
    const kept = await getJson(`${base}/api/classes/${id}`);
    expect(kept.body.lines.map((line) => line.page)).toEqual(LECTURE.map(([, p]) => p));
    const found = await getJson(`${base}/api/search?q=${encodeURIComponent('牺牲')}`);
    expect(
      found.body.hits
        .filter((hit) => hit.kind === 'line')
        .map((hit) => [hit.snippet.replace(/<\/?mark>/g, ''), hit.page]),
    ).toEqual([['要取模，还要牺牲一个单元', 3]]);
  });
});
