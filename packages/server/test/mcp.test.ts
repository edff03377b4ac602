// The MCP server of the lectures: the official SDK client over Streamable HTTP against a real
// listening backend (token, Host and Origin rules), and over stdio against the real bin.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, spawnBin } from './support/bin-process.ts';
import { createHarness, type Harness } from './support/harness.ts';

let harness: Harness | undefined;
let llm: FakeOpenAIServer | undefined;
const clients: Client[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  await harness?.close();
  harness = undefined;
  await llm?.close();
  llm = undefined;
});

const DECK = '--- 第 1 页 ---\n链表\n--- 第 2 页 ---\n堆是一棵完全二叉树，最小的元素在堆顶。\n';
const TOOLS = ['class_list', 'class_search', 'class_lines', 'material_page', 'notes_read'];

/**
 * A backend with an ended class (indexed in the library) and a running one whose older lines
 * were folded into its folder (the mock lecture, folded through the fake LLM).
 */
async function lectures(): Promise<Harness> {
  llm = await createFakeOpenAIServer({
    chat: () => ({ type: 'text', content: '讲了链表的插入和删除。' }),
  });
  const app = await createHarness({
    env: [
      'ASR_MODE=mock',
      'MOCK_INTERVAL_MS=20',
      'MOCK_LOOP=false',
      'HISTORY_FOLD_ENTRIES=10',
      `LLM_BASE_URL=${llm.baseURL}`,
      'LLM_API_KEY=sk-test',
      'LLM_MODEL=m',
    ],
  });
  harness = app;
  const { cite, store, library, hub } = app.app.classAssistant;
  await app.startMonitor({ course_name: '算法' });
  await app.request({ method: 'POST', url: '/api/pause_monitor' });
  await store.append('上周讲了快速排序的划分。');
  await app.request({ method: 'POST', url: '/api/stop_monitor?with_summary=false' });
  await library.ready();
  const folded = new Promise<void>((resolve) =>
    hub.subscribe((event) => {
      if (event.name === 'history.folded') resolve();
    }),
  );
  const material = await cite.write('堆.pptx', DECK, new Date());
  await app.startMonitor({ course_name: '数据结构', cite_filename: material });
  await folded;
  return app;
}

async function httpClient(base: string, token: string | undefined): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** The JSON result of a tool call (its structured content). */
async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as Record<string, unknown>;
}

/** Where in `schema` a `type` is a list, as paths such as `properties.class_id.type`. */
function typeLists(schema: unknown, path = ''): string[] {
  if (Array.isArray(schema)) {
    return schema.flatMap((entry, index) => typeLists(entry, `${path}[${index}]`));
  }
  if (typeof schema !== 'object' || schema === null) return [];
  return Object.entries(schema).flatMap(([key, value]) => [
    ...(key === 'type' && Array.isArray(value) ? [`${path}.type`] : []),
    ...typeLists(value, `${path}.${key}`),
  ]);
}

/** What every transport must answer the same way: lists and looks up. */
async function expectLecturesAnswer(client: Client) {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name)).toEqual(TOOLS);
  for (const tool of tools) {
    expect(tool.title).toBeTruthy();
    expect(tool.annotations).toMatchObject({
      title: tool.title,
      readOnlyHint: true,
      destructiveHint: false,
      openWorldHint: false,
    });
    expect(tool.outputSchema).toMatchObject({ type: 'object' });
    // No list of types (`"type": ["string", "null"]`): the MCP Inspector's strict mode reports
    // it as not portable; a nullable value is an anyOf with a null branch.
    expect(typeLists(tool.inputSchema), tool.name).toEqual([]);
    expect(typeLists(tool.outputSchema), tool.name).toEqual([]);
  }
  // A line of the running class that was folded out of the live transcript, and one of the
  // ended class, which is in the library's index.
  const search = await call(client, 'class_search', { query: '数组的插入' });
  expect(search.hits).toContainEqual(
    expect.objectContaining({
      current: true,
      kind: 'line',
      line_id: 3,
      text: '上节课我们说过，数组的插入和删除需要移动大量元素，时间复杂度是 O(n)。',
    }),
  );
  const past = await call(client, 'class_search', { query: '快速排序' });
  expect(past.hits).toContainEqual(
    expect.objectContaining({
      current: false,
      course_name: '算法',
      text: '上周讲了快速排序的划分。',
    }),
  );
  const page = await call(client, 'material_page', { page: 2 });
  expect(page).toMatchObject({ page: 2, pages: 2 });
  expect(page.text).toContain('堆是一棵完全二叉树');
  const lines = await call(client, 'class_lines', { around_line_id: 2, limit: 3 });
  expect((lines.lines as Array<{ id: number }>).map((line) => line.id)).toEqual([1, 2, 3]);
  const list = await call(client, 'class_list', {});
  expect(list).toMatchObject({ total: 2 });
  const refused = await client.callTool({ name: 'material_page', arguments: { page: 9 } });
  expect(refused.isError).toBe(true);
  expect(JSON.stringify(refused.content)).toContain('has no page 9 (pages 1 to 2)');
}

