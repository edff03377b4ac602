/**
 * Audio sources behind one interface (AUDIO_INPUT): the microphone (a child process running
 * naudiodon), the microphone of the app window (streamed by the desktop UI over a WebSocket) or
 * a recording (MP3, M4A, MP4, WebM, OGG, FLAC, WAV) played at real-time pace or as fast as the
 * recognizer takes it. Every source
 * delivers 16 kHz mono samples on the class clock, whatever it captures.
 */
import { stat } from 'node:fs/promises';
import { ServerError } from '../errors.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import type { AppCapture, CaptureFormat } from './app-capture.ts';
import { type AudioInput, describeAudioInput, parseAudioInput } from './audio-input.ts';
import { createMicrophoneSource } from './microphone-source.ts';
import { naudiodonAddonPath } from './native.ts';
import type {
  RecognizerAvailability,
  RecognizerInput,
  RecordingProgress,
} from './recognizer-input.ts';
import { isPcm16Wav } from './recording-format.ts';
import { createRecordingSource } from './recording-source.ts';
import { systemSoundSupport } from './system-sound.ts';
import { createSystemSoundSource } from './system-sound-source.ts';
import { createWavFileSource } from './wav-file-source.ts';

/** A piece of audio: 16 kHz mono samples and where they start on the class clock. */
export interface AudioChunk {
  samples: Int16Array;
  /**
   * Milliseconds since the source opened, counting paused time: a recognizer's times stay the
   * time of the class, so lines either side of a pause are never joined.
   */
  atMs: number;
}

/** What a source is, once open. */
export interface AudioSourceInfo {
  kind: 'microphone' | 'app' | 'file';
  /** The device name (for the app window: the one it reported) or the file path. */
  name: string;
  /** The captured format (before conversion to 16 kHz mono). */
  sampleRate: number;
  channels: number;
  /** Audio length of a file source, in ms. */
  durationMs?: number;
}

/** A source of audio for a recognizer. One consumer reads `chunks()`. */
export interface AudioSource {
  /** Opens the device or file; rejects with a ServerError saying what to fix. */
  open(): Promise<void>;
  /** Set once open. */
  readonly info: AudioSourceInfo | undefined;
  /**
   * The audio, in order. Ends when a file is over or the source is closed; throws when the
   * device fails.
   */
  chunks(): AsyncIterable<AudioChunk>;
  /** Stops delivering audio (a microphone's audio is discarded meanwhile; a file waits). */
  pause(): void;
  resume(): void;
  /** Releases the device or file. Idempotent. */
  close(): Promise<void>;
  /** Energy (RMS) of the latest audio delivered, for the microphone check. */
  readonly level: number;
  /**
   * A file source's progress: the share of the file read (0–1) and the position in the
   * recording of the audio delivered so far. Absent for live sources.
   */
  progress?(): { fraction: number; positionMs: number };
  /**
   * A file source's position in the recording (ms) of the audio at `atMs` on the class clock:
   * paused time taken out, counted from the file's start (also when the source started later in
   * it). `undefined` for live sources and before any audio. See `trackRecordingPosition`.
   */
  positionAt?(atMs: number): number | undefined;
}

/** Options of {@link createAudioSource}. */
export interface AudioSourceOptions {
  /** Environment of the microphone child process (default: this process's). */
  environment?: NodeJS.ProcessEnv;
  /** Called with problems that do not stop the source (audio dropped under load). */
  onWarning?: (message: string) => void;
  /** The app window's capture, for AUDIO_INPUT=app (buildApp provides it). */
  appCapture?: AppCapture;
  /** A file source begins this far into the recording, in ms (a resumed import). */
  startAtMs?: number;
}

/**
 * The source AUDIO_INPUT selects, with AUDIO_SAMPLE_RATE, AUDIO_CHANNELS, AUDIO_CHUNK_SIZE and
 * AUDIO_FILE_PACE.
 *
 * @example
 * const source = createAudioSource(settings, dataDir);
 * await source.open();
 * for await (const chunk of source.chunks()) vad.push(chunk.samples);
 */
export function createAudioSource(
  settings: ResolvedSettings,
  dataDir: string,
  options: AudioSourceOptions = {},
): AudioSource {
  const input: AudioInput = parseAudioInput(settings.audioInput, dataDir);
  if (input.kind === 'file') {
    return createFileSource(input.path, {
      pace: settings.audioFilePace,
      chunkMs: chunkMilliseconds(settings),
      ...(options.startAtMs ? { startAtMs: options.startAtMs } : {}),
    });
  }
  if (input.kind === 'app') {
    if (!options.appCapture) {
      throw new ServerError(
        'AUDIO_INPUT_INVALID',
        'AUDIO_INPUT=app listens to the app window, whose capture socket only the backend app (buildApp) serves.',
        { field: 'AUDIO_INPUT' },
      );
    }
    return options.appCapture.createSource(
      captureFormat(settings),
      options.onWarning ? { onWarning: options.onWarning } : {},
    );
  }
  if (input.kind === 'system') {
    return createSystemSoundSource({
      withMicrophone: input.withMicrophone,
      sampleRate: settings.audioSampleRate,
      channels: settings.audioChannels,
      chunkBytes: settings.audioChunkSize,
      environment: options.environment ?? process.env,
      ...(options.onWarning ? { onWarning: options.onWarning } : {}),
    });
  }
  return createMicrophoneSource({
    device: input.device,
    sampleRate: settings.audioSampleRate,
    channels: settings.audioChannels,
    chunkBytes: settings.audioChunkSize,
    ...(options.environment ? { environment: options.environment } : {}),
    ...(options.onWarning ? { onWarning: options.onWarning } : {}),
  });
}

