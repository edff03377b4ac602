import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorMessage, isServerError, ServerError } from '../errors.ts';
import { requestLanguage } from '../language.ts';
import { answerSources } from '../llm/answer-sources.ts';
import { CATCHUP_WINDOW_MINUTES, RESCUE_WINDOW_MINUTES } from '../monitor/class-record.ts';
import { isOriginalClient } from '../security/local-guard.ts';
import { type AiRunOptions, LLM_ERRORS, STREAM_DESCRIPTION, serveAi } from './ai-serve.ts';
import { ChatTurnSchema } from './schemas.ts';

const SourcesSchema = z
  .object({
    from: z
      .string()
      .describe('Time of the first transcript line sent (`HH:MM:SS`; "" without lines).'),
    to: z.string().describe('Time of the last transcript line sent.'),
    lines: z
      .array(
        z.object({
          id: z.number().int().describe('The line id, as in /api/transcript and the live events.'),
          timestamp: z.string(),
          text: z.string(),
        }),
      )
      .describe('The transcript lines the answer was written from, oldest first.'),
    material: z.string().describe('The class material (data/cite file name; "" without one).'),
    pages: z
      .array(z.number().int())
      .describe('The material pages that went into the prompt, ascending.'),
    cited: z
      .array(z.number().int())
      .describe('Rescue: ids of the lines the model named as its basis, the question first.'),
  })
  .describe('What the answer is based on, for the student to check it (added to the original).');

export const RescueSchema = z
  .object({
    status: z
      .enum(['success', 'warning'])
      .describe('`warning`: no transcript yet (placeholder texts).'),
    context: z.string().describe('What the teacher is talking about.'),
    question: z.string().describe("The teacher's question."),
    answer: z.string().describe('A suggested answer, grounded in the class material.'),
    format: z
      .enum(['json', 'text', 'none'])
      .describe('`text`: the model ignored the JSON format; its text is the answer.'),
    sources: SourcesSchema,
  })
  .meta({
    examples: [
      {
        status: 'success',
        context: '老师在讲双向链表的删除（资料第 1 页）。',
        question: '删除双向链表的节点要改几个指针？',
        answer: '两个：前驱节点的 next 和后继节点的 prev。',
        format: 'json',
        sources: {
          from: '10:14:02',
          to: '10:15:30',
          lines: [
            { id: 11, timestamp: '10:14:02', text: '双向链表每个节点还有一个 prev 指针。' },
            {
              id: 12,
              timestamp: '10:15:30',
              text: '请学号尾号是 7 的同学回答一下，删除双向链表的节点要改几个指针？',
            },
          ],
          material: 'slides_20260301_080000.txt',
          pages: [1],
          cited: [12],
        },
      },
    ],
  });

export const RescueChatBodySchema = z
  .object({
    context: z.string().max(20_000).default(''),
    question: z.string().max(20_000).default(''),
    answer: z.string().max(20_000).default(''),
    followup: z.string().min(1).max(20_000).describe('The follow-up question.'),
    history: z.array(ChatTurnSchema).max(100).default([]),
  })
  .meta({
    examples: [
      {
        context: '老师在讲双向链表的删除。',
        question: '删除节点要改几个指针？',
        answer: '两个。',
        followup: '为什么不是四个？',
        history: [],
      },
    ],
  });

export const CatchupChatBodySchema = z
  .object({
    summary: z.string().max(50_000).default(''),
    question: z.string().min(1).max(20_000),
    history: z.array(ChatTurnSchema).max(100).default([]),
  })
  .meta({
    examples: [
      { summary: '### 现在讲到\n循环队列的判满条件。', question: '作业什么时候交？', history: [] },
    ],
  });

export const AnswerSchema = z.object({ status: z.literal('success'), answer: z.string() });
export const CatchupSchema = z.object({
  status: z.enum(['success', 'warning']),
  summary: z.string(),
  sources: SourcesSchema,
});
export const NotesSchema = z.object({
  status: z.literal('success'),
  filename: z.string().describe('Under data/summaries.'),
  course_name: z.string(),
  summary: z.string().describe('The notes (Markdown).'),
});

/**
 * A failure answered to the original desktop client (its Origin): HTTP 200, as the original
 * backend answered, because that client ignores the body of any other status. The reason is in
 * the field it displays (`answer`, `summary`), in the request's language.
 */
const OriginalClientFailureSchema = z.object({
  status: z.literal('error'),
  code: z.string(),
  message: z.string(),
  detail: z.string(),
});

