import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { naudiodonAddonPath } from '../audio/native.ts';
import { systemSoundSupport } from '../audio/system-sound.ts';
import { localized } from '../language.ts';
import { errors } from './schemas.ts';

const LocalizedSchema = z.object({ zh: z.string(), en: z.string() });

const NativeSourceSchema = z.object({
  available: z.boolean(),
  message: LocalizedSchema.nullable().describe(
    'Why not and what to do instead, in both languages; null when available.',
  ),
});

/** GET /api/audio_sources. */
export const AudioSourcesSchema = z
  .object({
    platform: z.string().describe('The operating system the backend runs on (process.platform).'),
    microphone: NativeSourceSchema.describe(
      'AUDIO_INPUT=mic: the backend records a microphone (needs its recording addon).',
    ),
    system: NativeSourceSchema.describe(
      "AUDIO_INPUT=system (and system+mic): the backend records the computer's own sound, the default output's monitor on Linux (PulseAudio or PipeWire). Elsewhere the app window captures it.",
    ),
  })
  .meta({
    description:
      'What this machine can capture natively (in the backend). Nothing is opened: the microphone is available when its addon is installed, the computer sound when a sound server answers.',
  });

/** GET /api/audio_sources: what the backend can record on this machine. */
export const audioSourcesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/audio_sources',
    {
      schema: {
        tags: ['system'],
        summary: 'What this machine can record natively: microphone, computer sound',
        description:
          'For the class panel’s source choice. `system.available` is true on Linux with a reachable sound server; on macOS and Windows the message says how to capture the computer sound in the app window instead.',
        response: { 200: AudioSourcesSchema, ...errors() },
      },
    },
    async () => {
      let microphone: z.infer<typeof NativeSourceSchema> = { available: true, message: null };
      try {
        naudiodonAddonPath();
      } catch {
        microphone = {
          available: false,
          message: localized(
            '这个版本缺少录音组件（naudiodon），后端不能录麦克风。请在应用窗口里录音（AUDIO_INPUT=app）。',
            'This build lacks the recording component (naudiodon), so the backend cannot record a microphone. Record in the app window instead (AUDIO_INPUT=app).',
          ),
        };
      }
      const system = await systemSoundSupport(process.platform, process.env);
      return { platform: process.platform, microphone, system };
    },
  );
};