/**
 * The source of a recording file: a PCM 16-bit WAV is read straight (the fastest), any other
 * recording (MP3, M4A, MP4, WebM, OGG, FLAC, other WAVs) goes through the decoder.
 */
export function createFileSource(
  path: string,
  options: { pace: 'realtime' | 'fast'; chunkMs: number; startAtMs?: number },
): AudioSource {
  return isPcm16Wav(path)
    ? createWavFileSource(path, options)
    : createRecordingSource(path, options);
}

/** The capture format of the settings: AUDIO_SAMPLE_RATE, AUDIO_CHANNELS, AUDIO_CHUNK_SIZE. */
export function captureFormat(settings: ResolvedSettings): CaptureFormat {
  return {
    sampleRate: settings.audioSampleRate,
    channels: settings.audioChannels,
    chunkBytes: settings.audioChunkSize,
  };
}

/** Duration of one AUDIO_CHUNK_SIZE chunk of the capture format (100 ms by default). */
export function chunkMilliseconds(settings: ResolvedSettings): number {
  return (settings.audioChunkSize / (2 * settings.audioChannels * settings.audioSampleRate)) * 1000;
}

/**
 * Cheap checks of AUDIO_INPUT for /api/health and start_monitor: the file exists, or the
 * microphone addon is built (the app window needs neither), and for the computer's sound that
 * this system has a sound server to record it from. Whether a microphone is plugged in is
 * only known when it is opened (start_monitor, /api/check_mic, the app window).
 */
export async function audioInputAvailability(
  settings: ResolvedSettings,
  dataDir: string,
  environment: NodeJS.ProcessEnv = process.env,
): Promise<RecognizerAvailability> {
  let input: AudioInput;
  try {
    input = parseAudioInput(settings.audioInput, dataDir);
  } catch (error) {
    return { available: false, message: (error as Error).message, settings: ['AUDIO_INPUT'] };
  }
  if (input.kind === 'file') {
    try {
      const info = await stat(input.path);
      if (!info.isFile()) throw new Error('not a file');
    } catch {
      return {
        available: false,
        message: `AUDIO_INPUT names the recording ${input.path}, which does not exist or is not a file.`,
        settings: ['AUDIO_INPUT'],
      };
    }
    return {
      available: true,
      detail: `${describeAudioInput(input)} (${settings.audioFilePace === 'fast' ? 'as fast as recognition goes' : 'at real-time pace'})`,
    };
  }
  if (input.kind === 'app') return { available: true, detail: describeAudioInput(input) };
  try {
    naudiodonAddonPath();
  } catch (error) {
    return {
      available: false,
      message: `${(error as Error).message} AUDIO_INPUT=file:PATH transcribes a recording without a microphone.`,
      settings: ['AUDIO_INPUT'],
    };
  }
  if (input.kind === 'system') {
    const support = await systemSoundSupport(process.platform, environment);
    if (!support.available) {
      return { available: false, message: support.message!, settings: ['AUDIO_INPUT'] };
    }
  }
  return { available: true, detail: describeAudioInput(input) };
}

/** How far a file source is (undefined for live sources): for an import's progress. */
export function progressOf(source: AudioSource | undefined): RecordingProgress | undefined {
  const progress = source?.progress?.();
  if (!progress) return undefined;
  const durationMs = source?.info?.durationMs;
  return { ...progress, ...(durationMs === undefined ? {} : { durationMs }) };
}

/** What a running source listens to, for the microphone check. */
export function inputOf(source: AudioSource | undefined): RecognizerInput | undefined {
  const info = source?.info;
  if (!source || !info) return undefined;
  return {
    kind: info.kind,
    name: info.name,
    sampleRate: info.sampleRate,
    channels: info.channels,
    level: source.level,
    ...(info.durationMs === undefined ? {} : { durationMs: info.durationMs }),
  };
}

/**
 * Where a recording is: the position (ms) of class-clock time `atMs` in the file a source plays,
 * or without `atMs` the position of the audio delivered so far. `undefined` for live sources.
 */
export function recordingPositionOf(
  source: AudioSource | undefined,
  atMs?: number,
): number | undefined {
  if (source?.info?.kind !== 'file') return undefined;
  return source.positionAt?.(atMs ?? Number.POSITIVE_INFINITY);
}
