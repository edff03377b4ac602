// With LLM_API_KEY (and LLM_BASE_URL, LLM_MODEL for endpoints other than OpenAI) this asks a real
// model; without a key it runs offline against the package's fake OpenAI-compatible server.
import { defineHostTool } from '@class-assistant/agent-std';
import { defineAgent } from '@class-assistant/agent-std/agent';
import { createFakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { z } from 'zod';

const transcript = [
  '[09:02:11] Today: priority queues.',
  '[09:15:40] A heap is a complete binary tree; the smallest key sits on top.',
  '[09:31:05] Inserting into a heap takes logarithmic time.',
];

const classSearch = defineHostTool({
  name: 'class_search',
  title: 'Search the class',
  description: 'Lines of the class transcript that contain the query, with their times.',
  inputSchema: z.object({
    query: z.string().min(1).describe('A word or phrase to look for.'),
    limit: z.number().int().min(1).max(20).default(5),
  }),
  outputSchema: z.object({ lines: z.array(z.string()) }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  execute: async ({ query, limit }) => ({
    lines: transcript
      .filter((line) => line.toLowerCase().includes(query.toLowerCase()))
      .slice(0, limit),
  }),
});

const Tutor = defineAgent({
  name: 'Tutor',
  uses: ['std.time'],
  tools: [classSearch],
  role: 'a tutor who knows this class',
  prompt: 'Answer from the transcript. Search it first; say at what time the teacher said it.',
});

const offline = process.env.LLM_API_KEY === undefined;
// Offline, the "model" searches for "heap", then answers from the first line found.
const fake = offline
  ? await createFakeOpenAIServer({
      chat: ({ body }) => {
        const last = body.messages?.at(-1);
        if (last?.role !== 'tool') {
          return {
            type: 'tool-calls',
            calls: [{ name: 'class_search', arguments: '{"query": "heap", "limit": null}' }],
          };
        }
        const [first] = JSON.parse(String(last.content)).lines as string[];
        return { type: 'text', content: `The teacher first mentioned heaps at ${first}` };
      },
    })
  : undefined;

const { text, steps, toolCalls } = await Tutor.run('When did the teacher first mention heaps?', {
  baseURL: fake?.baseURL ?? process.env.LLM_BASE_URL,
  apiKey: process.env.LLM_API_KEY ?? 'offline',
  model: process.env.LLM_MODEL ?? 'gpt-4o-mini',
  strict: true,
  maxSteps: 8,
  timeBudgetMs: 60_000,
  onToolStart: (call) => console.log(`… ${call.name} ${call.arguments}`),
});
console.log(text);
// (offline) The teacher first mentioned heaps at [09:15:40] A heap is a complete binary tree; the
// smallest key sits on top.
console.log(`${steps} model calls, tools: ${toolCalls.map((call) => call.name).join(', ')}`);
// (offline) 2 model calls, tools: class_search
await fake?.close();
