// With LLM_API_KEY (and LLM_BASE_URL, LLM_MODEL for endpoints other than OpenAI) this asks a real
// model; without a key it runs offline against the package's fake OpenAI-compatible server.
import { createToolbox } from '@class-assistant/agent-std';
import { runOpenAIToolCalls, toOpenAITools } from '@class-assistant/agent-std/openai';
import { createFakeOpenAIServer } from '@class-assistant/agent-std/testing';
import OpenAI from 'openai';

const offline = process.env.LLM_API_KEY === undefined;
// Offline, the "model" calls time_diff, then answers from the tool's result.
const fake = offline
  ? await createFakeOpenAIServer({
      chat: ({ body }) => {
        const last = body.messages?.at(-1);
        if (last?.role !== 'tool') {
          const args = { start: '2024-05-01T08:00', end: '2024-05-03T20:00', unit: 'hours' };
          return {
            type: 'tool-calls',
            calls: [{ name: 'time_diff', arguments: JSON.stringify(args) }],
          };
        }
        return { type: 'text', content: `${JSON.parse(String(last.content)).value} hours.` };
      },
    })
  : undefined;

const openai = new OpenAI({
  baseURL: fake?.baseURL ?? process.env.LLM_BASE_URL,
  apiKey: process.env.LLM_API_KEY ?? 'offline',
});
const toolbox = createToolbox({ uses: ['std.time', 'std.math'] });
const messages: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'user', content: 'How many hours between 2024-05-01T08:00 and 2024-05-03T20:00?' },
];
for (let step = 0; step < 10; step++) {
  const completion = await openai.chat.completions.create({
    model: process.env.LLM_MODEL ?? 'gpt-4o-mini',
    messages,
    tools: toOpenAITools(toolbox, { strict: true }),
  });
  const message = completion.choices[0]?.message;
  if (!message) break;
  messages.push(message);
  if (!message.tool_calls?.length) {
    console.log(message.content); // 60 hours.
    break;
  }
  for (const { message: reply } of await runOpenAIToolCalls(toolbox, message.tool_calls)) {
    messages.push(reply);
  }
}
await fake?.close();
