import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { type AgentEvent, defineAgent, isAgentError } from './agent.ts';
import {
  createFakeOpenAIServer,
  type FakeOpenAIServer,
  type FakeOpenAIServerOptions,
} from './testing/fake-openai-server.ts';

const servers: FakeOpenAIServer[] = [];
let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agent-std-agent-'));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await rm(root, { recursive: true, force: true });
});

async function fake(chat: NonNullable<FakeOpenAIServerOptions['chat']>, apiKey?: string) {
  const server = await createFakeOpenAIServer({ chat, ...(apiKey ? { apiKey } : {}) });
  servers.push(server);
  return server;
}

/** A chat completion whose assistant message carries `toolCalls` verbatim. */
function completionWithToolCalls(toolCalls: unknown): string {
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'fake-model',
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        message: { role: 'assistant', content: null, tool_calls: toolCalls },
      },
    ],
  });
}

const calculator = defineAgent({
  name: 'Calculator',
  uses: ['std.math', 'std.text'],
  role: 'a careful calculator',
  prompt: 'Use math_calc for arithmetic.',
});

const options = (server: FakeOpenAIServer, extra: Parameters<typeof calculator.run>[1] = {}) => ({
  baseURL: server.baseURL,
  apiKey: 'test-key',
  model: 'fake-model',
  maxRetries: 0,
  policy: { fs: { root } },
  ...extra,
});