/** The 200 answer of a route: its success, or (original client only) a failure in `shown`. */
function orOriginalFailure<Success extends z.ZodObject>(
  success: Success,
  shown: Record<string, z.ZodString>,
) {
  return z.union([
    success,
    OriginalClientFailureSchema.extend(shown).describe(
      'Only for the original desktop client (Origin tauri://localhost, http://tauri.localhost, http://localhost:1420, http://127.0.0.1:1420): a failure answered with HTTP 200, the reason in the field that client shows.',
    ),
  ]);
}

/** Where the original client shows an answer of each route (its failure reason goes there too). */
const SHOWN_FIELD = {
  rescue: { answer: z.string(), context: z.string(), question: z.string() },
  answer: { answer: z.string() },
  summary: { summary: z.string() },
} as const;

/** POST /api/emergency_rescue: the rescue, or (original client only) its failure. */
export const RescueAnswerSchema = orOriginalFailure(RescueSchema, SHOWN_FIELD.rescue);

/** The follow-up chats: the answer, or (original client only) its failure. */
export const ChatAnswerSchema = orOriginalFailure(AnswerSchema, SHOWN_FIELD.answer);

/** POST /api/catchup: the summary, or (original client only) its failure. */
export const CatchupAnswerSchema = orOriginalFailure(CatchupSchema, SHOWN_FIELD.summary);

/** POST /api/generate_summary: the notes, or (original client only) its failure. */
export const NotesAnswerSchema = orOriginalFailure(NotesSchema, SHOWN_FIELD.summary);

