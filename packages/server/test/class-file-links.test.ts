// Links placed where class content lives — a class folder, cite/, summaries/ — that lead to the
// settings file: the class routes, material activation and the MCP tools refuse them, naming the
// file in the student's language, and the settings never appear in an answer.
import { link, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { createHarness, type Harness } from './support/harness.ts';

const SECRET = 'settings-secret-a41c07';

let harness: Harness | undefined;
let client: Client | undefined;
let llm: FakeOpenAIServer | undefined;

afterEach(async () => {
  await llm?.close();
  llm = undefined;
  await client?.close();
  client = undefined;
  await harness?.close();
  harness = undefined;
});

/** A backend with one ended class in the library; its settings file holds {@link SECRET}. */
async function withEndedClass(): Promise<{ app: Harness; id: string; folder: string }> {
  const app = await createHarness({
    env: ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=1000000', `MY_PASSWORD=${SECRET}`],
  });
  harness = app;
  const { store, library } = app.app.classAssistant;
  expect((await app.startMonitor({ course_name: '操作系统' })).statusCode).toBe(200);
  await store.append('今天讲进程调度。');
  await app.request({ method: 'POST', url: '/api/stop_monitor?with_summary=false' });
  await library.ready();
  const id = library.list({ offset: 0, limit: 1 }).items[0]!.id;
  return { app, id, folder: join(app.dataDir, 'classes', id) };
}

/** Replaces `path` with a link to the settings file. */
async function linkToSettings(app: Harness, path: string, kind: 'hard' | 'symbolic') {
  await rm(path, { force: true });
  if (kind === 'hard') await link(app.envFile, path);
  else await symlink(app.envFile, path);
}

describe('class routes refuse links to the settings file', () => {
  for (const kind of ['hard', 'symbolic'] as const) {
    it(`GET /api/classes/:id and its export refuse a ${kind} link in the class folder`, async () => {
      const { app, id, folder } = await withEndedClass();
      await linkToSettings(app, join(folder, 'notes.md'), kind);
      for (const url of [`/api/classes/${id}`, `/api/classes/${id}/export?format=md`]) {
        const english = await app.request({ url, headers: { 'accept-language': 'en' } });
        expect(english.body).not.toContain(SECRET);
        expect(english.statusCode, english.body).toBe(403);
        expect(english.json()).toMatchObject({
          code: 'FILE_LINK_REFUSED',
          message: expect.stringContaining(`classes/${id}/notes.md was not read: it is a link`),
        });
        const chinese = await app.request({ url });
        expect(chinese.json().message).toContain(`没有读取 classes/${id}/notes.md`);
      }
    });
  }

  it('a transcript that is a hard link is refused too; the class reads again once it is a plain file', async () => {
    const { app, id, folder } = await withEndedClass();
    const transcript = await readFile(join(folder, 'transcript.txt'), 'utf8');
    await linkToSettings(app, join(folder, 'transcript.txt'), 'hard');
    const refused = await app.request({ url: `/api/classes/${id}/export?format=txt` });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).not.toContain(SECRET);
    await rm(join(folder, 'transcript.txt'));
    await writeFile(join(folder, 'transcript.txt'), transcript);
    const read = await app.request({ url: `/api/classes/${id}/export?format=txt` });
    expect(read.statusCode).toBe(200);
    expect(read.body).toContain('今天讲进程调度。');
  });

  it('a material in cite/ or notes in summaries/ that link to the settings file are refused', async () => {
    const { app } = await withEndedClass();
    await symlink(app.envFile, join(app.dataDir, 'cite', 'leak.txt'));
    await link(app.envFile, join(app.dataDir, 'cite', 'hard-leak.txt'));
    for (const name of ['leak.txt', 'hard-leak.txt']) {
      const started = await app.startMonitor({ course_name: '操作系统', cite_filename: name });
      expect(JSON.stringify(started.body)).not.toContain(SECRET);
      expect(started.statusCode).toBe(403);
      expect(started.body).toMatchObject({ code: 'FILE_LINK_REFUSED' });
      const current = await readFile(join(app.dataDir, 'current_class_material.txt'), 'utf8').catch(
        () => '',
      );
      expect(current).not.toContain(SECRET);
    }
    await link(app.envFile, join(app.dataDir, 'summaries', 'leak.md'));
    const notes = await app.request({ url: '/api/notes/leak.md' });
    expect(notes.body).not.toContain(SECRET);
    expect(notes.statusCode).toBe(403);
    expect(notes.json()).toMatchObject({ code: 'FILE_LINK_REFUSED' });
  });
});