describe('MCP over Streamable HTTP at /mcp', () => {
  it('lists the class tools with titles and read-only annotations, and answers them', async () => {
    const app = await lectures();
    const base = await app.listen();
    const client = await httpClient(base, app.app.classAssistant.mcpToken);
    expect(client.getServerVersion()?.name).toBe('class-assistant');
    await expectLecturesAnswer(client);
  });

  it('needs the token from <data>/mcp-token, and keeps the Host and Origin rules', async () => {
    const app = await createHarness({ env: ['ASR_MODE=mock'] });
    harness = app;
    const base = await app.listen();
    const token = (await readFile(join(app.dataDir, 'mcp-token'), 'utf8')).trim();
    if (process.platform !== 'win32') {
      expect((await stat(join(app.dataDir, 'mcp-token'))).mode & 0o777).toBe(0o600);
    }
    const info = (await app.request({ url: '/api/mcp/connection' })).json();
    expect(info).toMatchObject({
      url: `${base}/mcp`,
      token_file: join(app.dataDir, 'mcp-token'),
      token_command: { args: expect.arrayContaining(['mcp', 'token', '--data-dir', app.dataDir]) },
      tools: TOOLS.map((name) => ({ name, title: expect.any(String) })),
      stdio: { args: expect.arrayContaining(['mcp', '--data-dir', app.dataDir]) },
    });

    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'curl', version: '1' },
      },
    };
    const post = (headers: Record<string, string>) =>
      fetch(`${base}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(initialize),
      });
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="class-assistant"');
    expect(await none.json()).toMatchObject({ code: 'MCP_UNAUTHORIZED' });
    const wrong = await post({ authorization: `Bearer ${token}x` });
    expect(wrong.status).toBe(401);
    const foreign = await post({
      authorization: `Bearer ${token}`,
      origin: 'https://evil.example',
    });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
    const right = await post({ authorization: `Bearer ${token}` });
    expect(right.status).toBe(200);
    expect(await right.json()).toMatchObject({
      id: 1,
      result: { serverInfo: { name: 'class-assistant' } },
    });
    const stream = await fetch(`${base}/mcp`, { headers: { authorization: `Bearer ${token}` } });
    expect(stream.status).toBe(405);

    // A DNS-rebinding page reaches the port under another name: refused before the token.
    const rebound = await app.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { host: 'attacker.example', authorization: `Bearer ${token}` },
      payload: initialize,
    });
    expect(rebound.statusCode).toBe(403);
    expect(rebound.json()).toMatchObject({ code: 'HOST_NOT_ALLOWED' });

    // The SDK client without the token cannot connect; with it, it can.
    await expect(httpClient(base, undefined)).rejects.toThrow();
    await expect(httpClient(base, 'not-the-token')).rejects.toThrow();
    expect((await (await httpClient(base, token)).listTools()).tools).toHaveLength(5);

    // Another data folder has its own token; the same folder keeps its token after a restart.
    const again = await createHarness({ env: ['ASR_MODE=mock'] });
    try {
      expect(again.app.classAssistant.mcpToken).not.toBe(token);
    } finally {
      await again.close();
    }
    await app.app.close();
    const { buildApp } = await import('../src/app.ts');
    const reopened = await buildApp({ dataDir: app.dataDir, envFile: app.envFile });
    try {
      expect(reopened.classAssistant.mcpToken).toBe(token);
    } finally {
      await reopened.close();
    }
  });
});

describe('the MCP token is never served over HTTP', () => {
  it('GET /api/mcp/connection names the file and the command that prints it, and the command prints it', async () => {
    const app = await createHarness({ env: ['ASR_MODE=mock'] });
    harness = app;
    const base = await app.listen();
    const token = (await readFile(join(app.dataDir, 'mcp-token'), 'utf8')).trim();
    expect(token.length).toBeGreaterThan(20);
    // Any program of any user of the computer can reach the port: the token is nowhere in it.
    const answer = await fetch(`${base}/api/mcp/connection`);
    expect(answer.status).toBe(200);
    const body = await answer.text();
    expect(body).not.toContain(token);
    const info = JSON.parse(body) as { token_command: { command: string; args: string[] } };
    expect(info).toMatchObject({ token_file: join(app.dataDir, 'mcp-token') });

    // The command the settings panel shows, run as the student would: it prints the token.
    const shown = spawnBin(info.token_command.args.slice(1));
    expect(info.token_command.command).toBe(process.execPath);
    expect(info.token_command.args[0]).toBe(BIN);
    expect(await shown.exited).toBe(0);
    expect(shown.output().stdout).toBe(`${token}\n`);
  });

  it('class-assistant-backend mcp token finds the data folder as the server does, and says when there is none', async () => {
    const app = await createHarness({ env: ['ASR_MODE=mock'] });
    harness = app;
    const token = app.app.classAssistant.mcpToken;
    // --settings-file alone: the data folder is "data" next to it.
    const bySettings = spawnBin(['mcp', 'token', '--settings-file', app.envFile]);
    expect(await bySettings.exited).toBe(0);
    expect(bySettings.output().stdout).toBe(`${token}\n`);
    const missing = join(app.root, 'nowhere');
    const none = spawnBin(['mcp', 'token', '--data-dir', missing]);
    expect(await none.exited).toBe(1);
    expect(none.output()).toEqual({
      stdout: '',
      stderr: expect.stringContaining(`no data folder at ${missing}`),
    });
    const wrong = spawnBin(['mcp', 'token', '--data-folder', app.dataDir]);
    expect(await wrong.exited).toBe(2);
    expect(wrong.output().stderr).toContain("Unknown option '--data-folder'");
  });
});

describe('MCP over stdio: class-assistant-backend mcp', () => {
  it('answers the same tools from the data folder while the backend runs', async () => {
    const app = await lectures();
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--data-dir', app.dataDir],
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await client.connect(transport);
    clients.push(client);
    expect(client.getServerVersion()?.name).toBe('class-assistant');
    await expectLecturesAnswer(client);
    expect(stderr).toContain(`serving the lectures of ${app.dataDir}`);
  });

  // The machine's own Node.js (Node 20 on this project's machines and CI), older than the
  // package's engines allow: what an MCP client configured with plain `node` starts.
  const SYSTEM_NODE = '/usr/bin/node';

  it.each([
    ['zh_CN.UTF-8', ['需要 Node.js 22.18 或更新的版本'], ['needs Node.js']],
    ['en_US.UTF-8', ['needs Node.js 22.18 or newer'], ['需要 Node.js']],
    ['', ['needs Node.js 22.18 or newer', '需要 Node.js 22.18 或更新的版本'], []],
  ])(
    'on an older Node.js, the client shows the Node.js it needs (LANG=%j)',
    async (language, shown, absent) => {
      const version = execFileSync(SYSTEM_NODE, ['--version'], { encoding: 'utf8' }).trim();
      expect(Number(/^v(\d+)\./.exec(version)?.[1])).toBeLessThan(22);
      const dataDir = await mkdtemp(join(tmpdir(), 'mcp-old-node-'));
      const client = new Client({ name: 'test-client', version: '1.0.0' });
      const transport = new StdioClientTransport({
        command: SYSTEM_NODE,
        args: [BIN, 'mcp', '--data-dir', dataDir],
        // An MCP client passes only a few variables; the locale when it is configured to.
        env: { PATH: process.env.PATH ?? '', ...(language ? { LANG: language } : {}) },
        stderr: 'pipe',
      });
      const failure = await client.connect(transport).then(
        () => new Error('connected'),
        (error: Error) => error,
      );
      await client.close();
      for (const text of shown) expect(failure.message).toContain(text);
      for (const text of absent) expect(failure.message).not.toContain(text);
      expect(failure.message).toContain(version.slice(1));
    },
  );
});
