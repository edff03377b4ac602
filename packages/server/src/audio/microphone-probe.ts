import { type Localized, localized } from '../language.ts';
import type { AudioChildMessage, AudioDeviceInfo } from './audio-child.ts';
import { startAudioChild } from './audio-child-process.ts';
import { microphoneError } from './microphone-source.ts';

/** A message in English (`message`, as before) and in both languages. */
function texts(text: Localized): { message: string; messages: Localized } {
  return { message: text.en, messages: text };
}

/** What {@link probeMicrophone} found. */
export type MicrophoneProbe =
  | {
      ok: true;
      device: AudioDeviceInfo;
      sampleRate: number;
      channels: number;
      /** RMS energy of the first chunk read (0 means digital silence: muted or unplugged?). */
      level: number;
      inputs: AudioDeviceInfo[];
    }
  | {
      ok: false;
      code: string;
      /** What happened and what to do, in English. */
      message: string;
      /** The message in both languages. */
      messages: Localized;
      hint: string;
      /** The audio system's own words (ALSA, PortAudio), when it said something. */
      technical?: string;
      inputs: AudioDeviceInfo[];
    };

/** Options of {@link probeMicrophone}. */
export interface MicrophoneProbeOptions {
  device: string | undefined;
  sampleRate: number;
  channels: number;
  chunkBytes: number;
  environment?: NodeJS.ProcessEnv;
  /** Longest the probe may take. Default 10 s. */
  timeoutMs?: number;
}

/**
 * Opens the input device in a short-lived child process, reads one chunk and closes it: the
 * device list, the chosen device and its level, or why there is none. Never throws, never
 * crashes the server (ALSA's noise stays in the child).
 *
 * @example
 * const probe = await probeMicrophone({ device: undefined, sampleRate: 16000, channels: 1, chunkBytes: 3200 });
 * if (!probe.ok) console.log(probe.message);
 */
export async function probeMicrophone(options: MicrophoneProbeOptions): Promise<MicrophoneProbe> {
  let child: ReturnType<typeof startAudioChild>;
  try {
    child = startAudioChild(
      {
        mode: 'probe',
        device: options.device,
        sampleRate: options.sampleRate,
        channels: options.channels,
        chunkBytes: options.chunkBytes,
      },
      options.environment ? { environment: options.environment } : {},
    );
  } catch (error) {
    return {
      ok: false,
      code: 'AUDIO_DEVICE_UNAVAILABLE',
      ...texts(
        localized(
          '麦克风检查没能开始。请稍后重试。',
          'The microphone check could not start. Try again in a moment.',
        ),
      ),
      technical: (error as Error).message,
      hint: '',
      inputs: [],
    };
  }
  let inputs: AudioDeviceInfo[] = [];
  let opened: Extract<AudioChildMessage, { type: 'opened' }> | undefined;
  let probed: Extract<AudioChildMessage, { type: 'probed' }> | undefined;
  let failed: Extract<AudioChildMessage, { type: 'failed' }> | undefined;
  child.onMessage((message) => {
    if (message.type === 'devices') inputs = message.inputs;
    else if (message.type === 'opened') opened = message;
    else if (message.type === 'probed') probed = message;
    else if (message.type === 'failed') failed = message;
  });
  const timeoutMs = options.timeoutMs ?? 10_000;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void child.stop(0);
  }, timeoutMs);
  const exit = await child.exited;
  clearTimeout(timer);
  if (opened && probed) {
    return {
      ok: true,
      device: opened.device,
      sampleRate: opened.sampleRate,
      channels: opened.channels,
      level: probed.level,
      inputs,
    };
  }
  if (timedOut && !failed) {
    return {
      ok: false,
      code: 'AUDIO_DEVICE_UNAVAILABLE',
      ...texts(
        localized(
          `麦克风 ${timeoutMs / 1000} 秒内没有回应：它可能被其他程序独占。请关闭那个程序后重试。`,
          `The microphone did not answer within ${timeoutMs / 1000} s: another program may hold it. Close that program and try again.`,
        ),
      ),
      hint: 'Check that no other program holds the device exclusively.',
      inputs,
    };
  }
  const error = microphoneError(failed, exit.output, options.device);
  return {
    ok: false,
    code: error.code,
    ...texts(error.localized ?? localized(error.message, error.message)),
    hint: error.details.hint ?? '',
    ...(error.details.technical ? { technical: error.details.technical } : {}),
    inputs,
  };
}
