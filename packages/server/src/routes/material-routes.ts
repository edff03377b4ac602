import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ServerError } from '../errors.ts';
import { parseMaterialInWorker } from '../material/parse-material.ts';
import { formatBytes } from '../material/zip-guard.ts';
import { errors } from './schemas.ts';

const UploadResultSchema = z
  .object({
    status: z.literal('success'),
    message: z.string(),
    text_length: z.number().describe('Characters of the extracted text.'),
    cite_filename: z
      .string()
      .describe('The file written under data/cite; pass it to start_monitor.'),
    kind: z.enum(['pptx', 'pdf', 'docx']),
    pages: z.number().describe('Slides or pages.'),
  })
  .meta({
    examples: [
      {
        status: 'success',
        message: 'Read slides.pptx: 2 slides, 96 characters.',
        text_length: 96,
        cite_filename: 'slides_20260307_224812.txt',
        kind: 'pptx',
        pages: 2,
      },
    ],
  });

const CiteFilesSchema = z.object({
  status: z.literal('success'),
  items: z.array(
    z.object({
      filename: z.string(),
      updated_at: z.string().describe('Local time, YYYY-MM-DD HH:MM:SS.'),
      size: z.number(),
      updated_at_iso: z.string(),
    }),
  ),
});

/** POST /api/upload_ppt and GET /api/cite_files. */
export const materialRoutes: FastifyPluginAsyncZod = async (app) => {
  const services = app.classAssistant;

  app.post(
    '/api/upload_ppt',
    {
      schema: {
        tags: ['material'],
        summary: 'Upload class material (.pptx, .pdf, .docx)',
        description:
          'multipart/form-data with one file in the field `file`. The text (slides in presentation order with tables and speaker notes; PDF pages; Word paragraphs, tables and page breaks) is written to `data/cite/<name>_<YYYYMMDD_HHMMSS>.txt` with a `--- 第 N 页 ---` line before each slide or page. The current class material is never touched. Refused with a clear code: UPLOAD_TOO_LARGE (UPLOAD_MAX_MB), UPLOAD_LEGACY_FORMAT (.ppt/.doc: save as .pptx/.docx), UPLOAD_UNSUPPORTED_TYPE, UPLOAD_CONTENT_MISMATCH (content is not what the extension says), UPLOAD_ENCRYPTED, UPLOAD_CORRUPT, UPLOAD_ARCHIVE_TOO_LARGE (zip bombs), UPLOAD_NO_TEXT (scans).',
        consumes: ['multipart/form-data'],
        response: { 200: UploadResultSchema, ...errors(400, 413, 415, 422) },
      },
    },
    async (request) => {
      const maxBytes = services.settings.current().uploadMaxBytes;
      const declared = Number(request.headers['content-length'] ?? 0);
      if (declared > maxBytes + 64 * 1024) {
        throw new ServerError(
          'UPLOAD_TOO_LARGE',
          413,
          `The file is ${formatBytes(declared)}; at most ${formatBytes(maxBytes)} is accepted (UPLOAD_MAX_MB).`,
          { field: 'file', hint: 'UPLOAD_MAX_MB' },
        );
      }
      if (!request.isMultipart()) {
        throw new ServerError(
          'UPLOAD_MISSING_FILE',
          400,
          'Send the file as multipart/form-data with the field "file".',
          {
            field: 'file',
          },
        );
      }
      const part = await request.file({ limits: { fileSize: maxBytes, files: 1 } });
      if (!part) {
        throw new ServerError(
          'UPLOAD_MISSING_FILE',
          400,
          'The request has no file: send it in the field "file".',
          {
            field: 'file',
          },
        );
      }
      let bytes: Buffer;
      try {
        bytes = await part.toBuffer();
      } catch (error) {
        if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
          throw new ServerError(
            'UPLOAD_TOO_LARGE',
            413,
            `The file is larger than ${formatBytes(maxBytes)} (UPLOAD_MAX_MB).`,
            { field: 'file', hint: 'UPLOAD_MAX_MB' },
          );
        }
        throw error;
      }
      const filename = part.filename || 'material';
      const material = await parseMaterialInWorker(
        filename,
        new Uint8Array(bytes),
        services.parseLimits,
      );
      const citeFilename = await services.cite.write(filename, material.text, services.now());
      services.hub.publish('material.uploaded', {
        cite_filename: citeFilename,
        text_length: material.text.length,
      });
      request.log.info(
        { citeFilename, kind: material.kind, pages: material.pages },
        'material uploaded',
      );
      const unit = material.kind === 'pptx' ? 'slide' : 'page';
      return {
        status: 'success' as const,
        message: `Read ${filename}: ${material.pages} ${unit}${material.pages === 1 ? '' : 's'}, ${material.text.length} characters. Saved as ${citeFilename}.`,
        text_length: material.text.length,
        cite_filename: citeFilename,
        kind: material.kind,
        pages: material.pages,
      };
    },
  );

  app.get(
    '/api/cite_files',
    {
      schema: {
        tags: ['material'],
        summary: 'List uploaded material, newest first',
        response: { 200: CiteFilesSchema, ...errors() },
      },
    },
    async () => ({ status: 'success' as const, items: await services.cite.list() }),
  );
};
