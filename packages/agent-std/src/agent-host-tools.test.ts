// Agents with host tools: called by a scripted model over a real socket (the fake
// OpenAI-compatible server), under the run's policy, time budget, events and strict schemas.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { type AgentEvent, type AgentToolStart, defineAgent } from './agent.ts';
import { ToolError } from './errors.ts';
import { defineHostTool } from './host-tool.ts';
import {
  createFakeOpenAIServer,
  type FakeChatReply,
  type FakeOpenAIServer,
} from './testing/fake-openai-server.ts';

const pages = ['Heaps keep the smallest element on top.', 'A binary search tree keeps order.'];
const transcript = ['[09:02:11] today: heaps', '[09:15:40] a heap is a complete binary tree'];

const materialPage = defineHostTool({
  name: 'material_page',
  title: 'Read a page of the material',
  description: 'Page N of the current material.',
  inputSchema: z.object({ page: z.number().int().min(1) }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  execute: async ({ page }) => {
    const text = pages[page - 1];
    if (!text) throw new ToolError('TOOL_NOT_FOUND', `there is no page ${page}`);
    return `Page ${page}: ${text}`;
  },
});

const classSearch = defineHostTool({
  name: 'class_search',
  title: 'Search the class',
  description: 'Transcript lines containing the query.',
  inputSchema: z.object({ query: z.string(), limit: z.number().int().min(1).default(5) }),
  outputSchema: z.object({ lines: z.array(z.string()) }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  execute: async ({ query, limit }) => ({
    lines: transcript.filter((line) => line.includes(query)).slice(0, limit),
  }),
});

const tutor = defineAgent({
  name: 'Tutor',
  uses: ['std.fs', 'std.text'],
  tools: [materialPage, classSearch],
  role: 'a tutor for this class',
  prompt: 'Answer from the material and the transcript; say which pages and times you used.',
});

let root: string;
const servers: FakeOpenAIServer[] = [];
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agent-std-agent-host-'));
  await writeFile(join(root, 'notes.md'), 'my notes');
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await rm(root, { recursive: true, force: true });
});

async function fake(chat: FakeChatReply[]) {
  const server = await createFakeOpenAIServer({ chat });
  servers.push(server);
  return server;
}

describe('an agent with host tools', () => {
  test('offers them beside the std tools, runs them, and reports them in its events', async () => {
    const server = await fake([
      {
        type: 'tool-calls',
        calls: [
          { id: 'c1', name: 'material_page', arguments: '{"page": 1}' },
          { id: 'c2', name: 'class_search', arguments: '{"query": "heap"}' },
          { id: 'c3', name: 'file_write', arguments: '{"path": "notes.md", "content": "gone"}' },
        ],
      },
      { type: 'text', content: 'A heap keeps the smallest on top (page 1, 09:15:40).' },
    ]);
    const events: AgentEvent[] = [];
    const starts: AgentToolStart[] = [];
    const result = await tutor.run('What is a heap?', {
      baseURL: server.baseURL,
      apiKey: 'k',
      model: 'm',
      policy: { fs: { root, readOnly: true } },
      onEvent: (event) => events.push(event),
      onToolStart: (call) => starts.push(call),
    });
    expect(result.text).toBe('A heap keeps the smallest on top (page 1, 09:15:40).');
    const offered = server.chatRequests[0]?.body.tools as Array<{ function: { name: string } }>;
    expect(offered.map((tool) => tool.function.name)).toEqual([
      'file_read',
      'file_exists',
      'file_list',
      'text_split',
      'text_replace',
      'text_upper',
      'text_lower',
      'material_page',
      'class_search',
    ]);
    // What the model got back: the page, the transcript lines, and the refused write.
    expect(server.chatRequests[1]?.body.messages?.filter((m) => m.role === 'tool')).toEqual([
      {
        role: 'tool',
        tool_call_id: 'c1',
        content: 'Page 1: Heaps keep the smallest element on top.',
      },
      {
        role: 'tool',
        tool_call_id: 'c2',
        content:
          '{"lines":["[09:02:11] today: heaps","[09:15:40] a heap is a complete binary tree"]}',
      },
      {
        role: 'tool',
        tool_call_id: 'c3',
        content:
          'Error [TOOL_POLICY_DENIED] file_write: the files are read-only here (policy.fs.readOnly); file_write cannot change them',
      },
    ]);
    expect(await readFile(join(root, 'notes.md'), 'utf8')).toBe('my notes');
    expect(starts).toEqual([
      { agent: 'Tutor', step: 1, id: 'c1', name: 'material_page', arguments: '{"page": 1}' },
      { agent: 'Tutor', step: 1, id: 'c2', name: 'class_search', arguments: '{"query": "heap"}' },
      {
        agent: 'Tutor',
        step: 1,
        id: 'c3',
        name: 'file_write',
        arguments: '{"path": "notes.md", "content": "gone"}',
      },
    ]);
    expect(
      events.flatMap((event) =>
        event.type === 'tool-call' ? [[event.name, event.ok, event.code]] : [],
      ),
    ).toEqual([
      ['material_page', true, undefined],
      ['class_search', true, undefined],
      ['file_write', false, 'TOOL_POLICY_DENIED'],
    ]);
  });

  test('with strict: true the tools go out strict, and the nulls a strict model sends mean defaults', async () => {
    const server = await fake([
      {
        type: 'tool-calls',
        calls: [{ id: 'c1', name: 'class_search', arguments: '{"query": "heap", "limit": null}' }],
      },
      { type: 'text', content: 'ok' },
    ]);
    await tutor.run('x', {
      baseURL: server.baseURL,
      apiKey: 'k',
      model: 'm',
      strict: true,
      policy: { fs: { root } },
    });
    const offered = server.chatRequests[0]?.body.tools as Array<{
      function: { name: string; strict?: boolean; parameters: { required?: string[] } };
    }>;
    expect(offered.every((tool) => tool.function.strict === true)).toBe(true);
    expect(
      offered.find((tool) => tool.function.name === 'class_search')?.function.parameters.required,
    ).toEqual(['query', 'limit']);
    expect(server.chatRequests[1]?.body.messages?.at(-1)?.content).toBe(
      '{"lines":["[09:02:11] today: heaps","[09:15:40] a heap is a complete binary tree"]}',
    );
  });

  test('a host tool that outlives the time budget ends the run with AGENT_TIME_BUDGET', async () => {
    const slow = defineHostTool({
      name: 'slow_lookup',
      description: 'Takes forever and ignores its signal.',
      inputSchema: z.object({}),
      execute: () => new Promise<string>(() => {}),
    });
    const agent = defineAgent({ name: 'Slow', uses: [], tools: [slow], role: 'r', prompt: 'p' });
    const server = await fake([
      { type: 'tool-calls', calls: [{ id: 'c1', name: 'slow_lookup', arguments: '{}' }] },
    ]);
    await expect(
      agent.run('x', { baseURL: server.baseURL, apiKey: 'k', model: 'm', timeBudgetMs: 500 }),
    ).rejects.toMatchObject({ code: 'AGENT_TIME_BUDGET' });
  });

  test('an unusable host tool is an AGENT_CONFIG error at definition', () => {
    expect(() =>
      defineAgent({
        name: 'Clash',
        uses: [],
        tools: [materialPage, materialPage],
        role: 'r',
        prompt: 'p',
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'AGENT_CONFIG',
        message: expect.stringContaining('two tools are named "material_page"'),
      }),
    );
  });
});
