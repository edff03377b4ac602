import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errors } from './schemas.ts';

const NoteInfoSchema = z.object({
  filename: z.string(),
  course_name: z.string().describe('From the file name ("" for 课堂笔记_… notes).'),
  updated_at: z.string().describe('Local time YYYY-MM-DD HH:MM:SS.'),
  updated_at_iso: z.string(),
  size: z.number().describe('Bytes.'),
});

/** GET /api/notes. */
export const NotesListSchema = z.object({
  status: z.literal('success'),
  items: z.array(NoteInfoSchema),
});

export const NotesFilenameParams = z.object({ filename: z.string().min(1).max(300) });

/** GET /api/notes/:filename. */
export const NoteSchema = NoteInfoSchema.extend({
  status: z.literal('success'),
  content: z.string().describe('The notes (Markdown).'),
});

/** GET /api/notes and GET /api/notes/:filename: the post-class notes in data/summaries. */
export const notesRoutes: FastifyPluginAsyncZod = async (app) => {
  const { notes } = app.classAssistant;

  app.get(
    '/api/notes',
    {
      schema: {
        tags: ['ai'],
        summary: 'List post-class notes, newest first',
        description:
          'The Markdown notes in data/summaries, written by /api/generate_summary or after /api/stop_monitor.',
        response: {
          200: NotesListSchema,
          ...errors(),
        },
      },
    },
    async () => ({ status: 'success' as const, items: await notes.list() }),
  );

  app.get(
    '/api/notes/:filename',
    {
      schema: {
        tags: ['ai'],
        summary: 'Read one post-class notes file',
        params: NotesFilenameParams,
        response: {
          200: NoteSchema,
          ...errors(400, 404),
        },
      },
    },
    async (request) => ({
      status: 'success' as const,
      ...(await notes.read(request.params.filename)),
    }),
  );
};
