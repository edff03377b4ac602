import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AGENT_BUDGET_TIMEOUTS, AGENT_MAX_STEPS } from '../agent/agent-constants.ts';
import type { AgentToolCall } from '../agent/class-agent.ts';
import { isClassId } from '../library/class-folder.ts';
import { LLM_ERRORS, serveAi } from './ai-serve.ts';
import { ChatTurnSchema, ErrorSchema, errors } from './schemas.ts';

const ArgumentsSchema = z
  .union([z.record(z.string(), z.unknown()), z.string()])
  .describe(
    'The arguments the model sent: an object, or the text as sent when it was no JSON object.',
  );

export const AskBodySchema = z
  .object({
    question: z.string().trim().min(1).max(4000).describe('The question, in any language.'),
    history: z
      .array(ChatTurnSchema)
      .max(100)
      .default([])
      .describe('The conversation so far (the last 20 turns are used).'),
    class_id: z
      .string()
      .refine(isClassId, 'a class id looks like 20261123-101500-k3f9 (see GET /api/classes)')
      .optional()
      .describe('The class the question is about; default: the current (or last) class.'),
  })
  .meta({
    examples: [{ question: '第 12 页讲了什么？老师是什么时候讲到这里的？', history: [] }],
  });

export const AskAnswerSchema = z
  .object({
    status: z.literal('success'),
    answer: z.string().describe('Markdown; it names the pages and times it used.'),
    tool_calls: z
      .array(z.object({ name: z.string(), arguments: ArgumentsSchema, ok: z.boolean() }))
      .describe('Every lookup behind the answer, in order; `ok: false` for one that failed.'),
  })
  .meta({
    examples: [
      {
        status: 'success',
        answer:
          '第 12 页讲堆的插入：新元素放在最后再上浮，时间复杂度 O(log n)。\n\n依据：第 12 页；[10:31:05]',
        tool_calls: [
          { name: 'material_page', arguments: { page: 12 }, ok: true },
          { name: 'class_search', arguments: { query: '上浮' }, ok: true },
        ],
      },
    ],
  });

/** The events of `POST /api/ask` with `Accept: text/event-stream`, as `{event, data}`. */
export const AskEventSchema = z
  .discriminatedUnion('event', [
    z.object({
      event: z.literal('tool.called'),
      data: z.object({ id: z.string(), name: z.string(), arguments: ArgumentsSchema }),
    }),
    z.object({ event: z.literal('answer.delta'), data: z.object({ text: z.string() }) }),
    z.object({ event: z.literal('answer.done'), data: AskAnswerSchema }),
    z.object({ event: z.literal('error.raised'), data: ErrorSchema }),
  ])
  .meta({
    id: 'AskEvent',
    description:
      'One server-sent event: `event: <event>` and `data: <data as JSON>`. `tool.called` as each lookup starts; `answer.delta` for each piece of the answer (they add up to the answer); then `answer.done` with the JSON answer, or `error.raised`.',
  });

/** `POST /api/ask`: a question about a class, answered by the class agent. */
export const askRoutes: FastifyPluginAsyncZod = async (app) => {
  const { agent, lectures, llm } = app.classAssistant;

  app.post(
    '/api/ask',
    {
      schema: {
        tags: ['ai'],
        summary: 'Ask about a class (the class agent looks things up)',
        description: `Answers a question about the current class, or \`class_id\`, with the class agent: it searches this and earlier classes, reads transcript lines by time, material pages and notes with read-only tools (the class tools, class_files and class_file_read over the class content of the data folder only, and agent-std's std.text, std.regex, std.time, std.math, std.json), and says which pages and times it used. At most ${AGENT_MAX_STEPS} model calls and ${AGENT_BUDGET_TIMEOUTS} times LLM_TIMEOUT per question. With \`Accept: text/event-stream\` the answer streams as server-sent events (\`AskEvent\`); a missing LLM configuration or an unknown class is answered before the stream opens. 404 CLASS_NOT_FOUND.`,
        body: AskBodySchema,
        produces: ['application/json', 'text/event-stream'],
        response: {
          200: {
            description: 'The answer (JSON), or its events (text/event-stream).',
            content: {
              'application/json': { schema: AskAnswerSchema },
              'text/event-stream': { schema: AskEventSchema },
            },
          },
          ...LLM_ERRORS,
          ...errors(404),
        },
      },
    },
    async (request, reply) => {
      const { question, history, class_id: classId } = request.body;
      llm.assertConfigured();
      if (classId !== undefined) {
        const { readClass } = await import('../agent/class-agent.ts');
        await readClass(await lectures(), classId);
      }
      const streamed = /\btext\/event-stream\b/i.test(request.headers.accept ?? '');
      const body = (toolCalls: AgentToolCall[], answer: string) => ({
        status: 'success' as const,
        answer,
        tool_calls: toolCalls.map((call) => ({
          name: call.name,
          arguments: call.arguments,
          ok: call.ok,
        })),
      });
      return serveAi(
        llm,
        request,
        reply,
        streamed,
        async (options) => {
          const result = await agent.ask(
            { question, history, ...(classId === undefined ? {} : { classId }) },
            options,
          );
          return body(result.toolCalls, result.answer);
        },
        { delta: 'answer.delta', end: 'answer.done' },
      );
    },
  );
};
