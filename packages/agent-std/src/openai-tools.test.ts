import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, test } from 'vitest';
import { runOpenAIToolCalls, toOpenAITools } from './openai-tools.ts';
import { createFakeOpenAIServer, type FakeOpenAIServer } from './testing/fake-openai-server.ts';
import { createToolbox } from './toolbox.ts';

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('OpenAI function-calling adapter', () => {
  test('definitions: name, model-facing description, JSON Schema from zod', () => {
    const [split] = toOpenAITools(createToolbox({ uses: ['std.text'] }).tools);
    expect(split).toEqual({
      type: 'function',
      function: {
        name: 'text_split',
        description: expect.stringContaining('Split text on a delimiter'),
        parameters: {
          type: 'object',
          properties: {
            text: { type: 'string', description: 'The text to split.' },
            delimiter: { type: 'string', default: '\n', description: expect.any(String) },
            max_splits: {
              type: 'integer',
              default: -1,
              minimum: -1,
              maximum: Number.MAX_SAFE_INTEGER,
              description: expect.any(String),
            },
          },
          required: ['text'],
          additionalProperties: false,
        },
      },
    });
  });

  test('a hand-written loop with the openai SDK: run the tool calls, send the results back', async () => {
    server = await createFakeOpenAIServer({
      chat: [
        {
          type: 'tool-calls',
          calls: [
            { id: 'c1', name: 'text_upper', arguments: '{"text":"quiet"}' },
            { id: 'c2', name: 'file_read', arguments: '{"path":"/etc/passwd"}' },
          ],
        },
        { type: 'text', content: 'QUIET' },
      ],
    });
    const openai = new OpenAI({ baseURL: server.baseURL, apiKey: 'k', maxRetries: 0 });
    const toolbox = createToolbox({ uses: ['std.text'] });
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Shout "quiet"' }];
    const first = await openai.chat.completions.create({
      model: 'm',
      messages,
      tools: toOpenAITools(toolbox.tools),
    });
    const message = first.choices[0]?.message;
    if (!message) throw new Error('no message');
    messages.push(message);
    const outcomes = await runOpenAIToolCalls(toolbox, message.tool_calls ?? []);
    for (const { message: reply } of outcomes) messages.push(reply);
    expect(outcomes.map(({ message: reply }) => reply)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'QUIET' },
      {
        role: 'tool',
        tool_call_id: 'c2',
        content: expect.stringMatching(/^Error \[TOOL_NOT_DECLARED\] file_read/),
      },
    ]);
    const second = await openai.chat.completions.create({ model: 'm', messages });
    expect(second.choices[0]?.message.content).toBe('QUIET');
    expect(server.chatRequests[1]?.body.messages?.slice(-2).map((m) => m.role)).toEqual([
      'tool',
      'tool',
    ]);
  });

  test('tool calls of lenient servers: no `type`, no `arguments`, object arguments', async () => {
    const toolbox = createToolbox({ uses: ['std.text', 'std.time'] });
    const calls = [
      { id: 'a', function: { name: 'text_upper', arguments: '{"text":"quiet"}' } },
      { id: 'b', type: 'function', function: { name: 'time_timestamp' } },
      { id: 'c', function: { name: 'text_upper', arguments: { text: 'object' } } },
    ];
    const outcomes = await runOpenAIToolCalls(toolbox, calls as never);
    expect(outcomes.map(({ outcome, name, arguments: args }) => [name, outcome.ok, args])).toEqual([
      ['text_upper', true, '{"text":"quiet"}'],
      ['time_timestamp', true, ''],
      ['text_upper', true, '{"text":"object"}'],
    ]);
    expect(outcomes[0]?.message).toEqual({ role: 'tool', tool_call_id: 'a', content: 'QUIET' });
    expect(outcomes[2]?.message.content).toBe('OBJECT');
    // The call as it belongs in the conversation history: a complete function call.
    expect(outcomes[1]?.call).toEqual({
      id: 'b',
      type: 'function',
      function: { name: 'time_timestamp', arguments: '{}' },
    });
  });

  test('unusable tool calls are answered with an error message, never a TypeError', async () => {
    const toolbox = createToolbox({ uses: ['std.text'] });
    const calls = [
      { id: 'a', type: 'function', function: { arguments: '{}' } },
      { id: 'b' },
      { id: 'c', type: 'custom', custom: { name: 'grammar_tool', input: 'x' } },
      { id: 'd', type: 'custom' },
      { id: 'e', function: { name: 'text_upper', arguments: 42 } },
      null,
    ];
    const outcomes = await runOpenAIToolCalls(toolbox, calls as never);
    expect(outcomes.map(({ outcome }) => outcome.ok)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(outcomes.map(({ outcome }) => (outcome.ok ? '' : outcome.error.code))).toEqual([
      'TOOL_BAD_INPUT',
      'TOOL_BAD_INPUT',
      'TOOL_UNKNOWN',
      'TOOL_UNKNOWN',
      'TOOL_BAD_INPUT',
      'TOOL_BAD_INPUT',
    ]);
    expect(outcomes[0]?.message.content).toMatch(/no function name/);
    expect(outcomes[2]?.message.content).toMatch(/custom tool calls are not supported/);
    expect(outcomes.map(({ message }) => message.tool_call_id)).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
      '',
    ]);
  });
});