describe('a link in a class folder does not stop the backend', () => {
  it('starts again with a hard link in the last class’s folder, and refuses only that class', async () => {
    const { app, id, folder } = await withEndedClass();
    await app.app.close();
    await linkToSettings(app, join(folder, 'notes.md'), 'hard');
    const again = await buildApp({ dataDir: app.dataDir, envFile: app.envFile, port: 8765 });
    try {
      await again.ready();
      const host = { host: '127.0.0.1:8765' };
      const health = await again.inject({ url: '/api/health', headers: host });
      expect(health.statusCode).toBe(200);
      const refused = await again.inject({ url: `/api/classes/${id}`, headers: host });
      expect(refused.body).not.toContain(SECRET);
      expect(refused.json()).toMatchObject({ code: 'FILE_LINK_REFUSED' });
    } finally {
      await again.close();
    }
  });
});

describe('the AI features refuse a linked class material', () => {
  it('a current material that links to the settings file never reaches the LLM', async () => {
    llm = await createFakeOpenAIServer({ chat: () => ({ type: 'text', content: '好的。' }) });
    const app = await createHarness({
      env: [
        'ASR_MODE=mock',
        'MOCK_INTERVAL_MS=1000000',
        `LLM_BASE_URL=${llm.baseURL}`,
        'LLM_API_KEY=sk-test',
        'LLM_MODEL=m',
        `MY_PASSWORD=${SECRET}`,
      ],
    });
    harness = app;
    expect((await app.startMonitor({ course_name: '操作系统' })).statusCode).toBe(200);
    await app.app.classAssistant.store.append('今天讲进程调度。');
    await linkToSettings(app, join(app.dataDir, 'current_class_material.txt'), 'symbolic');
    const response = await app.request({ method: 'POST', url: '/api/emergency_rescue' });
    expect(response.body).not.toContain(SECRET);
    expect(response.json()).toMatchObject({ code: 'FILE_LINK_REFUSED' });
    expect(
      llm.chatRequests.filter((request) => JSON.stringify(request.body).includes(SECRET)),
    ).toEqual([]);
  });
});

describe('the MCP tools refuse the same links', () => {
  it('material_page and notes_read through a link answer an error naming the file, never its content', async () => {
    const { app, id, folder } = await withEndedClass();
    await link(app.envFile, join(app.dataDir, 'cite', 'hard-leak.txt'));
    await symlink(app.envFile, join(app.dataDir, 'cite', 'leak.txt'));
    await linkToSettings(app, join(folder, 'notes.md'), 'hard');
    await link(app.envFile, join(app.dataDir, 'summaries', 'leak.md'));
    const base = await app.listen();
    client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: {
          headers: { authorization: `Bearer ${app.app.classAssistant.mcpToken}` },
        },
      }),
    );
    const calls = [
      { name: 'material_page', arguments: { page: 1, material: 'hard-leak' } },
      { name: 'material_page', arguments: { page: 1, material: 'leak' } },
      { name: 'notes_read', arguments: { class_id: id } },
      { name: 'notes_read', arguments: { filename: 'leak.md' } },
      { name: 'class_lines', arguments: { class_id: id } },
      { name: 'notes_read', arguments: { filename: '../mcp-token' } },
      { name: 'material_page', arguments: { page: 1, material: '../mcp-token' } },
      { name: 'material_page', arguments: { page: 1, material: 'mcp-token' } },
    ];
    for (const call of calls) {
      const result = await client.callTool(call);
      const text = JSON.stringify(result);
      expect(text, `${call.name} ${JSON.stringify(call.arguments)}`).not.toContain(SECRET);
      expect(text).not.toContain(app.app.classAssistant.mcpToken);
      expect(result.isError, text).toBe(true);
      if (!JSON.stringify(call.arguments).includes('mcp-token')) {
        expect(text).toMatch(/was not read: it is a link/);
      }
    }
  });
});
