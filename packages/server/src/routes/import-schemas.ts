// The zod schemas of the recording-import routes (POST /api/import, GET /api/import,
// POST /api/import/cancel, POST /api/import/resume): their bodies and answers, each carrying the
// import's status as the `import.changed` live event does.
import { z } from 'zod';
import { ImportStatusSchema } from '../events/live-events.ts';

/** POST /api/import, POST /api/import/cancel, POST /api/import/resume: the import concerned. */
export const ImportAnswerSchema = z.object({ import: ImportStatusSchema });

/** GET /api/import: the running import, else the latest one (null when there never was one). */
export const ImportCurrentSchema = z.object({ import: ImportStatusSchema.nullable() });

/** POST /api/import/resume: which failed or cancelled import goes on. */
export const ImportResumeBodySchema = z.object({ id: z.string().min(1) });
