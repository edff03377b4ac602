import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ServerError } from '../errors.ts';
import { displayName, isPlainFileName } from '../files.ts';
import { localized } from '../language.ts';
import { localDateTime } from '../material/cite-store.ts';
import { parseNotesFilename } from '../monitor/class-record.ts';
import { readContainedText } from '../security/contained-file.ts';
import { errors } from './schemas.ts';

export const NoteInfoSchema = z.object({
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
  const folder = join(app.classAssistant.dataDir, 'summaries');

  const existingNotesPath = async (filename: string) => {
    const shown = displayName(filename);
    if (!isPlainFileName(filename, '.md')) {
      throw new ServerError(
        'NOTES_FILENAME_INVALID',
        localized(
          `"${shown}" 不是笔记文件名（应为 /api/notes 列出的 .md 文件名）。`,
          `"${shown}" is not the name of a notes file (a plain .md name from /api/notes).`,
        ),
        { field: 'filename' },
      );
    }
    const path = join(folder, filename);
    try {
      const info = await stat(path);
      if (info.isFile()) return { path, info };
    } catch {
      // Reported below.
    }
    throw new ServerError(
      'NOTES_NOT_FOUND',
      localized(
        `data/summaries 中没有名为 "${shown}" 的笔记，请在 /api/notes 的列表中选择。`,
        `No notes named "${shown}" in data/summaries. See /api/notes for the list.`,
      ),
      { field: 'filename' },
    );
  };

  const describe = (filename: string, info: { mtime: Date; size: number }) => ({
    filename,
    course_name: parseNotesFilename(filename).courseName,
    updated_at: localDateTime(info.mtime),
    updated_at_iso: info.mtime.toISOString(),
    size: info.size,
  });

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
    async () => {
      let names: string[];
      try {
        names = await readdir(folder);
      } catch {
        names = [];
      }
      const items = [];
      for (const name of names.filter((entry) => entry.toLowerCase().endsWith('.md'))) {
        try {
          const info = await stat(join(folder, name));
          if (info.isFile()) items.push(describe(name, info));
        } catch {
          // Deleted in between.
        }
      }
      items.sort(
        (a, b) =>
          b.updated_at_iso.localeCompare(a.updated_at_iso) || b.filename.localeCompare(a.filename),
      );
      return { status: 'success' as const, items };
    },
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
    async (request) => {
      const { info } = await existingNotesPath(request.params.filename);
      // Not through a link: one placed in summaries/ could lead to the settings file.
      const content =
        (await readContainedText(app.classAssistant.dataDir, [
          'summaries',
          request.params.filename,
        ])) ?? '';
      return { status: 'success' as const, ...describe(request.params.filename, info), content };
    },
  );
};
