import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import type { AudioChildMessage } from './audio-child.ts';
import { type AudioChild, startAudioChild, summariseChildOutput } from './audio-child-process.ts';
import type { AudioSource, AudioSourceInfo } from './audio-source.ts';
import { createChunkQueue } from './chunk-queue.ts';
import { createRecognizerConverter, frameEnergy, RECOGNIZER_SAMPLE_RATE } from './pcm.ts';

/** Options of {@link createMicrophoneSource}. */
export interface MicrophoneSourceOptions {
  /** Part of the device name; undefined for the default input. */
  device: string | undefined;
  sampleRate: number;
  channels: number;
  /** Bytes per read (AUDIO_CHUNK_SIZE). */
  chunkBytes: number;
  /** Environment of the child process. */
  environment?: NodeJS.ProcessEnv;
  /** Problems that do not stop capture (audio dropped because recognition fell behind). */
  onWarning?: (message: string) => void;
  /** How long opening may take. Default 15 s. */
  openTimeoutMs?: number;
  /** Most audio held for a slow consumer before the oldest is dropped. Default 30 s. */
  maxQueuedMs?: number;
}

/**
 * Turns a child failure into the error start_monitor reports: what happened and what to do in
 * both languages, the audio system's own words (ALSA, PortAudio) in `technical`.
 */
export function microphoneError(
  failure: Extract<AudioChildMessage, { type: 'failed' }> | undefined,
  output: string,
  device: string | undefined,
): ServerError {
  const diagnostics = summariseChildOutput(output);
  const technical = [
    failure
      ? failure.message
      : `the microphone process ended before it opened ${device ? `"${device}"` : 'the default input'}`,
    diagnostics ? `audio system: ${diagnostics}` : '',
  ]
    .filter((part) => part !== '')
    .join('\n');
  if (failure?.code === 'NATIVE_MODULE_MISSING') {
    return new ServerError(
      'NATIVE_MODULE_MISSING',
      localized(
        '这个版本缺少录音组件（naudiodon），无法使用麦克风。可以切换到演示模式，或在设置里把 AUDIO_INPUT 设为 file:录音文件（WAV）。',
        'This build lacks the recording component (naudiodon), so the microphone cannot be used. Use the demo mode, or set AUDIO_INPUT to file: and a WAV recording in the settings.',
      ),
      {
        field: 'AUDIO_INPUT',
        hint: 'Microphone capture needs naudiodon; AUDIO_INPUT=file:PATH plays a recording instead.',
        technical,
      },
    );
  }
  const message =
    failure?.code === 'NO_INPUT_DEVICE'
      ? localized(
          '找不到麦克风：这台电脑没有可用的录音设备。请接上麦克风并允许本应用使用后重试，或切换到演示模式。',
          'No microphone found: this computer has no audio input device. Connect a microphone, let the app use it and try again, or use the demo mode.',
        )
      : failure?.code === 'DEVICE_NOT_FOUND'
        ? localized(
            `找不到名为“${device ?? ''}”的麦克风。请在设置里把 AUDIO_INPUT 设为 mic（默认麦克风），或 mic:设备名的一部分。`,
            `No microphone named "${device ?? ''}". Set AUDIO_INPUT to mic (the default microphone), or mic: and part of a listed name, in the settings.`,
          )
        : localized(
            '麦克风打不开：它可能被其他程序占用，或本应用没有权限。请关闭占用它的程序后重试，或切换到演示模式。',
            'The microphone could not be opened: another program may hold it, or the app may not be allowed to use it. Close that program and try again, or use the demo mode.',
          );
  return new ServerError('AUDIO_DEVICE_UNAVAILABLE', message, {
    field: 'AUDIO_INPUT',
    hint:
      failure?.code === 'DEVICE_NOT_FOUND'
        ? 'Set AUDIO_INPUT=mic for the default input, or mic:NAME with part of a listed name.'
        : 'Connect a microphone (and allow the app to use it), or set AUDIO_INPUT=file:PATH to transcribe a recording.',
    technical,
  });
}

