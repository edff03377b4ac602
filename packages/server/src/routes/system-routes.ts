import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../app-services.ts';
import { parseAudioInput } from '../audio/audio-input.ts';
import { createFileSource } from '../audio/audio-source.ts';
import { probeMicrophone } from '../audio/microphone-probe.ts';
import { nativeModulesFolder, nativeModulesReport } from '../audio/native.ts';
import {
  SYSTEM_SOUND_DEVICE,
  systemSoundEnvironment,
  systemSoundSupport,
} from '../audio/system-sound.ts';
import { systemSoundError } from '../audio/system-sound-source.ts';
import { isServerError } from '../errors.ts';
import { type Language, requestLanguage, textIn } from '../language.ts';
import { maskSecretsInText, shownValue } from '../secret-rules.ts';
import { COMPATIBLE_CLIENT_VERSION, SERVER_VERSION } from '../version.ts';
import { errors } from './schemas.ts';

export const HealthSchema = z
  .object({
    status: z.literal('healthy'),
    version: z.string().describe('This backend package’s version.'),
    app_version: z
      .string()
      .nullable()
      .describe(
        'The Class Assistant app version this backend ships in (set by the desktop launcher or the release build); null when run on its own.',
      ),
    compatible_client: z.string(),
    pid: z.number().describe('The process answering: a launcher checks it is its own backend.'),
    launcher_pid: z
      .number()
      .nullable()
      .describe(
        'The desktop launcher that started and owns this backend; null when started otherwise. A backend whose launcher is gone is stale.',
      ),
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
    settings_file_problem: z
      .object({
        kind: z.enum(['directory', 'fifo', 'socket', 'device', 'other', 'unreadable']),
        message: z.string(),
      })
      .nullable()
      .describe(
        'Why the settings file cannot be used (in the language of the request: Accept-Language) — its path holds a folder, a named pipe, a socket or a device (never opened), or it cannot be read — else null. The backend keeps serving with the settings it last read (the defaults at start); GET and POST /api/settings answer 409 SETTINGS_FILE_UNUSABLE until it is a regular file or gone.',
      ),
    audio: z
      .object({
        input: z.string(),
        native_modules_folder: z.string().nullable(),
        native_modules: z.array(
          z.object({
            name: z.string(),
            purpose: z.string(),
            available: z.boolean(),
            detail: z.string(),
          }),
        ),
      })
      .describe(
        'AUDIO_INPUT and where the native pieces (koffi, naudiodon, libvosk, sherpa-onnx) load from: this package, or CLASS_ASSISTANT_NATIVE_MODULES in a packaged build. Only the modes that need a missing piece are affected.',
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
        app_version: '1.2.0',
        compatible_client: COMPATIBLE_CLIENT_VERSION,
        pid: 4242,
        launcher_pid: 4240,
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
        settings_file_problem: null,
        audio: {
          input: 'mic',
          native_modules_folder: null,
          native_modules: [
            {
              name: 'naudiodon',
              purpose: 'microphone capture',
              available: true,
              detail: '/app/node_modules/naudiodon/build/Release/naudiodon.node',
            },
          ],
        },
        not_configured: ['AI features (rescue, catch-up, notes): set LLM_API_KEY in the settings.'],
      },
    ],
  });

/**
 * What /api/health reports about the configuration; also logged at startup. Settings show as
 * the settings answer shows them: an address's password and anything shaped like a key masked.
 * The settings file's problem is said in `language` (the asker's; the log's is English).
 */
export async function configurationReport(
  services: AppServices,
  language: Language = 'en',
): Promise<z.infer<typeof HealthSchema>> {
  return maskStrings(await unmaskedReport(services, language));
}

/** A copy of a JSON value with the secrets in its strings masked. */
function maskStrings<Value>(value: Value): Value {
  if (typeof value === 'string') return maskSecretsInText(value) as Value;
  if (Array.isArray(value)) return value.map(maskStrings) as Value;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, entry]) => [key, maskStrings(entry)]),
    ) as Value;
  }
  return value;
}