/** Rescue, catch-up, their follow-up chats and notes; each also as a streamed `/stream` route. */
export const aiRoutes: FastifyPluginAsyncZod = async (app) => {
  const services = app.classAssistant;
  const { ai, agent, record, llm, monitor } = services;
  const courseName = () => monitor.status().course_name;
  const noSources = () =>
    answerSources({ lines: [] }, { material: monitor.status().cite_filename, pages: [] });

  /**
   * Runs a feature as JSON, or as SSE on the `/stream` variant. For the original client a
   * failure of the JSON variant is an HTTP 200 answer with the reason in the `shown` fields.
   */
  const serve = async <Result extends object>(
    request: FastifyRequest,
    reply: FastifyReply,
    streamed: boolean,
    shown: keyof typeof SHOWN_FIELD,
    run: (options: AiRunOptions) => Promise<Result>,
  ): Promise<Result | Record<string, string> | undefined> => {
    if (!streamed && isOriginalClient(request)) {
      try {
        llm.assertConfigured();
        return await run({});
      } catch (error) {
        if (!isServerError(error)) request.log.error({ err: error }, 'AI request failed');
        const known = isServerError(error)
          ? error
          : new ServerError('INTERNAL_ERROR', 'Internal error; the server log has the details.');
        const language = requestLanguage(request);
        const message = errorMessage(known, language);
        request.log.info({ code: known.code }, known.message);
        const fields = Object.fromEntries(
          Object.keys(SHOWN_FIELD[shown]).map((field, index) => [
            field,
            index === 0 ? message : '',
          ]),
        );
        return { status: 'error', code: known.code, message, detail: message, ...fields };
      }
    }
    return serveAi(llm, request, reply, streamed, run);
  };

  for (const streamed of [false, true]) {
    const suffix = streamed ? '/stream' : '';
    const produces = streamed ? { produces: ['text/event-stream'] } : {};
    const streamNote = streamed ? ` ${STREAM_DESCRIPTION}` : '';

    app.post(
      `/api/emergency_rescue${suffix}`,
      {
        schema: {
          tags: ['ai'],
          summary: `Rescue: what was just asked and how to answer${streamed ? ' (streamed)' : ''}`,
          description: `Reads the last ~${RESCUE_WINDOW_MINUTES} minutes of the transcript (or the last lines) and the class material; the LLM returns the teacher's question, the context and a suggested answer grounded in the material. \`sources\` lists the transcript lines sent (ids, times), the lines the model named as its basis and the material pages sent. With no transcript yet: \`status:"warning"\` and placeholder texts (as the original).${streamNote}`,
          ...produces,
          response: { 200: RescueAnswerSchema, ...LLM_ERRORS },
        },
      },
      async (request, reply) =>
        serve(request, reply, streamed, 'rescue', async (options) => {
          if (!(await record.hasEntries())) {
            return {
              status: 'warning' as const,
              context: '暂无课堂记录 (no transcript yet)',
              question: '未检测到具体问题 (no question detected)',
              answer: '请注意听老师的问题 (listen to the teacher’s question)',
              format: 'none' as const,
              sources: noSources(),
            };
          }
          const context = await record.context(RESCUE_WINDOW_MINUTES, courseName());
          const { cited, pages, ...result } = await ai.rescue(context, options);
          return {
            status: 'success' as const,
            ...result,
            sources: answerSources(context, { material: context.materialName, pages, cited }),
          };
        }),
    );

    app.post(
      `/api/emergency_rescue_chat${suffix}`,
      {
        schema: {
          tags: ['ai'],
          summary: `Rescue follow-up question${streamed ? ' (streamed)' : ''}`,
          description: `Continues from a rescue answer with a follow-up question, using the last ~${CATCHUP_WINDOW_MINUTES} minutes and the material; the class agent looks up what else it needs (material pages, earlier lines, other classes) with its read-only tools, as /api/ask does.${streamNote}`,
          body: RescueChatBodySchema,
          ...produces,
          response: { 200: ChatAnswerSchema, ...LLM_ERRORS },
        },
      },
      async (request, reply) =>
        serve(request, reply, streamed, 'answer', async (options) => {
          const context = await record.context(CATCHUP_WINDOW_MINUTES, courseName());
          const messages = await ai.rescueChatMessages(request.body, context);
          const { answer } = await agent.answer(messages, 'rescue follow-up', options);
          return { status: 'success' as const, answer };
        }),
    );

    app.post(
      `/api/catchup${suffix}`,
      {
        schema: {
          tags: ['ai'],
          summary: `Catch-up: where is the teacher now${streamed ? ' (streamed)' : ''}`,
          description: `Summarises the last ~${CATCHUP_WINDOW_MINUTES} minutes with the material: where the teacher is, key points, homework and deadlines (Markdown). \`sources\` says the span covered (\`from\`–\`to\`), the lines and the material pages sent. With no transcript yet: \`status:"warning"\`.${streamNote}`,
          ...produces,
          response: { 200: CatchupAnswerSchema, ...LLM_ERRORS },
        },
      },
      async (request, reply) =>
        serve(request, reply, streamed, 'summary', async (options) => {
          if (!(await record.hasEntries())) {
            return {
              status: 'warning' as const,
              summary: '暂无课堂记录，请先开始监听。(No transcript yet: start monitoring first.)',
              sources: noSources(),
            };
          }
          const context = await record.context(CATCHUP_WINDOW_MINUTES, courseName());
          const { summary, pages } = await ai.catchup(context, options);
          return {
            status: 'success' as const,
            summary,
            sources: answerSources(context, { material: context.materialName, pages }),
          };
        }),
    );

    app.post(
      `/api/catchup_chat${suffix}`,
      {
        schema: {
          tags: ['ai'],
          summary: `Catch-up follow-up question${streamed ? ' (streamed)' : ''}`,
          body: CatchupChatBodySchema,
          ...produces,
          description: `A question about the catch-up summary, answered from the transcript and the material; the class agent looks up what else it needs with its read-only tools, as /api/ask does.${streamNote}`,
          response: { 200: ChatAnswerSchema, ...LLM_ERRORS },
        },
      },
      async (request, reply) =>
        serve(request, reply, streamed, 'answer', async (options) => {
          const context = await record.context(CATCHUP_WINDOW_MINUTES, courseName());
          const messages = await ai.catchupChatMessages(request.body, context);
          const { answer } = await agent.answer(messages, 'catch-up follow-up', options);
          return { status: 'success' as const, answer };
        }),
    );

    app.post(
      `/api/generate_summary${suffix}`,
      {
        schema: {
          tags: ['ai'],
          summary: `Write post-class notes${streamed ? ' (streamed)' : ''}`,
          description: `Structured Markdown notes of the whole class (history summary and transcript) with the material, written to data/summaries/{course}_{YYYYMMDD}_{HHMMSS}.md. 409 TRANSCRIPT_EMPTY without a transcript; LLM failures write no file.${streamNote}`,
          ...produces,
          response: { 200: NotesAnswerSchema, ...LLM_ERRORS },
        },
      },
      async (request, reply) =>
        serve(request, reply, streamed, 'summary', async (options) => {
          const notes = await record.writeNotes(courseName(), options);
          services.hub.publish('notes.written', {
            filename: notes.filename,
            course_name: notes.course_name,
          });
          return {
            status: 'success' as const,
            filename: notes.filename,
            course_name: notes.course_name,
            summary: notes.summary,
          };
        }),
    );
  }
};
