// The zod schemas of the import routes (POST /api/import, GET /api/import, POST
// /api/import/cancel, POST /api/import/resume): the routes validate and answer with them and the
// REST contract points at them, so the UI's typed client reads the same shapes.
import { z } from 'zod';
import { ImportStatusSchema } from '../events/live-events.ts';

/**
 * The fields of the multipart upload besides the file (`file`): optional, each a plain text
 * field. Documentation of the form; the route reads the parts as they stream.
 */
export const ImportFieldsSchema = z.object({
  course_name: z
    .string()
    .max(200)
    .optional()
    .describe('The class’s course name (default: the file’s name without its extension).'),
  cite_filename: z
    .string()
    .max(300)
    .optional()
    .describe('A file from /api/cite_files to use as the class’s material.'),
});

/** POST /api/import (202), POST /api/import/cancel and POST /api/import/resume (202). */
export const ImportAnswerSchema = z.object({ import: ImportStatusSchema });

/** GET /api/import: the running import, else the latest; null when there was none. */
export const ImportCurrentSchema = z.object({ import: ImportStatusSchema.nullable() });

/** POST /api/import/resume. */
export const ImportResumeBodySchema = z
  .object({ id: z.string().min(1).max(100).describe('The `id` of the import to go on with.') })
  .meta({ examples: [{ id: '20260307-101500-a1b2c3' }] });
