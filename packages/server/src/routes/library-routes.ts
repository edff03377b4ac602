import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ServerError } from '../errors.ts';
import { ClassMarkSchema, ClassSourceSchema, lineExtrasShape } from '../events/live-events.ts';
import { localized } from '../language.ts';
import { byteRange } from '../library/class-audio.ts';
import { ClassAlertSchema } from '../library/class-folder.ts';
import { EXPORT_FORMATS } from '../library/export-class.ts';
import { NO_EXTRAS } from '../library/line-extras.ts';
import { localDateTime } from '../material/cite-store.ts';
import { writeNotesFile } from '../monitor/class-record.ts';
import { LLM_ERRORS, STREAM_DESCRIPTION, serveAi } from './ai-serve.ts';
import { errors } from './schemas.ts';

const ClassSummarySchema = z.object({
  id: z
    .string()
    .describe('Class id: local start time and 4 random characters (20261123-101500-k3f9).'),
  course_name: z.string(),
  material_name: z.string(),
  started_at: z.string().describe('ISO 8601.'),
  ended_at: z.string().nullable().describe('ISO 8601; null while the class runs.'),
  line_count: z.number().int(),
  alert_count: z.number().int(),
  has_notes: z.boolean(),
  source: ClassSourceSchema.nullable().describe(
    'The recording the class was transcribed from (its lines’ times are positions in it); null for live audio.',
  ),
  live: z.boolean().describe('True while the class is being monitored (it cannot be deleted).'),
  audio_bytes: z
    .number()
    .int()
    .nullable()
    .describe(
      'Bytes of the class’s kept audio (audio.ogg); null when it kept none. A running class’s size lags up to a few seconds.',
    ),
});

const IndexingSchema = z
  .object({ indexed: z.number().int(), total: z.number().int() })
  .nullable()
  .describe(
    'While the index catches up with the class folders (first start, a rebuilt index): how far it is. Results may miss classes not indexed yet. null when up to date.',
  );

export const ClassIdParams = z.object({
  id: z.string().min(1).max(100).describe('A class id from GET /api/classes.'),
});

const LineSchema = z.object({
  id: z.number().int().describe('The line’s id in its class (its position, 1, 2, …).'),
  timestamp: z.string().describe('HH:MM:SS ("" without one).'),
  text: z.string(),
  ...lineExtrasShape(),
});

const HitSchema = z.object({
  class_id: z.string(),
  course_name: z.string(),
  started_at: z.string(),
  kind: z.enum(['line', 'notes', 'material']),
  line_id: z.number().int().optional().describe('For a line: open the class at this line.'),
  timestamp: z.string().optional(),
  page: z
    .number()
    .int()
    .min(1)
    .nullable()
    .describe(
      'For a line: the page of the class’s material the teacher was on when it was said; null when none (and for notes and material).',
    ),
  snippet: z
    .string()
    .describe('The text around the match, HTML-escaped, each match in <mark>…</mark>.'),
});

export const NotesResultSchema = z.object({
  status: z.literal('success'),
  class_id: z.string(),
  filename: z.string().describe('Under data/summaries (the class folder keeps notes.md too).'),
  course_name: z.string(),
  summary: z.string().describe('The notes (Markdown).'),
});

export const ClassesQuerySchema = z.object({
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  course: z.string().max(200).optional(),
});

/** GET /api/classes. */
export const ClassesSchema = z.object({
  status: z.literal('success'),
  total: z.number().int().describe('Classes in all (of the course, with `course`).'),
  items: z.array(ClassSummarySchema),
  indexing: IndexingSchema,
  audio_bytes_total: z.number().int().describe('Bytes of the kept audio of every class.'),
});

/** GET /api/classes/:id. */
export const ClassSchema = z.object({
  status: z.literal('success'),
  class: ClassSummarySchema.extend({
    history_summary: z.string().describe('The folded history ("" when none).'),
    notes: z.string().nullable().describe('The notes (Markdown), when written.'),
  }),
  lines: z.array(LineSchema),
  alerts: z.array(ClassAlertSchema),
  marks: z.array(ClassMarkSchema).describe('The moments the student marked (★), as marked.'),
});

