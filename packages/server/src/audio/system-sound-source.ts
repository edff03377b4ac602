import { isServerError, ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import type { AudioChunk, AudioSource, AudioSourceInfo } from './audio-source.ts';
import { createChunkQueue } from './chunk-queue.ts';
import { createMicrophoneSource, type MicrophoneSourceOptions } from './microphone-source.ts';
import { RECOGNIZER_SAMPLE_RATE } from './pcm.ts';
import { createPcmMixer } from './pcm-mixer.ts';
import { SYSTEM_SOUND_DEVICE, systemSoundEnvironment } from './system-sound.ts';

/** Options of {@link createSystemSoundSource}: the capture format and the microphone to mix in. */
export interface SystemSoundSourceOptions
  extends Omit<MicrophoneSourceOptions, 'device' | 'environment'> {
  environment: NodeJS.ProcessEnv;
  /** Mix the default microphone in (AUDIO_INPUT=system+mic). */
  withMicrophone: boolean;
}

/** A system sound source, with the level of each input when mixed. */
export type SystemSoundSource = AudioSource & {
  /** Level (RMS) of the computer's sound and, when mixed, of the microphone. */
  readonly levels: { system: number; microphone: number | undefined };
};

/** How far one input may run ahead of the other before the other counts as silent (1 s). */
const MAX_LAG_SAMPLES = RECOGNIZER_SAMPLE_RATE;

/** Why the computer's sound could not be opened, with what to do; the cause in `technical`. */
export function systemSoundError(error: unknown): ServerError {
  const technical = isServerError(error)
    ? [error.message, error.details.technical].filter(Boolean).join('\n')
    : (error as Error).message;
  return new ServerError(
    'AUDIO_DEVICE_UNAVAILABLE',
    localized(
      '录不到电脑声音：声音服务（PulseAudio 或 PipeWire）没有让本应用打开它的监听源。请确认在桌面会话中运行本应用，并安装了 ALSA 的 pulse 插件（libasound2-plugins）；也可以在应用窗口里选择“电脑声音（在线课）”，共享播放网课的浏览器标签页。',
      'The computer\'s sound could not be recorded: the sound server (PulseAudio or PipeWire) did not let the app open its monitor source. Run the app inside your desktop session with ALSA\'s pulse plugin installed (libasound2-plugins), or choose "Computer sound (online class)" in the app window and share the browser tab that plays the class.',
    ),
    {
      field: 'AUDIO_INPUT',
      hint: 'AUDIO_INPUT=system records the default output’s monitor through ALSA’s pulse device (PULSE_SOURCE=@DEFAULT_MONITOR@).',
      technical,
    },
  );
}

/**
 * The computer's own sound (AUDIO_INPUT=system) through the usual capture child: ALSA's `pulse`
 * device with PULSE_SOURCE set to the default output's monitor. With `withMicrophone`
 * (system+mic) a second child captures the default microphone and the two are summed on the
 * class clock (clipped to 16 bits), each input's level kept.
 *
 * @example
 * const source = createSystemSoundSource({ sampleRate: 16000, channels: 1, chunkBytes: 3200, environment: process.env, withMicrophone: true });
 * await source.open(); // AUDIO_DEVICE_UNAVAILABLE when no sound server answers
 */
export function createSystemSoundSource(options: SystemSoundSourceOptions): SystemSoundSource {
  const { withMicrophone, environment, ...format } = options;
  const system = createMicrophoneSource({
    ...format,
    device: SYSTEM_SOUND_DEVICE,
    environment: systemSoundEnvironment(environment),
  });
  const microphone = withMicrophone
    ? createMicrophoneSource({ ...format, device: undefined, environment })
    : undefined;
  const inputs = microphone ? [system, microphone] : [system];
  const mixer = createPcmMixer({ inputs: inputs.length, maxLagSamples: MAX_LAG_SAMPLES });
  const queue = createChunkQueue({
    ...(options.maxQueuedMs === undefined ? {} : { maxQueuedMs: options.maxQueuedMs }),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
  let info: AudioSourceInfo | undefined;
  let failure: Error | undefined;
  let running = 0;
  let closing = false;
  let paused = false;
  let level = 0;
  /** When each input opened, and when the last one did: the mix starts there. */
  const openedAt = inputs.map(() => 0);
  let startAt = 0;

  const pump = async (index: number) => {
    try {
      for await (const chunk of inputs[index]!.chunks()) {
        // Audio from before every input was open is dropped: the inputs' first samples then
        // belong to the same moment (the children open one after the other, a second apart on
        // a busy machine), and sample n of each is mixed with sample n of the other.
        const early = Math.round(
          ((startAt - openedAt[index]! - chunk.atMs) * RECOGNIZER_SAMPLE_RATE) / 1000,
        );
        if (early >= chunk.samples.length) continue;
        const samples = early > 0 ? chunk.samples.subarray(early) : chunk.samples;
        // The inputs keep running while paused, so the class clock counts paused time.
        const atMs = (mixer.position / RECOGNIZER_SAMPLE_RATE) * 1000;
        const mixed = mixer.push(index, samples);
        if (mixed.length === 0) continue;
        level = Math.max(...mixer.levels);
        if (paused || closing) continue;
        queue.push({ samples: mixed, atMs });
      }
    } catch (error) {
      failure ??= error as Error;
    } finally {
      running -= 1;
      queue.notify();
    }
  };

  return {
    get info() {
      return info;
    },
    get level() {
      return level;
    },
    get levels() {
      return { system: system.level, microphone: microphone?.level };
    },
    async open() {
      const opened = await Promise.allSettled([
        system.open().then(
          () => {
            openedAt[0] = performance.now();
          },
          (error: unknown) => {
            throw systemSoundError(error);
          },
        ),
        microphone?.open().then(() => {
          openedAt[1] = performance.now();
        }),
      ]);
      const failed = opened.find((result) => result.status === 'rejected');
      if (failed) {
        await Promise.all(inputs.map((input) => input.close()));
        throw (failed as PromiseRejectedResult).reason;
      }
      const systemInfo = system.info!;
      info = {
        kind: 'microphone',
        name: microphone
          ? `Computer sound + ${microphone.info?.name ?? 'microphone'}`
          : 'Computer sound',
        sampleRate: systemInfo.sampleRate,
        channels: systemInfo.channels,
      };
      startAt = Math.max(...openedAt);
      running = inputs.length;
      for (let index = 0; index < inputs.length; index++) void pump(index);
    },
    chunks(): AsyncIterable<AudioChunk> {
      return {
        [Symbol.asyncIterator]: () => queue.read(() => failure ?? (closing || running === 0)),
      };
    },
    pause() {
      paused = true;
      queue.clear();
    },
    resume() {
      paused = false;
    },
    async close() {
      closing = true;
      queue.notify();
      await Promise.all(inputs.map((input) => input.close()));
    },
  };
}