describe('defineAgent(...).run', () => {
  test('sends its model requests through the fetch it is given', async () => {
    const server = await fake([{ type: 'text', content: 'Hello!' }]);
    const sent: string[] = [];
    const counting: typeof fetch = (input, init) => {
      sent.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    };
    const result = await calculator.run('Say hello', options(server, { fetch: counting }));
    expect(result.text).toBe('Hello!');
    expect(sent).toEqual([`${server.baseURL}/chat/completions`]);
  });

  test('sends role, prompt, instruction and only the declared tools; returns the answer', async () => {
    const server = await fake([{ type: 'text', content: 'Hello!' }]);
    const result = await calculator.run('Say hello', options(server));
    expect(result).toMatchObject({ text: 'Hello!', steps: 1, toolCalls: [], finishReason: 'stop' });
    const request = server.chatRequests[0];
    expect(request?.headers.authorization).toBe('Bearer test-key');
    expect(request?.body.model).toBe('fake-model');
    expect(request?.body.messages).toEqual([
      { role: 'system', content: 'Role: a careful calculator\n\nUse math_calc for arithmetic.' },
      { role: 'user', content: 'Say hello' },
    ]);
    const tools = request?.body.tools as Array<{ function: { name: string; parameters: unknown } }>;
    expect(tools.map((tool) => tool.function.name)).toEqual([
      'math_calc',
      'math_random',
      'text_split',
      'text_replace',
      'text_upper',
      'text_lower',
    ]);
    expect(tools[0]?.function.parameters).toMatchObject({
      type: 'object',
      required: ['expression'],
      additionalProperties: false,
    });
  });

  test('runs the tool-calling loop and feeds results back', async () => {
    const server = await fake([
      {
        type: 'tool-calls',
        calls: [{ id: 'call_1', name: 'math_calc', arguments: '{"expression":"6*7"}' }],
      },
      { type: 'text', content: 'The answer is 42.' },
    ]);
    const events: AgentEvent[] = [];
    const result = await calculator.run(
      'What is 6 times 7?',
      options(server, { onEvent: (e) => events.push(e) }),
    );
    expect(result.text).toBe('The answer is 42.');
    expect(result.steps).toBe(2);
    expect(result.toolCalls).toEqual([
      {
        step: 1,
        id: 'call_1',
        name: 'math_calc',
        arguments: '{"expression":"6*7"}',
        ok: true,
        content: '{"result":42,"expression":"6*7","exact":true}',
      },
    ]);
    const second = server.chatRequests[1]?.body.messages ?? [];
    expect(second.at(-2)).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_1' }] });
    expect(second.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: '{"result":42,"expression":"6*7","exact":true}',
    });
    expect(events.map((event) => event.type)).toEqual([
      'model-call',
      'tool-call',
      'model-call',
      'answer',
    ]);
  });

  test('forged undeclared tools, invented tools and malformed JSON are answered as errors and never run', async () => {
    const server = await fake([
      {
        type: 'tool-calls',
        calls: [
          { id: 'a', name: 'file_write', arguments: '{"path":"pwned.txt","content":"x"}' },
          { id: 'b', name: 'shell_exec', arguments: '{"command":"touch pwned2.txt"}' },
          { id: 'c', name: 'math_calc', arguments: '{"expression": "1+' },
          { id: 'd', name: 'launch_missiles', arguments: '{}' },
          { id: 'e', name: 'math_calc', arguments: '{"expression":"1+1"}' },
        ],
      },
      { type: 'text', content: 'done' },
    ]);
    const result = await calculator.run('Do things', options(server));
    expect(result.text).toBe('done');
    expect(result.toolCalls.map((call) => [call.id, call.ok, call.code])).toEqual([
      ['a', false, 'TOOL_NOT_DECLARED'],
      ['b', false, 'TOOL_NOT_DECLARED'],
      ['c', false, 'TOOL_BAD_INPUT'],
      ['d', false, 'TOOL_UNKNOWN'],
      ['e', true, undefined],
    ]);
    const toolMessages = (server.chatRequests[1]?.body.messages ?? []).filter(
      (m) => m.role === 'tool',
    );
    expect(toolMessages.map((m) => m.content)).toEqual([
      expect.stringMatching(/^Error \[TOOL_NOT_DECLARED\] file_write: it belongs to std\.fs/),
      expect.stringMatching(/^Error \[TOOL_NOT_DECLARED\] shell_exec/),
      expect.stringMatching(
        /^Error \[TOOL_BAD_INPUT\] math_calc: the arguments are not valid JSON/,
      ),
      expect.stringMatching(/^Error \[TOOL_UNKNOWN\] launch_missiles/),
      '{"result":2,"expression":"1+1","exact":true}',
    ]);
    expect(await readdir(root)).toEqual([]);
  });

  test('a model that keeps calling tools stops at the step limit with what it did', async () => {
    const server = await fake(() => ({
      type: 'tool-calls',
      calls: [{ name: 'math_calc', arguments: '{"expression":"1+1"}' }],
    }));
    const failure = await calculator
      .run('Loop', options(server, { maxSteps: 3 }))
      .catch((e: unknown) => e);
    expect(isAgentError(failure)).toBe(true);
    expect(failure).toMatchObject({ code: 'AGENT_STEP_LIMIT', agent: 'Calculator' });
    expect((failure as { partial: { toolCalls: unknown[] } }).partial.toolCalls).toHaveLength(3);
    expect(server.chatRequests).toHaveLength(3);
  });

  test('the time budget ends a hanging model call', async () => {
    const server = await fake([{ type: 'hang' }]);
    await expect(
      calculator.run('Wait', options(server, { timeBudgetMs: 300 })),
    ).rejects.toMatchObject({ code: 'AGENT_TIME_BUDGET' });
  });

  test('an AbortSignal ends the run, also in the middle of a tool call', async () => {
    const server = await fake([{ type: 'hang' }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(
      calculator.run('Wait', options(server, { signal: controller.signal })),
    ).rejects.toMatchObject({ code: 'AGENT_ABORTED' });

    const sleeper = defineAgent({ name: 'Sleeper', uses: ['std.time'], role: 'r', prompt: 'p' });
    const sleepy = await fake([
      { type: 'tool-calls', calls: [{ name: 'time_sleep', arguments: '{"seconds":50}' }] },
      { type: 'text', content: 'never' },
    ]);
    const second = new AbortController();
    setTimeout(() => second.abort(), 200);
    const started = Date.now();
    await expect(
      sleeper.run('Sleep', options(sleepy, { signal: second.signal })),
    ).rejects.toMatchObject({
      code: 'AGENT_ABORTED',
      partial: { toolCalls: [{ code: 'TOOL_ABORTED' }] },
    });
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  test('tool calls without `type` or `arguments` (lenient servers) run; the history sent back is complete', async () => {
    const server = await fake([
      {
        type: 'malformed',
        body: completionWithToolCalls([
          { id: 'c1', function: { name: 'text_upper', arguments: '{"text":"quiet"}' } },
          { id: 'c2', type: 'function', function: { name: 'math_calc' } },
          { id: 'c3', function: { arguments: '{}' } },
        ]),
      },
      { type: 'text', content: 'done' },
    ]);
    const result = await calculator.run('x', options(server));
    expect(result.text).toBe('done');
    expect(result.toolCalls.map(({ id, name, ok, code }) => [id, name, ok, code])).toEqual([
      ['c1', 'text_upper', true, undefined],
      ['c2', 'math_calc', false, 'TOOL_BAD_INPUT'],
      ['c3', '', false, 'TOOL_BAD_INPUT'],
    ]);
    // c2 ran with {} and was told what is missing.
    expect(result.toolCalls[1]?.content).toMatch(/expression/);
    const sent = server.chatRequests[1]?.body.messages ?? [];
    const assistant = sent.find((message) => message.role === 'assistant') as {
      tool_calls?: unknown[];
    };
    expect(assistant.tool_calls).toEqual([
      {
        id: 'c1',
        type: 'function',
        function: { name: 'text_upper', arguments: '{"text":"quiet"}' },
      },
      { id: 'c2', type: 'function', function: { name: 'math_calc', arguments: '{}' } },
      { id: 'c3', type: 'function', function: { name: '', arguments: '{}' } },
    ]);
  });

  test('tool calls that cannot be answered at all are AGENT_LLM_FAILED, not a TypeError', async () => {
    const server = await fake([
      { type: 'malformed', body: completionWithToolCalls({ id: 'c1' }) },
      {
        type: 'malformed',
        body: completionWithToolCalls([{ function: { name: 'text_upper', arguments: '{}' } }]),
      },
      { type: 'malformed', body: completionWithToolCalls([null]) },
    ]);
    for (const problem of [/tool_calls is not a list/, /no id/, /no id/]) {
      const failure = await calculator.run('x', options(server)).catch((error: unknown) => error);
      expect(isAgentError(failure), String(failure)).toBe(true);
      expect(failure).toMatchObject({
        code: 'AGENT_LLM_FAILED',
        message: expect.stringMatching(problem),
      });
    }
  });

  test('endpoint failures are AGENT_LLM_FAILED with the status', async () => {
    const server = await fake([
      { type: 'error', status: 500, message: 'model crashed' },
      { type: 'malformed', body: '<html>502 Bad Gateway</html>' },
      { type: 'malformed', body: '{"object":"chat.completion","choices":[]}' },
      { type: 'disconnect' },
    ]);
    await expect(calculator.run('x', options(server))).rejects.toMatchObject({
      code: 'AGENT_LLM_FAILED',
      status: 500,
      message: expect.stringContaining('model crashed'),
    });
    for (let index = 0; index < 3; index++) {
      await expect(calculator.run('x', options(server))).rejects.toMatchObject({
        code: 'AGENT_LLM_FAILED',
      });
    }
  });

  test('a wrong API key is reported with HTTP 401', async () => {
    const server = await fake([{ type: 'text', content: 'secret' }], 'right-key');
    await expect(calculator.run('x', options(server))).rejects.toMatchObject({
      code: 'AGENT_LLM_FAILED',
      status: 401,
    });
  });

  test('configuration problems are AGENT_CONFIG', async () => {
    const server = await fake([]);
    const { model: _model, ...withoutModel } = options(server);
    await expect(calculator.run('x', withoutModel)).rejects.toMatchObject({ code: 'AGENT_CONFIG' });
    expect(() =>
      defineAgent({ name: 'Bad', uses: ['std.nope' as 'std.fs'], role: 'r', prompt: 'p' }),
    ).toThrow(
      expect.objectContaining({
        code: 'AGENT_CONFIG',
        message: expect.stringContaining('std.nope'),
      }),
    );
    expect(() => defineAgent({ name: '', uses: [], role: 'r', prompt: 'p' })).toThrow(
      expect.objectContaining({ code: 'AGENT_CONFIG' }),
    );
  });

  test("the agent's own model wins over the run option", async () => {
    const server = await fake([{ type: 'text', content: 'ok' }]);
    const pinned = defineAgent({
      name: 'Pinned',
      uses: [],
      role: 'r',
      prompt: 'p',
      model: 'gpt-pinned',
    });
    await pinned.run('x', options(server));
    expect(server.chatRequests[0]?.body.model).toBe('gpt-pinned');
    expect(server.chatRequests[0]?.body.tools).toBeUndefined();
  });

  test('temperature and maxTokens are sent; history continues an earlier conversation', async () => {
    const server = await fake([
      { type: 'text', content: 'first answer' },
      { type: 'text', content: 'second answer' },
    ]);
    const first = await calculator.run('one', options(server));
    await calculator.run(
      'two',
      options(server, { temperature: 0.3, maxTokens: 40, history: first.messages.slice(1) }),
    );
    expect(server.chatRequests[0]?.body).not.toHaveProperty('temperature');
    expect(server.chatRequests[0]?.body).not.toHaveProperty('max_tokens');
    expect(server.chatRequests[1]?.body).toMatchObject({ temperature: 0.3, max_tokens: 40 });
    expect(server.chatRequests[1]?.body.messages?.map((message) => message.content)).toEqual([
      'Role: a careful calculator\n\nUse math_calc for arithmetic.',
      'one',
      'first answer',
      'two',
    ]);
  });
});
