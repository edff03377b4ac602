import { readFile } from 'node:fs/promises';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../app.ts';
import { COMPATIBLE_CLIENT_VERSION, SERVER_VERSION } from '../version.ts';
import { errors } from './schemas.ts';

const HealthSchema = z
  .object({
    status: z.literal('healthy'),
    version: z.string(),
    compatible_client: z.string(),
    uptime_seconds: z.number(),
    data_dir: z.string(),
    settings_file: z.string(),
    monitor: z.object({ state: z.string(), is_monitoring: z.boolean(), is_paused: z.boolean() }),
    asr: z.object({
      mode: z.string(),
      available: z.boolean(),
      message: z.string(),
      settings: z.array(z.string()),
    }),
    llm: z.object({
      configured: z.boolean(),
      base_url: z.string(),
      model: z.string(),
      missing: z.array(z.string()),
    }),
    settings_problems: z.array(
      z.object({ key: z.string(), source: z.string(), message: z.string() }),
    ),
    not_configured: z
      .array(z.string())
      .describe('One sentence per thing the student still has to set up; empty when all is ready.'),
  })
  .meta({
    examples: [
      {
        status: 'healthy',
        version: SERVER_VERSION,
        compatible_client: COMPATIBLE_CLIENT_VERSION,
        uptime_seconds: 12.5,
        data_dir: '/home/me/class-assistant/data',
        settings_file: '/home/me/class-assistant/.env',
        monitor: { state: 'idle', is_monitoring: false, is_paused: false },
        asr: {
          mode: 'mock',
          available: true,
          message: 'bundled lecture, one line every 3000 ms',
          settings: [],
        },
        llm: {
          configured: false,
          base_url: 'https://api.deepseek.com/v1',
          model: 'deepseek-chat',
          missing: ['LLM_API_KEY'],
        },
        settings_problems: [],
        not_configured: ['AI features (rescue, catch-up, notes): set LLM_API_KEY in the settings.'],
      },
    ],
  });

/** What /api/health reports about the configuration; also logged at startup. */
export async function configurationReport(
  services: AppServices,
): Promise<z.infer<typeof HealthSchema>> {
  const settings = services.settings.current();
  const definition = services.recognizers.get(settings.asrMode);
  const availability = definition
    ? await definition.availability(settings)
    : {
        available: false as const,
        message: `ASR_MODE=${settings.asrMode} is not a recognition mode of this build (${services.recognizers.modes().join(', ')}).`,
        settings: ['ASR_MODE'],
      };
  const missing = [
    settings.llmBaseUrl === '' ? 'LLM_BASE_URL' : '',
    settings.llmApiKey === '' ? 'LLM_API_KEY' : '',
    settings.llmModel === '' ? 'LLM_MODEL' : '',
  ].filter((key) => key !== '');
  const notConfigured: string[] = [];
  if (missing.length > 0) {
    notConfigured.push(
      `AI features (rescue, catch-up, notes): set ${missing.join(', ')} in the settings.`,
    );
  }
  if (!availability.available) notConfigured.push(`Recognition: ${availability.message}`);
  for (const problem of services.settings.problems()) {
    notConfigured.push(`Settings: ${problem.message} (the default is used).`);
  }
  const status = services.monitor.status();
  return {
    status: 'healthy',
    version: SERVER_VERSION,
    compatible_client: COMPATIBLE_CLIENT_VERSION,
    uptime_seconds: Math.round((Date.now() - services.startedAt.getTime()) / 100) / 10,
    data_dir: services.dataDir,
    settings_file: services.settings.path,
    monitor: {
      state: status.state,
      is_monitoring: status.is_monitoring,
      is_paused: status.is_paused,
    },
    asr: {
      mode: settings.asrMode,
      available: availability.available,
      message: availability.available ? (availability.detail ?? 'ready') : availability.message,
      settings: availability.available ? [] : availability.settings,
    },
    llm: {
      configured: missing.length === 0,
      base_url: settings.llmBaseUrl,
      model: settings.llmModel,
      missing,
    },
    settings_problems: services.settings.problems(),
    not_configured: notConfigured,
  };
}

/** Capture devices the system lists (Linux ALSA), for the microphone check's message. */
async function captureDevices(): Promise<string[]> {
  try {
    const text = await readFile('/proc/asound/pcm', 'utf8');
    return text
      .split('\n')
      .filter((line) => line.includes('capture'))
      .map((line) => line.split(':').slice(1, 2).join('').trim())
      .filter((name) => name !== '');
  } catch {
    return [];
  }
}

/** GET /api/health and GET /api/check_mic. */
export const systemRoutes: FastifyPluginAsyncZod = async (app) => {
  const services = app.classAssistant;

  app.get(
    '/api/health',
    {
      schema: {
        tags: ['system'],
        summary: 'Is the backend up, and what is not configured yet',
        description:
          'Always `status: "healthy"` while the process serves requests. `not_configured` lists, in plain words, what the student still has to set (LLM key, recognition mode problems, invalid settings).',
        response: { 200: HealthSchema, ...errors() },
      },
    },
    async () => configurationReport(services),
  );

  app.get(
    '/api/check_mic',
    {
      schema: {
        tags: ['system'],
        summary: 'Check the microphone',
        description:
          'The original answers `{status:"ok", device, sample_rate, channels, message}` or `{status:"error", message}` with HTTP 200. This build has no audio capture yet (ASR_MODE=mock needs none), so it reports that, listing the capture devices the system knows.',
        response: {
          200: z.object({
            status: z.enum(['ok', 'error']),
            message: z.string(),
            error_code: z.string().optional(),
            device: z.string().optional(),
            sample_rate: z.number().optional(),
            channels: z.number().optional(),
            devices: z.array(z.string()).optional(),
          }),
          ...errors(),
        },
      },
    },
    async () => {
      const devices = await captureDevices();
      const settings = services.settings.current();
      return {
        status: 'error' as const,
        error_code: 'MIC_CAPTURE_UNAVAILABLE',
        message: `Microphone capture is not available in this build yet${devices.length > 0 ? ` (the system lists: ${devices.join(', ')})` : ''}. Set ASR_MODE=mock to run the scripted demo class without a microphone. Configured: ${settings.audioSampleRate} Hz, ${settings.audioChannels} channel(s), input "${settings.audioInput}".`,
        devices,
      };
    },
  );
};
