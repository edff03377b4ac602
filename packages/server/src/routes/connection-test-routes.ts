// POST /api/settings/test_connection: the "test connection" button of the settings form. One
// small real request to the LLM or to an online recognizer's service, with the saved settings or
// the values the student has typed but not saved, and what happened in words.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CONNECTION_RESULTS,
  CONNECTION_TARGETS,
  fieldsFor,
} from '../connection-test/connection-result.ts';
import { runConnectionTest } from '../connection-test/run-connection-test.ts';
import { ServerError } from '../errors.ts';
import { localized, requestLanguage } from '../language.ts';
import { errors } from './schemas.ts';

export const ConnectionTestBodySchema = z
  .object({
    target: z
      .enum(CONNECTION_TARGETS)
      .describe('What to test: the LLM, or an online ASR mode (stream, dashscope, cloud).'),
    fields: z
      .record(z.string(), z.union([z.string().max(4096), z.number(), z.boolean()]))
      .optional()
      .describe(
        'Main keys as the form holds them, not saved: the ones the target reads (LLM_*, STREAM_ASR_*, DASHSCOPE_*, CLOUD_ASR_* and for cloud the LLM address and key it falls back to) are tested instead of the saved values, the others ignored. A masked secret means the stored one.',
      ),
  })
  .meta({
    examples: [
      { target: 'llm' },
      {
        target: 'llm',
        fields: { LLM_BASE_URL: 'https://api.deepseek.com/v1', LLM_API_KEY: 'sk-your-key' },
      },
    ],
  });

export const ConnectionTestSchema = z
  .object({
    status: z.literal('success'),
    target: z.enum(CONNECTION_TARGETS),
    result: z
      .enum(CONNECTION_RESULTS)
      .describe(
        'ok; wrong_key (401/403); wrong_address (no such host, refused, TLS, or not the API there); model_unknown; timeout; rate_limited (429); incomplete (a needed setting is empty, nothing sent); service_error.',
      ),
    ok: z.boolean().describe('True when the service answered the test request.'),
    message: z.string().describe('What happened and what to do, in the request’s language.'),
    technical: z
      .string()
      .describe('The raw cause (or what answered), secrets masked, for a "details" disclosure.'),
    field: z.string().optional().describe('The setting to look at.'),
  })
  .meta({ description: 'What one connection test found.' });

/** POST /api/settings/test_connection. */
export const connectionTestRoutes: FastifyPluginAsyncZod = async (app) => {
  const { settings, recognizers, options } = app.classAssistant;

  app.post(
    '/api/settings/test_connection',
    {
      schema: {
        tags: ['settings'],
        summary: 'Test the connection to the LLM or an online recognizer',
        description:
          'Makes ONE small real request with the saved settings, or with `fields` typed in the form and not saved: for the LLM a chat completion of at most one token (proving the address, the key and the model name at once); for `stream` the session a class opens and 200 ms of silence as its last packet; for `dashscope` a recognition task, closed once the service started it; for `cloud` half a second of silence to /audio/transcriptions. No retry; at most about 20 s. The answer (HTTP 200 whatever the service said) names the outcome in `result`, says it in words in the request’s language (Accept-Language) and keeps the raw cause in `technical`; secrets are masked in both. `fields` are checked as POST /api/settings checks them (400 SETTINGS_INVALID naming the field, e.g. a link-local or cloud-metadata address, before anything is connected), and a stored key is only sent to an address it was saved for: moving the address needs the key typed in `fields` (400 SETTINGS_SECRET_REQUIRED). 409 SETTINGS_FILE_UNUSABLE as for GET /api/settings.',
        body: ConnectionTestBodySchema,
        response: { 200: ConnectionTestSchema, ...errors(400, 409) },
      },
    },
    async (request) => {
      const { target, fields = {} } = request.body;
      if (target !== 'llm' && !recognizers.get(target)) {
        throw new ServerError(
          'VALIDATION_FAILED',
          localized(
            `这个版本没有识别模式 ${target}，无法测试。`,
            `This build has no ASR mode ${target} to test.`,
          ),
          { field: 'target' },
        );
      }
      await settings.load();
      const tested = settings.preview(fieldsFor(target, fields));
      const found = await runConnectionTest(target, tested, {
        llmClientFactory: options.llmClientFactory,
      });
      const language = requestLanguage(request);
      return {
        status: 'success' as const,
        target,
        result: found.result,
        ok: found.result === 'ok',
        message: found.message[language],
        technical: found.technical,
        ...(found.field ? { field: found.field } : {}),
      };
    },
  );
};