async function unmaskedReport(
  services: AppServices,
  language: Language,
): Promise<z.infer<typeof HealthSchema>> {
  const settings = services.settings.current();
  const definition = services.recognizers.get(settings.asrMode);
  const availability = definition
    ? await definition.availability(settings, { dataDir: services.dataDir })
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
  if (!availability.available) {
    notConfigured.push(`Recognition: ${textIn(availability.message, 'en')}`);
  }
  const fileProblem = services.settings.fileProblem();
  if (fileProblem) notConfigured.push(`Settings: ${textIn(fileProblem.message, language)}`);
  for (const problem of services.settings.problems()) {
    notConfigured.push(`Settings: ${problem.message} (the default is used).`);
  }
  const status = services.monitor.status();
  return {
    status: 'healthy',
    version: SERVER_VERSION,
    app_version: services.options.appVersion ?? null,
    compatible_client: COMPATIBLE_CLIENT_VERSION,
    pid: process.pid,
    launcher_pid: services.options.launcherPid ?? null,
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
      message: availability.available
        ? (availability.detail ?? 'ready')
        : textIn(availability.message, 'en'),
      settings: availability.available ? [] : availability.settings,
    },
    llm: {
      configured: missing.length === 0,
      base_url: shownValue(settings.llmBaseUrl, false),
      model: settings.llmModel,
      missing,
    },
    settings_problems: services.settings.problems(),
    settings_file_problem: fileProblem
      ? { kind: fileProblem.kind, message: textIn(fileProblem.message, language) }
      : null,
    audio: {
      input: settings.audioInput,
      native_modules_folder: nativeModulesFolder() ?? null,
      native_modules: nativeModulesReport(),
    },
    not_configured: notConfigured,
  };
}

/** GET /api/check_mic. */
export const MicCheckSchema = z.object({
  status: z.enum(['ok', 'error']),
  message: z.string(),
  error_code: z.string().optional(),
  hint: z.string().optional(),
  technical: z
    .string()
    .optional()
    .describe(
      "The audio system's own words (ALSA, PortAudio) behind an error, for a details view.",
    ),
  input: z.enum(['microphone', 'app', 'file']).optional(),
  device: z.string().optional(),
  sample_rate: z.number().optional(),
  channels: z.number().optional(),
  level: z.number().optional(),
  in_use: z.boolean().optional(),
  devices: z.array(z.string()).optional(),
});

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
    async (request) => configurationReport(services, requestLanguage(request)),
  );

  app.get(
    '/api/check_mic',
    {
      schema: {
        tags: ['system'],
        summary: 'Check the microphone (or the audio file) the next class will listen to',
        description:
          'Answers with HTTP 200 either way, as the original: `{status:"ok", device, sample_rate, channels, message}` or `{status:"error", message}`. The device is opened in a short-lived child process and one chunk is read (`level` is its RMS energy: 0 means silence, a muted or unplugged microphone). While a class runs, the running capture is reported instead of opening the device twice. With AUDIO_INPUT=file:PATH the file is checked. With AUDIO_INPUT=app the microphone is in the app window: the answer says so, with the device the window captures and, when its audio stopped, `status:"error"` and `error_code:"AUDIO_CAPTURE_STOPPED"` (the `capture.changed` live event has the details). `devices` lists the input devices found.',
        response: {
          200: MicCheckSchema,
          ...errors(),
        },
      },
    },
    async (request) => checkMicrophone(services, requestLanguage(request)),
  );
};

