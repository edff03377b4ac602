import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ServerError } from '../errors.ts';
import { DEFAULT_MODELS_BASE_URL } from '../models/model-catalogue.ts';
import { shownValue } from '../settings/secret-rules.ts';
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
  engine: z.enum(['vosk', 'pocketsphinx', 'sherpa']),
  size_bytes: z.number().int().describe('Download size (catalogue models) or size on disk.'),
  description: z.string(),
  installed: z.boolean(),
  path: z.string().optional().describe('The model folder, when installed.'),
  downloading: z
    .object({ received_bytes: z.number().int(), total_bytes: z.number().int().nullable() })
    .optional()
    .describe('Progress of a download running now.'),
});

const ModelListSchema = z
  .object({
    status: z.literal('success'),
    models_dir: z.string(),
    base_url: z
      .string()
      .describe('Where catalogue models download from (MODELS_BASE_URL or the official host).'),
    items: z.array(ModelItemSchema),
  })
  .meta({
    examples: [
      {
        status: 'success',
        models_dir: '/home/me/.local/share/class-assistant/data/models',
        base_url: 'https://alphacephei.com/vosk/models',
        items: [
          {
            id: 'vosk-small-cn',
            name: 'vosk-model-small-cn-0.22',
            language: 'zh',
            engine: 'vosk',
            size_bytes: 43898754,
            description: 'Chinese (Mandarin), small: good for a lecture on a laptop',
            installed: false,
          },
        ],
      },
    ],
  });

const DownloadBodySchema = z
  .union([
    z
      .object({ id: z.string().min(1).max(100).describe('A catalogue id from GET /api/models.') })
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
  .describe('A catalogue model `{id}`, or any model `{url, sha256, name}`.');

const DownloadAnswerSchema = z.object({
  status: z.literal('success'),
  id: z
    .string()
    .describe('The download id: model.progress, model.installed and model.failed events carry it.'),
  name: z.string(),
  state: z
    .enum(['started', 'running', 'installed'])
    .describe('started now; running already (same id); installed already (nothing to do).'),
});

const RemoveAnswerSchema = z.object({
  status: z.literal('success'),
  name: z.string(),
  removed: z.boolean().describe('An installed model was removed.'),
  cancelled: z.boolean().describe('A running download was cancelled (its partial file deleted).'),
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
      base_url: shownValue(
        services.settings.current().modelsBaseUrl || DEFAULT_MODELS_BASE_URL,
        false,
      ),
      items: await services.models.list(),
    }),
  );

  app.post(
    '/api/models/download',
    {
      schema: {
        tags: ['models'],
        summary: 'Start downloading a model (answers at once)',
        description:
          'Starts a background download: free space checked first, resumed after dropped connections, the size and SHA-256 (and MD5) checked before anything is unpacked, installed atomically. Follow it with the model.progress, model.installed and model.failed events of GET /api/events. A model already installed answers `state: "installed"`.',
        body: DownloadBodySchema,
        response: { 200: DownloadAnswerSchema, ...errors(400, 404, 409) },
      },
    },
    async (request) => {
      const started = await services.models.start(request.body);
      return { status: 'success' as const, ...started };
    },
  );

  app.delete(
    '/api/models/:name',
    {
      schema: {
        tags: ['models'],
        summary: 'Remove an installed model, or cancel its download',
        params: z.object({
          name: z.string().min(1).max(100).describe('Folder name or catalogue id.'),
        }),
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
            409,
            `A class is running in the local mode and may be using ${used.name}: stop it first.`,
          );
        }
      }
      const result = await services.models.remove(request.params.name);
      if (!result.removed && !result.cancelled) {
        throw new ServerError(
          'MODEL_NOT_FOUND',
          404,
          `No model "${request.params.name}" is installed or downloading.`,
          { field: 'name' },
        );
      }
      return { status: 'success' as const, name: request.params.name, ...result };
    },
  );
};
