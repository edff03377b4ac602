import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ServerError } from '../errors.ts';
import type { ModelRequest } from '../models/model-manager.ts';
import { shownValue } from '../secret-rules.ts';
import { errors } from './schemas.ts';

const ModelItemSchema = z.object({
  id: z
    .string()
    .describe(
      'Catalogue id (e.g. vosk-small-cn), or the folder name of a model installed otherwise.',
    ),
  name: z.string().describe('The folder it is installed as under <data>/models/.'),
  language: z
    .enum(['zh', 'en'])
    .nullable()
    .describe('Class language (LOCAL_ASR_LANGUAGE); null when unknown.'),
  languages: z
    .array(z.string())
    .describe('Every language the model recognises, e.g. ["zh", "en", "ja", "ko", "yue"].'),
  engine: z.enum(['vosk', 'pocketsphinx', 'sherpa']),
  role: z
    .enum(['recognizer', 'punctuation'])
    .describe(
      'recognizer: speech to text; punctuation: a sherpa-onnx punctuation model that punctuates the lines of a streaming sherpa-onnx model (never a class’s recognizer).',
    ),
  size_bytes: z.number().int().describe('Download size (catalogue models) or size on disk.'),
  disk_bytes: z
    .number()
    .int()
    .nullable()
    .describe('Size once installed; null when not published (an archive’s unpacked size).'),
  description: z.string().describe('In English.'),
  descriptions: z
    .object({ zh: z.string(), en: z.string() })
    .describe('The description in both languages (the UI shows its own).'),
  licence: z.string().nullable(),
  streaming: z
    .boolean()
    .nullable()
    .describe('Partial text while the teacher speaks; null when unknown.'),
  recommended: z.boolean().describe('The model suggested first for its language.'),
  unchecked: z
    .boolean()
    .describe(
      'Some file has no published SHA-256: downloading it needs `allow_unchecked: true` (the student’s explicit OK).',
    ),
  files: z
    .array(
      z.object({
        name: z.string(),
        size_bytes: z.number().int(),
        sha256: z.string().nullable().describe('null: no published value (see null_why).'),
        sha256_source: z.string().optional().describe('Where the size and SHA-256 come from.'),
        null_why: z.string().optional().describe('Why no SHA-256 is pinned.'),
      }),
    )
    .describe('The files downloaded (one archive for Vosk models), each checked before use.'),
  sources: z
    .array(
      z.object({
        id: z.string().describe('Pass it as `source` to download from it first.'),
        label: z.object({ zh: z.string(), en: z.string() }),
        kind: z
          .string()
          .describe('mirror (MODELS_BASE_URL), official, huggingface, hf-mirror, modelscope'),
        urls: z.array(z.string()).describe('The address of each file, in the order of `files`.'),
      }),
    )
    .describe('Hosts tried in this order; a source that fails hands over to the next one.'),
  published_accuracy: z.array(
    z.object({
      metric: z.string(),
      value: z.number().describe('Percent.'),
      test_set: z.string(),
      source: z.string(),
    }),
  ),
  installed: z.boolean(),
  path: z.string().optional().describe('The model folder, when installed.'),
  downloading: z
    .object({
      received_bytes: z.number().int(),
      total_bytes: z.number().int().nullable(),
      source: z.string().nullable().describe('The source the current file comes from.'),
      source_label: z.object({ zh: z.string(), en: z.string() }).nullable(),
      notice: z
        .object({ zh: z.string(), en: z.string() })
        .nullable()
        .describe('The last switch to another source and why.'),
    })
    .optional()
    .describe('Progress of a download running now.'),
});

export const ModelListSchema = z
  .object({
    status: z.literal('success'),
    models_dir: z.string(),
    base_url: z
      .string()
      .describe(
        'MODELS_BASE_URL: the student’s own mirror, tried first for every file ("" when not set).',
      ),
    items: z.array(ModelItemSchema),
  })
  .meta({
    examples: [
      {
        status: 'success',
        models_dir: '/home/me/.local/share/class-assistant/data/models',
        base_url: '',
        items: [
          {
            id: 'vosk-small-cn',
            name: 'vosk-model-small-cn-0.22',
            language: 'zh',
            languages: ['zh'],
            engine: 'vosk',
            role: 'recognizer',
            size_bytes: 43898754,
            disk_bytes: null,
            description: 'Chinese (Mandarin), small (Vosk): light on an old laptop, no punctuation',
            descriptions: {
              zh: '普通话小模型（Vosk）：旧笔记本也跑得动，没有标点',
              en: 'Chinese (Mandarin), small (Vosk): light on an old laptop, no punctuation',
            },
            licence: 'Apache-2.0',
            streaming: true,
            recommended: false,
            unchecked: false,
            files: [
              {
                name: 'vosk-model-small-cn-0.22.zip',
                size_bytes: 43898754,
                sha256: '3af8b0e7e0f835ae9d414ce5df580237a3cfb08d586c9fbbb0f7ff29ad5b14ba',
              },
            ],
            sources: [
              {
                id: 'official',
                label: { zh: 'Vosk 官方源', en: 'the official Vosk host' },
                kind: 'official',
                urls: ['https://alphacephei.com/vosk/models/vosk-model-small-cn-0.22.zip'],
              },
            ],
            published_accuracy: [
              {
                metric: 'CER',
                value: 17.15,
                test_set: 'THCHS',
                source: 'https://alphacephei.com/vosk/models',
              },
            ],
            installed: false,
          },
        ],
      },
    ],
  });