/** The microphone check: the running capture, the app window, the recording, or a probe of the device. */
async function checkMicrophone(services: AppServices, language: Language) {
  const settings = services.settings.current();
  const running = services.monitor.input();
  if (running?.kind === 'app') return checkAppWindow(services, running);
  if (running) {
    return {
      status: 'ok' as const,
      input: running.kind,
      device: running.name,
      sample_rate: running.sampleRate,
      channels: running.channels,
      level: running.level,
      in_use: true,
      message: `In use by the running class: ${running.kind === 'file' ? `the file ${running.name}` : `"${running.name}"`}, ${running.sampleRate} Hz, ${running.channels} channel(s), level ${running.level}.`,
    };
  }
  let input: ReturnType<typeof parseAudioInput>;
  try {
    input = parseAudioInput(settings.audioInput, services.dataDir);
  } catch (error) {
    return {
      status: 'error' as const,
      error_code: isServerError(error) ? error.code : 'AUDIO_INPUT_INVALID',
      message: (error as Error).message,
    };
  }
  if (input.kind === 'app') return checkAppWindow(services, undefined);
  if (input.kind === 'file') {
    const source = createFileSource(input.path, { pace: 'fast', chunkMs: 100 });
    try {
      await source.open();
      const info = source.info!;
      return {
        status: 'ok' as const,
        input: 'file' as const,
        device: info.name,
        sample_rate: info.sampleRate,
        channels: info.channels,
        message: `AUDIO_INPUT plays the recording ${info.name} (${Math.round((info.durationMs ?? 0) / 1000)} s, ${info.sampleRate} Hz, ${info.channels} channel(s)) instead of a microphone.`,
      };
    } catch (error) {
      return {
        status: 'error' as const,
        input: 'file' as const,
        error_code: isServerError(error) ? error.code : 'AUDIO_INPUT_INVALID',
        message: (error as Error).message,
      };
    } finally {
      await source.close();
    }
  }
  if (input.kind === 'system') {
    const support = await systemSoundSupport(process.platform, process.env);
    if (!support.available) {
      return {
        status: 'error' as const,
        input: 'microphone' as const,
        error_code: 'AUDIO_DEVICE_UNAVAILABLE',
        message: support.message![language],
      };
    }
  }
  // The computer's sound is probed as a microphone: ALSA's pulse device on the output's monitor.
  const probe = await probeMicrophone({
    device: input.kind === 'system' ? SYSTEM_SOUND_DEVICE : input.device,
    ...(input.kind === 'system' ? { environment: systemSoundEnvironment(process.env) } : {}),
    sampleRate: settings.audioSampleRate,
    channels: settings.audioChannels,
    chunkBytes: settings.audioChunkSize,
  });
  const devices = probe.inputs.map((device) => device.name);
  if (!probe.ok) {
    const system =
      input.kind === 'system'
        ? systemSoundError(new Error(probe.technical ?? probe.messages.en))
        : undefined;
    return {
      status: 'error' as const,
      input: 'microphone' as const,
      error_code: probe.code,
      message: system?.localized ? system.localized[language] : probe.messages[language],
      ...(probe.hint ? { hint: probe.hint } : {}),
      ...(probe.technical ? { technical: maskSecretsInText(probe.technical) } : {}),
      devices,
    };
  }
  if (input.kind === 'system') {
    return {
      status: 'ok' as const,
      input: 'microphone' as const,
      device: 'Computer sound',
      sample_rate: probe.sampleRate,
      channels: probe.channels,
      level: probe.level,
      in_use: false,
      devices,
      message: `The computer's sound can be recorded (the default output's monitor, through "${probe.device.name}"): ${probe.sampleRate} Hz, level ${probe.level}${probe.level === 0 ? ', silent while nothing plays' : ''}.`,
    };
  }
  const quiet = probe.level === 0 ? ' It reads pure silence: is it muted or unplugged?' : '';
  return {
    status: 'ok' as const,
    input: 'microphone' as const,
    device: probe.device.name,
    sample_rate: probe.sampleRate,
    channels: probe.channels,
    level: probe.level,
    in_use: false,
    devices,
    message: `Microphone "${probe.device.name}" works: ${probe.sampleRate} Hz, ${probe.channels} channel(s), level ${probe.level}.${quiet}`,
  };
}

/** The microphone check with AUDIO_INPUT=app: what the backend hears from the app window. */
function checkAppWindow(
  services: AppServices,
  running: ReturnType<AppServices['monitor']['input']>,
) {
  const capture = services.capture.status();
  const stopped = capture.state === 'stopped';
  return {
    status: stopped ? ('error' as const) : ('ok' as const),
    input: 'app' as const,
    ...(stopped
      ? {
          error_code: 'AUDIO_CAPTURE_STOPPED',
          hint: 'The app window captures the microphone (AUDIO_INPUT=app): keep it open, allow the microphone, or set AUDIO_INPUT=mic to capture here.',
        }
      : {}),
    device: capture.device,
    in_use: running !== undefined,
    ...(running
      ? { sample_rate: running.sampleRate, channels: running.channels, level: running.level }
      : {}),
    message: `The microphone is in the app window (AUDIO_INPUT=app). ${capture.message}`,
  };
}