/**
 * The microphone as an audio source. Capture runs in a child process (PortAudio through
 * naudiodon's addon); the parent converts to 16 kHz mono and queues it for the recognizer.
 * While paused, audio is discarded (the device stays open, so resuming is instant) and the class
 * clock keeps counting it.
 *
 * @example
 * const mic = createMicrophoneSource({ device: undefined, sampleRate: 16000, channels: 1, chunkBytes: 3200 });
 * await mic.open(); // rejects with AUDIO_DEVICE_UNAVAILABLE on a machine without one
 */
export function createMicrophoneSource(options: MicrophoneSourceOptions): AudioSource & {
  /** Process id of the capture child, once started (for diagnostics). */
  readonly pid: number | undefined;
} {
  let child: AudioChild | undefined;
  let info: AudioSourceInfo | undefined;
  let paused = false;
  let closing = false;
  let ended = false;
  let failure: Error | undefined;
  let level = 0;
  let clockSamples = 0;
  const queue = createChunkQueue({
    ...(options.maxQueuedMs === undefined ? {} : { maxQueuedMs: options.maxQueuedMs }),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
  const convert = createRecognizerConverter(options);

  const onAudio = (data: Uint8Array) => {
    const samples = convert(data);
    if (samples.length === 0) return;
    const atMs = (clockSamples / RECOGNIZER_SAMPLE_RATE) * 1000;
    clockSamples += samples.length;
    level = frameEnergy(samples);
    if (paused || closing) return;
    queue.push({ samples, atMs });
  };

  return {
    get info() {
      return info;
    },
    get level() {
      return level;
    },
    get pid() {
      return child?.pid;
    },
    async open() {
      const started = startAudioChild(
        {
          mode: 'capture',
          device: options.device,
          sampleRate: options.sampleRate,
          channels: options.channels,
          chunkBytes: options.chunkBytes,
        },
        options.environment ? { environment: options.environment } : {},
      );
      child = started;
      let failed: Extract<AudioChildMessage, { type: 'failed' }> | undefined;
      const opened = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          void started.stop(500);
          reject(
            new ServerError(
              'AUDIO_DEVICE_UNAVAILABLE',
              localized(
                `麦克风 ${(options.openTimeoutMs ?? 15_000) / 1000} 秒内没有打开：它可能被其他程序占用。请关闭占用它的程序后重试，或切换到演示模式。`,
                `The microphone did not open within ${(options.openTimeoutMs ?? 15_000) / 1000} s: another program may hold it. Close that program and try again, or use the demo mode.`,
              ),
              { field: 'AUDIO_INPUT' },
            ),
          );
        }, options.openTimeoutMs ?? 15_000);
        started.onMessage((message) => {
          if (message.type === 'opened') {
            clearTimeout(timer);
            info = {
              kind: 'microphone',
              name: message.device.name,
              sampleRate: message.sampleRate,
              channels: message.channels,
            };
            resolve();
          } else if (message.type === 'audio') {
            onAudio(message.data);
          } else if (message.type === 'failed') {
            failed = message;
            if (info) failure = new Error(`the microphone stopped: ${message.message}`);
          }
        });
        void started.exited.then((exit) => {
          clearTimeout(timer);
          ended = true;
          if (!info) {
            reject(microphoneError(failed, exit.output, options.device));
          } else if (!closing && !failure) {
            failure = new Error(
              `the microphone process ended unexpectedly (${exit.signal ?? `exit code ${exit.code}`})${summariseChildOutput(exit.output) ? `: ${summariseChildOutput(exit.output)}` : ''}`,
            );
          }
          queue.notify();
        });
      });
      await opened;
    },
    chunks() {
      return {
        [Symbol.asyncIterator]: () => queue.read(() => failure ?? (ended || closing)),
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
      await child?.stop();
    },
  };
}
