import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AiCallOptions } from '../llm/class-ai.ts';
import { CATCHUP_WINDOW_MINUTES, RESCUE_WINDOW_MINUTES } from '../monitor/class-record.ts';
import { LLM_ERRORS, STREAM_DESCRIPTION, serveAi } from './ai-serve.ts';
import { ChatTurnSchema } from './schemas.ts';

const RescueSchema = z
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
  })
  .meta({
    examples: [
      {
        status: 'success',
        context: '老师在讲双向链表的删除（资料第 1 页）。',
        question: '删除双向链表的节点要改几个指针？',
        answer: '两个：前驱节点的 next 和后继节点的 prev。',
        format: 'json',
      },
    ],
  });

const RescueChatBodySchema = z
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

const CatchupChatBodySchema = z
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

const AnswerSchema = z.object({ status: z.literal('success'), answer: z.string() });
const CatchupSchema = z.object({ status: z.enum(['success', 'warning']), summary: z.string() });
const NotesSchema = z.object({
  status: z.literal('success'),
  filename: z.string().describe('Under data/summaries.'),
  course_name: z.string(),
  summary: z.string().describe('The notes (Markdown).'),
});

/** Rescue, catch-up, their follow-up chats and notes; each also as a streamed `/stream` route. */
export const aiRoutes: FastifyPluginAsyncZod = async (app) => {
  const services = app.classAssistant;
  const { ai, record, llm, monitor } = services;
  const courseName = () => monitor.status().course_name;

  /** Runs a feature as JSON, or as SSE on the `/stream` variant. */
  const serve = <Result extends object>(
    request: FastifyRequest,
    reply: FastifyReply,
    streamed: boolean,
    run: (options: AiCallOptions) => Promise<Result>,
  ) => serveAi(llm, request, reply, streamed, run);

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
          description: `Reads the last ~${RESCUE_WINDOW_MINUTES} minutes of the transcript (or the last lines) and the class material; the LLM returns the teacher's question, the context and a suggested answer grounded in the material. With no transcript yet: \`status:"warning"\` and placeholder texts (as the original).${streamNote}`,
          ...produces,
          response: { 200: RescueSchema, ...LLM_ERRORS },
        },
      },
      async (request, reply) =>
        serve(request, reply, streamed, async (options) => {
          if (!(await record.hasEntries())) {
            return {
              status: 'warning' as const,
              context: '暂无课堂记录 (no transcript yet)',
              question: '未检测到具体问题 (no question detected)',
              answer: '请注意听老师的问题 (listen to the teacher’s question)',
              format: 'none' as const,
            };
          }
          const context = await record.context(RESCUE_WINDOW_MINUTES, courseName());
          const result = await ai.rescue(context, options);
          return { status: 'success' as const, ...result };
        }),
    );

    app.post(
      `/api/emergency_rescue_chat${suffix}`,
      {
        schema: {
          tags: ['ai'],
          summary: `Rescue follow-up question${streamed ? ' (streamed)' : ''}`,
          description: `Continues from a rescue answer with a follow-up question, using the last ~${CATCHUP_WINDOW_MINUTES} minutes and the material.${streamNote}`,
          body: RescueChatBodySchema,
          ...produces,
          response: { 200: AnswerSchema, ...LLM_ERRORS },
        },
      },
      async (request, reply) =>
        serve(request, reply, streamed, async (options) => {
          const context = await record.context(CATCHUP_WINDOW_MINUTES, courseName());
          const answer = await ai.rescueChat(request.body, context, options);
          return { status: 'success' as const, answer };
        }),
    );

    app.post(
      `/api/catchup${suffix}`,
      {
        schema: {
          tags: ['ai'],
          summary: `Catch-up: where is the teacher now${streamed ? ' (streamed)' : ''}`,
          description: `Summarises the last ~${CATCHUP_WINDOW_MINUTES} minutes with the material: where the teacher is, key points, homework and deadlines (Markdown). With no transcript yet: \`status:"warning"\`.${streamNote}`,
          ...produces,
          response: { 200: CatchupSchema, ...LLM_ERRORS },
        },
      },
      async (request, reply) =>
        serve(request, reply, streamed, async (options) => {
          if (!(await record.hasEntries())) {
            return {
              status: 'warning' as const,
              summary: '暂无课堂记录，请先开始监听。(No transcript yet: start monitoring first.)',
            };
          }
          const context = await record.context(CATCHUP_WINDOW_MINUTES, courseName());
          return { status: 'success' as const, summary: await ai.catchup(context, options) };
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
          description: `A question about the catch-up summary, answered from the transcript and the material.${streamNote}`,
          response: { 200: AnswerSchema, ...LLM_ERRORS },
        },
      },
      async (request, reply) =>
        serve(request, reply, streamed, async (options) => {
          const context = await record.context(CATCHUP_WINDOW_MINUTES, courseName());
          const answer = await ai.catchupChat(request.body, context, options);
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
          response: { 200: NotesSchema, ...LLM_ERRORS },
        },
      },
      async (request, reply) =>
        serve(request, reply, streamed, async (options) => {
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