/** POST /api/marks. */
export const MarkBodySchema = z
  .object({
    line_id: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('The line to mark (default: the newest line of the running class).'),
    note: z.string().max(200).optional().describe('A short note of the student’s.'),
  })
  .optional();

/** POST /api/marks. */
export const MarkAnswerSchema = z.object({
  status: z.literal('success'),
  class_id: z.string(),
  mark: ClassMarkSchema,
});

export const SearchQuerySchema = z.object({
  q: z.string().trim().min(1).max(200).describe('What to look for.'),
  course: z.string().max(200).optional().describe('Only classes of this course.'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** GET /api/search. */
export const SearchSchema = z.object({
  status: z.literal('success'),
  hits: z.array(HitSchema),
  indexing: IndexingSchema,
});

export const ExportQuerySchema = z.object({ format: z.enum(EXPORT_FORMATS).default('md') });

/** GET /api/classes/:id/export: the file's text. */
export const ExportSchema = z.string();

/** GET /api/classes/:id/audio: the class's audio (Ogg Opus), whole or the range asked for. */
export const ClassAudioSchema = z
  .string()
  .describe(
    'Ogg Opus audio bytes (`audio/ogg`): the whole file, or with `Range` the bytes asked for (206).',
  );

/** DELETE /api/classes/:id. */
export const DeleteClassSchema = z.object({
  status: z.literal('success'),
  message: z.string(),
  class_id: z.string(),
});

/** The class library: list, read, search, export, notes and delete. */
export const libraryRoutes: FastifyPluginAsyncZod = async (app) => {
  const services = app.classAssistant;
  const { library } = services;

  app.get(
    '/api/classes',
    {
      schema: {
        tags: ['library'],
        summary: 'List the classes of the library, newest first',
        description:
          'Every class kept in data/classes (one folder per class: transcript.txt, class.json, notes.md, material.txt), newest first, `limit` from `offset`. `course` keeps one course.',
        querystring: ClassesQuerySchema,
        response: {
          200: ClassesSchema,
          ...errors(400, 503),
        },
      },
    },
    async (request) => ({
      status: 'success' as const,
      ...library.list({
        offset: request.query.offset,
        limit: request.query.limit,
        ...(request.query.course === undefined ? {} : { course: request.query.course }),
      }),
    }),
  );

  app.get(
    '/api/classes/:id',
    {
      schema: {
        tags: ['library'],
        summary: 'One class: its lines, alerts, marked moments, history summary and notes',
        description:
          'The running class is answered too (its lines so far). 400 CLASS_ID_INVALID for a malformed id, 404 CLASS_NOT_FOUND.',
        params: ClassIdParams,
        response: {
          200: ClassSchema,
          ...errors(400, 404),
        },
      },
    },
    async (request) => {
      const detail = await library.get(request.params.id);
      return {
        status: 'success' as const,
        class: { ...detail.summary, history_summary: detail.historySummary, notes: detail.notes },
        lines: detail.lines.map((entry) => ({
          id: entry.id,
          timestamp: entry.time ?? '',
          text: entry.text,
          ...(detail.extras.get(entry.id) ?? NO_EXTRAS),
        })),
        alerts: detail.alerts,
        marks: detail.marks,
      };
    },
  );

  app.get(
    '/api/classes/:id/audio',
    {
      schema: {
        tags: ['library'],
        summary: 'Play a class’s kept audio',
        description:
          'The audio the class listened to, kept in its folder as audio.ogg (Ogg Opus, mono) while KEEP_AUDIO is on; a line’s `audio_ms` is where its speech starts in it. Supports `Range: bytes=…` (206 Partial Content, `Accept-Ranges: bytes`; 416 for a range past the end) so that a player seeks to a line without loading the whole class. The running class’s audio is served as far as it is written. 400 CLASS_ID_INVALID, 404 CLASS_NOT_FOUND, 404 CLASS_AUDIO_NOT_FOUND when the class kept none.',
        params: ClassIdParams,
        produces: ['audio/ogg'],
        response: { 200: ClassAudioSchema, 206: ClassAudioSchema, ...errors(400, 404, 416) },
      },
    },
    async (request, reply) => {
      const audio = await library.openAudio(request.params.id);
      const range = byteRange(request.headers.range, audio.size);
      reply.header('accept-ranges', 'bytes').type('audio/ogg').header('cache-control', 'no-cache');
      if (range === 'unsatisfiable') {
        await audio.handle.close();
        reply.header('content-range', `bytes */${audio.size}`);
        throw new ServerError(
          'AUDIO_RANGE_INVALID',
          localized(
            `请求的范围 ${request.headers.range ?? ''} 超出了录音的长度（${audio.size} 字节）。`,
            `The range ${request.headers.range ?? ''} starts past the end of the audio (${audio.size} bytes).`,
          ),
          { field: 'Range' },
        );
      }
      const { start, end } = range === 'full' ? { start: 0, end: audio.size - 1 } : range;
      if (range !== 'full') {
        reply.code(206).header('content-range', `bytes ${start}-${end}/${audio.size}`);
      }
      reply.header('content-length', String(Math.max(0, end - start + 1)));
      if (audio.size === 0) {
        await audio.handle.close();
        return reply.send('');
      }
      // The body is a stream of the file, not a string the schema's serializer would write.
      const raw: FastifyReply = reply;
      return raw.send(audio.handle.createReadStream({ start, end, autoClose: true }));
    },
  );

  app.post(
    '/api/marks',
    {
      schema: {
        tags: ['library'],
        summary: 'Mark the current moment of the running class (★)',
        description:
          'Marks the newest line of the running class (or `line_id`) with the time, and an optional short `note`; kept in the class folder (marks.json, written durably) and listed by GET /api/classes/{id} and at the end of the class’s notes. Marking a line again replaces its mark. Live event `mark.added`. 409 CLASS_NOT_RUNNING without a running class, 409 MARK_NO_LINE before its first line, 400 MARK_LINE_INVALID for a line the class does not have.',
        body: MarkBodySchema,
        response: { 200: MarkAnswerSchema, ...errors(400, 409) },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      const { classId, mark } = await library.mark({
        ...(body.line_id === undefined ? {} : { lineId: body.line_id }),
        ...(body.note === undefined ? {} : { note: body.note }),
      });
      services.hub.publish('mark.added', { class_id: classId, mark });
      return { status: 'success' as const, class_id: classId, mark };
    },
  );

  app.get(
    '/api/search',
    {
      schema: {
        tags: ['library'],
        summary: 'Search every class: lines, notes and material',
        description:
          'Words separated by spaces must all match. Chinese matches any substring of one or more characters (矩阵, 特征值, 矩阵的特征值); other words match by their beginning (`eigen` finds eigenvalue). The best hits first (how often the words occur, how short the text is) among the newest 200 matches. 400 SEARCH_QUERY_INVALID for a query without letters or digits.',
        querystring: SearchQuerySchema,
        response: {
          200: SearchSchema,
          ...errors(400, 503),
        },
      },
    },
    async (request) => {
      const { hits, indexing } = library.search(request.query.q, {
        limit: request.query.limit,
        ...(request.query.course === undefined ? {} : { course: request.query.course }),
      });
      const pages = await library.hitPages(hits);
      return {
        status: 'success' as const,
        hits: hits.map((hit, index) => ({ ...hit, page: pages[index] ?? null })),
        indexing,
      };
    },
  );

  app.get(
    '/api/classes/:id/export',
    {
      schema: {
        tags: ['library'],
        summary: 'Download a class as Markdown, plain text, subtitles or a zip with its audio',
        description:
          '`md`: headings, facts, alerts marked (🔴 roll call, 🟡 attention), the history summary, the transcript (a line’s translation under it) and the notes. `txt`: the transcript file as kept. `srt`: subtitles, times counted from the start of the class (for a class transcribed from a recording: the positions in the recording), a line’s translation as the cue’s second line. `zip`: the Markdown, the SRT, notes.md when written and the kept audio (audio.ogg, as GET /api/classes/:id/audio serves it), with a README.txt naming each file (and saying so when the class kept no audio). Sent as an attachment named after the course and the class.',
        params: ClassIdParams,
        querystring: ExportQuerySchema,
        produces: ['text/markdown', 'text/plain', 'application/x-subrip', 'application/zip'],
        response: { 200: ExportSchema, ...errors(400, 404) },
      },
    },
    async (request, reply) => {
      const file = await library.export(request.params.id, request.query.format);
      const fallback = `class-${request.params.id}.${request.query.format}`;
      reply
        .type(file.contentType)
        .header(
          'content-disposition',
          `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(file.filename)}`,
        );
      if (typeof file.body === 'string') return reply.send(file.body);
      // The zip's bytes, not a string the schema's serializer would write.
      const raw: FastifyReply = reply;
      return raw.send(Buffer.from(file.body.buffer, file.body.byteOffset, file.body.byteLength));
    },
  );

  for (const streamed of [false, true]) {
    const suffix = streamed ? '/stream' : '';
    app.post(
      `/api/classes/:id/notes${suffix}`,
      {
        schema: {
          tags: ['library'],
          summary: `Write notes for a class of the library${streamed ? ' (streamed)' : ''}`,
          description: `Notes of the whole class (history summary, transcript, its material) by the LLM, as /api/generate_summary writes them for the live class; kept as notes.md in the class folder and in data/summaries. 400 CLASS_ID_INVALID, 404 CLASS_NOT_FOUND, 409 TRANSCRIPT_EMPTY for a class without lines.${streamed ? ` ${STREAM_DESCRIPTION}` : ''}`,
          params: ClassIdParams,
          ...(streamed ? { produces: ['text/event-stream'] } : {}),
          response: { 200: NotesResultSchema, ...LLM_ERRORS, ...errors(404) },
        },
      },
      async (request, reply) => {
        const id = request.params.id;
        // A bad id is answered before an LLM is looked for, and before a stream opens.
        const detail = await library.get(id);
        return serveAi(services.llm, request, reply, streamed, async (options) => {
          const notes = await writeNotesFile(
            {
              ai: services.ai,
              notes: services.notes,
              now: services.now,
            },
            {
              document: {
                header: {
                  startedAt: null,
                  courseName: detail.summary.course_name,
                  materialName: detail.summary.material_name,
                  foldedCount: 0,
                },
                summary: detail.historySummary,
                entries: detail.lines,
              },
              courseName: detail.summary.course_name,
              material: detail.material ?? '',
              date: localDateTime(new Date(detail.summary.started_at)).slice(0, 10),
              marks: detail.marks,
              extras: detail.extras,
            },
            options,
          );
          await library.saveNotes(id, notes.summary);
          services.hub.publish('notes.written', {
            filename: notes.filename,
            course_name: notes.course_name,
          });
          return {
            status: 'success' as const,
            class_id: id,
            filename: notes.filename,
            course_name: notes.course_name,
            summary: notes.summary,
          };
        });
      },
    );
  }

  app.delete(
    '/api/classes/:id',
    {
      schema: {
        tags: ['library'],
        summary: 'Delete a class (its folder and its index rows)',
        description:
          '409 CLASS_RUNNING for the class being monitored; 400 CLASS_ID_INVALID, 404 CLASS_NOT_FOUND. The notes in data/summaries and the live transcript file are left as they are.',
        params: ClassIdParams,
        response: {
          200: DeleteClassSchema,
          ...errors(400, 404, 409),
        },
      },
    },
    async (request) => {
      await library.remove(request.params.id);
      return {
        status: 'success' as const,
        message: `Class ${request.params.id} deleted.`,
        class_id: request.params.id,
      };
    },
  );
};
