import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ServerError } from '../errors.ts';
import { displayName } from '../files.ts';
import { type Language, localized, requestLanguage } from '../language.ts';
import { materialPageList } from '../material/page-tracker.ts';
import { parseMaterialInWorker } from '../material/parse-material.ts';
import { formatBytes } from '../material/zip-guard.ts';
import { errors } from './schemas.ts';

export const UploadResultSchema = z
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

/** The most characters of a page GET /api/material/pages/:page answers. */
const MATERIAL_PAGE_CHARACTERS = 8000;

export const MaterialPageParams = z.object({
  page: z.coerce.number().int().min(1).max(100_000).describe('1-based page number.'),
});

export const MaterialPageSchema = z.object({
  status: z.literal('success'),
  page: z.number().int(),
  page_count: z.number().int().describe('Pages of the material.'),
  title: z.string().describe('The page’s first non-empty line, shortened.'),
  text: z.string().describe('The page’s text (at most 8000 characters).'),
});

export const CiteFilesSchema = z.object({
  status: z.literal('success'),
  items: z.array(
    z.object({
      filename: z.string(),
      updated_at: z.string().describe('Local time, YYYY-MM-DD HH:MM:SS.'),
      size: z.number(),
      updated_at_iso: z.string(),
      pages: z
        .number()
        .int()
        .describe('Slides or pages in it (its page markers; 0 for text without them).'),
    }),
  ),
});

/** A request that is not multipart/form-data (also the answer to fastify's own check). */
export const UPLOAD_NOT_MULTIPART = new ServerError(
  'UPLOAD_MISSING_FILE',
  localized(
    '请用 multipart/form-data 发送文件，字段名为 "file"。',
    'Send the file as multipart/form-data with the field "file".',
  ),
  { field: 'file' },
);

/** What an upload read, for the student (the file's name without control characters). */
function uploadMessage(
  language: Language,
  name: string,
  material: { kind: string; pages: number; text: string },
  citeFilename: string,
): string {
  const { pages } = material;
  const characters = material.text.length;
  if (language === 'zh') {
    const unit = material.kind === 'pptx' ? '张幻灯片' : '页';
    return `已读取 ${name}：${pages} ${unit}，${characters} 个字符。已保存为 ${citeFilename}。`;
  }
  const unit = material.kind === 'pptx' ? 'slide' : 'page';
  return `Read ${name}: ${pages} ${unit}${pages === 1 ? '' : 's'}, ${characters} characters. Saved as ${citeFilename}.`;
}

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
          localized(
            `文件有 ${formatBytes(declared)}，最多只接受 ${formatBytes(maxBytes)}（UPLOAD_MAX_MB）。`,
            `The file is ${formatBytes(declared)}; at most ${formatBytes(maxBytes)} is accepted (UPLOAD_MAX_MB).`,
          ),
          { field: 'file', hint: 'UPLOAD_MAX_MB' },
        );
      }
      if (!request.isMultipart()) throw UPLOAD_NOT_MULTIPART;
      const part = await request.file({ limits: { fileSize: maxBytes, files: 1 } });
      if (!part) {
        throw new ServerError(
          'UPLOAD_MISSING_FILE',
          localized(
            '请求里没有文件：请放在字段 "file" 中发送。',
            'The request has no file: send it in the field "file".',
          ),
          { field: 'file' },
        );
      }
      let bytes: Buffer;
      try {
        bytes = await part.toBuffer();
      } catch (error) {
        if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
          throw new ServerError(
            'UPLOAD_TOO_LARGE',
            localized(
              `文件超过了 ${formatBytes(maxBytes)}（UPLOAD_MAX_MB）。`,
              `The file is larger than ${formatBytes(maxBytes)} (UPLOAD_MAX_MB).`,
            ),
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
      return {
        status: 'success' as const,
        message: uploadMessage(
          requestLanguage(request),
          displayName(filename),
          material,
          citeFilename,
        ),
        text_length: material.text.length,
        cite_filename: citeFilename,
        kind: material.kind,
        pages: material.pages,
      };
    },
  );

  app.get(
    '/api/material/pages/:page',
    {
      schema: {
        tags: ['material'],
        summary: 'One page of the class’s material',
        description:
          'A page of the material of the running class (or, when idle, of the last one): its number, how many there are, its first line and its text — what the bar shows when the student taps the page the teacher is on (`current_page`, `page.changed`). 404 MATERIAL_PAGE_NOT_FOUND when the material has no such page (or no page markers, or there is none).',
        params: MaterialPageParams,
        response: { 200: MaterialPageSchema, ...errors(404) },
      },
    },
    async (request) => {
      const pages = materialPageList(await services.cite.readCurrent());
      const wanted = request.params.page;
      const found = pages.find((page) => page.page === wanted);
      if (!found) {
        throw new ServerError(
          'MATERIAL_PAGE_NOT_FOUND',
          pages.length === 0
            ? localized(
                `没有第 ${wanted} 页：这节课没有带页码的资料。`,
                `There is no page ${wanted}: this class has no material with pages.`,
              )
            : localized(
                `没有第 ${wanted} 页：资料共 ${pages.length} 页。`,
                `There is no page ${wanted}: the material has ${pages.length} pages.`,
              ),
          { field: 'page' },
        );
      }
      return {
        status: 'success' as const,
        page: found.page,
        page_count: pages.length,
        title: found.title,
        text: found.text.slice(0, MATERIAL_PAGE_CHARACTERS),
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
