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
});