export const DownloadBodySchema = z
  .union([
    z
      .object({
        id: z.string().min(1).max(100).describe('A catalogue id from GET /api/models.'),
        source: z
          .string()
          .min(1)
          .max(40)
          .optional()
          .describe(
            'A source id of that model (GET /api/models `sources`): tried first, the others after it. Default: the automatic order.',
          ),
        allow_unchecked: z
          .boolean()
          .optional()
          .describe(
            'The student’s explicit OK to download files that have no published SHA-256 (`unchecked` models).',
          ),
      })
      .strict(),
    z
      .object({
        url: z
          .string()
          .min(1)
          .max(2000)
          .describe('http(s) address of a ZIP archive holding one model.'),
        sha256: z
          .string()
          .describe(
            'The archive’s SHA-256 (64 hex digits); nothing is installed unless it matches.',
          ),
        name: z.string().min(1).max(100).describe('The folder to install it as.'),
        language: z
          .enum(['zh', 'en'])
          .optional()
          .describe('Its class language (default: from the name).'),
      })
      .strict(),
  ])
  .describe(
    'A catalogue model `{id, source?, allow_unchecked?}`, or any model `{url, sha256, name}`.',
  );

export const DownloadAnswerSchema = z.object({
  status: z.literal('success'),
  id: z
    .string()
    .describe('The download id: model.progress, model.installed and model.failed events carry it.'),
  name: z.string(),
  state: z
    .enum(['started', 'running', 'installed'])
    .describe('started now; running already (same id); installed already (nothing to do).'),
});

export const RemoveAnswerSchema = z.object({
  status: z.literal('success'),
  name: z.string(),
  removed: z.boolean().describe('An installed model was removed.'),
  cancelled: z.boolean().describe('A running download was cancelled (its partial file deleted).'),
});

export const ModelNameParams = z.object({
  name: z.string().min(1).max(100).describe('Folder name or catalogue id.'),
});

/** GET /api/models, POST /api/models/download, DELETE /api/models/:name. */
export const modelsRoutes: FastifyPluginAsyncZod = async (app) => {
  const services = app.classAssistant;

  app.get(
    '/api/models',
    {
      schema: {
        tags: ['models'],
        summary: 'The model catalogue and the installed models',
        description:
          'Catalogue models (with their download size and whether they are installed) and every other model installed under <data>/models. ASR_MODE=local uses an installed model of LOCAL_ASR_LANGUAGE when VOSK_MODEL_PATH is empty.',
        response: { 200: ModelListSchema, ...errors() },
      },
    },
    async () => ({
      status: 'success' as const,
      models_dir: services.models.folder,
      base_url: shownValue(services.settings.current().modelsBaseUrl, false),
      // A mirror address may carry a password (`https://user:pw@mirror/…`): never shown.
      items: (await services.models.list()).map((item) => ({
        ...item,
        sources: item.sources.map((source) => ({
          ...source,
          urls: source.urls.map((url) => shownValue(url, false)),
        })),
      })),
    }),
  );

  app.post(
    '/api/models/download',
    {
      schema: {
        tags: ['models'],
        summary: 'Start downloading a model (answers at once)',
        description:
          'Starts a background download: free space checked first, each file resumed after dropped connections and checked (size and SHA-256, and MD5) before anything is installed, the model installed atomically. A source that fails (no connection, an HTTP error, a stall, a wrong file) hands over to the next one; model.progress events name the source and the switch. Follow it with the model.progress, model.installed and model.failed events of GET /api/events. A model already installed answers `state: "installed"`. A model with files that have no published SHA-256 is refused (409 MODEL_UNCHECKED) unless `allow_unchecked` is true.',
        body: DownloadBodySchema,
        response: { 200: DownloadAnswerSchema, ...errors(400, 403, 404, 409) },
      },
    },
    async (request) => {
      const body = request.body;
      const wanted: ModelRequest =
        'id' in body
          ? { id: body.id, source: body.source, allowUnchecked: body.allow_unchecked }
          : body;
      const started = await services.models.start(wanted);
      return { status: 'success' as const, ...started };
    },
  );

  app.delete(
    '/api/models/:name',
    {
      schema: {
        tags: ['models'],
        summary: 'Remove an installed model, or cancel its download',
        params: ModelNameParams,
        response: { 200: RemoveAnswerSchema, ...errors(400, 404, 409) },
      },
    },
    async (request) => {
      if (services.monitor.status().is_monitoring) {
        const installed = await services.models.installed();
        const used = installed.find(
          (model) => model.name === request.params.name || model.id === request.params.name,
        );
        if (used && services.monitor.status().asr_mode === 'local') {
          throw new ServerError(
            'MODEL_BUSY',
            `A class is running in the local mode and may be using ${used.name}: stop it first.`,
          );
        }
      }
      const result = await services.models.remove(request.params.name);
      if (!result.removed && !result.cancelled) {
        throw new ServerError(
          'MODEL_NOT_FOUND',
          `No model "${request.params.name}" is installed or downloading.`,
          { field: 'name' },
        );
      }
      return { status: 'success' as const, name: request.params.name, ...result };
    },
  );
};
