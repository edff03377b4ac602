import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { RECORDING_EXTENSIONS } from '../audio/recording-format.ts';
import { ServerError } from '../errors.ts';
import { checkRecording, RECORDING_HEAD_BYTES } from '../import/recording-type.ts';
import { localized } from '../language.ts';
import {
  ImportAnswerSchema,
  ImportCurrentSchema,
  ImportFieldsSchema,
  ImportResumeBodySchema,
} from './import-schemas.ts';
import { UPLOAD_NOT_MULTIPART } from './material-routes.ts';
import { errors } from './schemas.ts';

/** The largest recording an upload takes: 4 GiB (three hours of video are about 2). */
const IMPORT_MAX_BYTES = 4 * 1024 ** 3;

const tooLarge = () =>
  new ServerError(
    'IMPORT_TOO_LARGE',
    localized(
      '录音超过 4 GB，不能上传导入：可以先只导出音频（例如 MP3 或 M4A），或用命令 class-assistant-backend import 直接导入本机文件。',
      'The recording is larger than 4 GB, the most an upload takes: export its audio only (e.g. MP3 or M4A), or import the file on this computer with class-assistant-backend import.',
    ),
    { field: 'file' },
  );

/**
 * Streams an uploaded file to `path` (never whole in memory), refusing it after its first bytes
 * when it is no recording.
 */
async function storeRecording(part: MultipartFile, path: string): Promise<void> {
  let head = Buffer.alloc(0);
  let checked = false;
  const out = createWriteStream(path, { flags: 'wx' });
  try {
    await pipeline(
      part.file,
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          if (!checked) {
            head = Buffer.concat([head, chunk]);
            if (head.length >= RECORDING_HEAD_BYTES) {
              checkRecording(part.filename, head);
              checked = true;
            }
          }
          yield chunk;
        }
        if (!checked) checkRecording(part.filename, head);
      },
      out,
    );
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
  if (part.file.truncated) {
    await rm(path, { force: true });
    throw tooLarge();
  }
}

/** POST /api/import, GET /api/import, POST /api/import/cancel and /api/import/resume. */
export const importRoutes: FastifyPluginAsyncZod = async (app) => {
  const services = app.classAssistant;
  const { imports } = services;

  app.post(
    '/api/import',
    {
      schema: {
        tags: ['import'],
        summary: 'Import a recorded lecture as a class',
        description: `multipart/form-data: the recording in the field \`file\` (${RECORDING_EXTENSIONS.join(' ')}; at most 4 GB), optionally \`course_name\` (default: the file's name without its extension) and \`cite_filename\` (a material from /api/cite_files) before it. The file is streamed to \`<data folder>/imports/<id>/\`, then recognised as fast as ASR_MODE's recognizer goes into a new class of the library; progress, the end and failures come as \`import.changed\` events (and GET /api/import). Answers 202 once the class runs. Refused: 400 IMPORT_NOT_RECORDING (the first bytes are not those of a recording), 413 IMPORT_TOO_LARGE, 409 IMPORT_BUSY (an import or a class is running; a live class is refused the same way while an import runs), 503 when the recognizer cannot run.`,
        consumes: ['multipart/form-data'],
        response: { 202: ImportAnswerSchema, ...errors(400, 404, 409, 413, 503) },
      },
    },
    async (request, reply) => {
      if (!request.isMultipart()) throw UPLOAD_NOT_MULTIPART;
      imports.checkFree();
      const fields: Record<string, string> = {};
      let stored: { id: string; path: string; fileName: string } | undefined;
      try {
        for await (const part of request.parts({
          limits: { fileSize: IMPORT_MAX_BYTES, files: 1 },
        })) {
          if (part.type === 'field') {
            if (typeof part.value === 'string') fields[part.fieldname] = part.value;
            continue;
          }
          if (part.fieldname !== 'file' || stored) {
            part.file.resume();
            continue;
          }
          const fileName = part.filename || 'recording';
          const upload = await imports.prepareUpload();
          const path = join(
            upload.folder,
            `recording${extname(fileName).toLowerCase().slice(0, 8)}`,
          );
          try {
            await storeRecording(part, path);
          } catch (error) {
            await rm(upload.folder, { recursive: true, force: true });
            throw error;
          }
          stored = { id: upload.id, path, fileName };
        }
      } catch (error) {
        if (stored) await rm(join(stored.path, '..'), { recursive: true, force: true });
        if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
        throw error;
      }
      if (!stored) {
        throw new ServerError(
          'UPLOAD_MISSING_FILE',
          localized(
            '请求里没有录音：请放在字段 "file" 中发送。',
            'The request has no recording: send it in the field "file".',
          ),
          { field: 'file' },
        );
      }
      const checked = ImportFieldsSchema.safeParse(fields);
      if (!checked.success) {
        await rm(join(stored.path, '..'), { recursive: true, force: true });
        const issue = checked.error.issues[0];
        const field = String(issue?.path[0] ?? 'body');
        throw new ServerError('VALIDATION_FAILED', `${field}: ${issue?.message ?? 'invalid'}`, {
          field,
        });
      }
      const status = await imports.begin({
        id: stored.id,
        path: stored.path,
        fileName: stored.fileName,
        owned: true,
        ...(checked.data.course_name ? { courseName: checked.data.course_name } : {}),
        ...(checked.data.cite_filename ? { citeFilename: checked.data.cite_filename } : {}),
      });
      return reply.code(202).send({ import: status });
    },
  );

  app.get(
    '/api/import',
    {
      schema: {
        tags: ['import'],
        summary: 'The running import, else the latest',
        description:
          'The import being recognised, else the latest one (kept across restarts): its state, progress, class, notes and, when it failed, why and whether it can go on. `null` when there has been none.',
        response: { 200: ImportCurrentSchema, ...errors() },
      },
    },
    async () => ({ import: imports.current() }),
  );

  app.post(
    '/api/import/cancel',
    {
      schema: {
        tags: ['import'],
        summary: 'Cancel the running import',
        description:
          'Stops the import’s class: every line recognised so far stays in it, the state is `cancelled` and `resumable` (POST /api/import/resume goes on from `position_ms`). 404 IMPORT_NOT_FOUND when none runs.',
        response: { 200: ImportAnswerSchema, ...errors(404) },
      },
    },
    async () => ({ import: await imports.cancel() }),
  );

  app.post(
    '/api/import/resume',
    {
      schema: {
        tags: ['import'],
        summary: 'Go on with a failed or cancelled import',
        description:
          'Recognises the rest of the recording into the same class, from where the import stopped. 404 IMPORT_NOT_FOUND for an id that is not the latest import; 409 IMPORT_NOT_RESUMABLE when it is done or cannot go on (the uploaded file is gone, or another class has been recorded since), 409 IMPORT_BUSY while an import or a class runs.',
        body: ImportResumeBodySchema,
        response: { 202: ImportAnswerSchema, ...errors(400, 404, 409, 503) },
      },
    },
    async (request, reply) =>
      reply.code(202).send({ import: await imports.resume(request.body.id) }),
  );
};
