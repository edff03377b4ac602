import { type FileHandle, open } from 'node:fs/promises';
import type { StreamDecoder } from '@audio/decode';
import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import type { AudioChunk, AudioSource, AudioSourceInfo } from './audio-source.ts';
import { createFilePacing } from './file-pacing.ts';
import { planMp4 } from './mp4-layout.ts';
import {
  createResampler,
  frameEnergy,
  planarToMono,
  RECOGNIZER_SAMPLE_RATE,
  type Resampler,
} from './pcm.ts';
import {
  ACCEPTED_RECORDINGS,
  declaredDurationMs,
  detectRecordingFormat,
  type RecordingFormat,
} from './recording-format.ts';

/** Options of {@link createRecordingSource}. */
export interface RecordingSourceOptions {
  /** `realtime`: one second of audio per second, like a live class; `fast`: as fast as it decodes. */
  pace: 'realtime' | 'fast';
  /** Length of each chunk in ms (100 by default in the settings). */
  chunkMs: number;
  /**
   * Start at this position of the recording, in ms (to resume): what comes before is decoded
   * and dropped, and the first chunk's `atMs` is this position.
   */
  startAtMs?: number;
  /** Clock for pacing (tests). Default `performance.now`. */
  now?: () => number;
  /** How messages name the file (e.g. an upload's own name). Default: the path. */
  displayName?: string;
  /** The setting or request field an error names. Default `AUDIO_INPUT`. */
  field?: string;
}

/**
 * Bytes handed to the decoder at a time: a few ms of CPU for any codec, so a long recording
 * never holds the event loop for long, and never the whole file in memory.
 */
const RECORDING_PIECE_BYTES = 16 * 1024;
const HEAD_BYTES = 64 * 1024;
const SAMPLES_PER_MS = RECOGNIZER_SAMPLE_RATE / 1000;

const clock = (ms: number): string => {
  const seconds = Math.floor(ms / 1000);
  const hours = Math.floor(seconds / 3600);
  const mm = String(Math.floor((seconds % 3600) / 60)).padStart(2, '0');
  const ss = String(seconds % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${mm}:${ss}` : `${mm}:${ss}`;
};

/**
 * Plays a recording (MP3, M4A/AAC, MP4/MOV, WebM/Opus, Ogg Vorbis/Opus, FLAC, WAV of any codec
 * the decoder knows) as an audio source: decoded by `@audio/decode` (JS/WebAssembly, no native
 * binary) in pieces of {@link RECORDING_PIECE_BYTES}, down-mixed and resampled to 16 kHz mono as
 * it goes, so a three-hour lecture costs no more memory than a minute. The format is told from
 * the file's first bytes. Chunks carry `atMs` = their position in the recording (plus paused
 * time, as the WAV source's do).
 *
 * @example
 * const source = createRecordingSource('/lectures/week3.m4a', { pace: 'fast', chunkMs: 100 });
 * await source.open();
 * for await (const chunk of source.chunks()) vad.push(chunk.samples);
 */
export function createRecordingSource(path: string, options: RecordingSourceOptions): AudioSource {
  const now = options.now ?? (() => performance.now());
  const name = options.displayName ?? path;
  const field = options.field ?? 'AUDIO_INPUT';
  const startAtMs = Math.max(0, options.startAtMs ?? 0);
  const chunkSamples = Math.max(1, Math.round(options.chunkMs * SAMPLES_PER_MS));
  let handle: FileHandle | undefined;
  let info: AudioSourceInfo | undefined;
  let format: RecordingFormat | undefined;
  let decoder: StreamDecoder | undefined;
  let size = 0;
  /** What is fed, in order: bytes already in memory (MP4 tables) or [start, end) of the file. */
  let feed: Array<Uint8Array | [number, number]> = [];
  let consumed = 0;
  let ended = false;
  let decodedRate = 0;
  let decodedChannels = 0;
  let resampler: Resampler | undefined;
  let toSkip = Math.round(startAtMs * SAMPLES_PER_MS);
  const queue: Int16Array[] = [];
  let queued = 0;
  let deliveredSamples = 0;
  const pacing = createFilePacing(now);
  let closed = false;
  let level = 0;
  let reading = false;

  const problem = (
    message: { zh: string; en: string },
    technical?: string,
    cause?: unknown,
  ): ServerError =>
    new ServerError(
      'RECORDING_UNSUPPORTED',
      localized(message.zh, message.en),
      { field, hint: ACCEPTED_RECORDINGS, ...(technical ? { technical } : {}) },
      cause === undefined ? undefined : { cause },
    );
  const notARecording = (technical: string, cause?: unknown) =>
    problem(
      {
        zh: `${name} 不是能解码的录音文件。支持的格式：${ACCEPTED_RECORDINGS}。`,
        en: `${name} is not a recording the app can decode. Accepted formats: ${ACCEPTED_RECORDINGS}.`,
      },
      technical,
      cause,
    );
  /** A decoder's complaint at open, as the student reads it. */
  const decoderProblem = (error: unknown): ServerError => {
    const words = error instanceof Error ? error.message : String(error);
    if (/no audio track/i.test(words)) {
      return problem(
        {
          zh: `${name} 里没有声音（没有音轨，可能是无声视频）。支持的格式：${ACCEPTED_RECORDINGS}。`,
          en: `${name} has no sound track (a video without audio?). Accepted formats: ${ACCEPTED_RECORDINGS}.`,
        },
        words,
        error,
      );
    }
    if (/unsupported|no decoder/i.test(words)) {
      const label = format?.label ?? '';
      return problem(
        {
          zh: `${name} 是 ${label} 文件，但其中的声音编码本应用无法解码。支持的格式：${ACCEPTED_RECORDINGS}。`,
          en: `${name} is a ${label} file whose sound is in a codec the app cannot decode. Accepted formats: ${ACCEPTED_RECORDINGS}.`,
        },
        words,
        error,
      );
    }
    return notARecording(words, error);
  };

  const release = async () => {
    const file = handle;
    handle = undefined;
    decoder?.free();
    decoder = undefined;
    await file?.close();
  };

  /** The next bytes to feed, at most one piece; undefined at the end of the file. */
  const nextPiece = async (): Promise<Uint8Array | undefined> => {
    while (feed.length > 0 && handle) {
      const next = feed[0]!;
      if (next instanceof Uint8Array) {
        feed.shift();
        consumed += next.byteLength;
        return next;
      }
      const [start, end] = next;
      if (start >= end) {
        feed.shift();
        continue;
      }
      const length = Math.min(RECORDING_PIECE_BYTES, end - start);
      const bytes = new Uint8Array(length);
      const { bytesRead } = await handle.read(bytes, 0, length, start);
      if (bytesRead === 0) {
        feed.shift();
        continue;
      }
      next[0] = start + bytesRead;
      consumed += bytesRead;
      return bytes.subarray(0, bytesRead);
    }
    return undefined;
  };

  /** Converts decoded audio to 16 kHz mono and queues it (minus what a resume skips). */
  const take = (result: { channelData: Float32Array[]; sampleRate: number }) => {
    const channels = result.channelData;
    if (channels.length === 0 || (channels[0]?.length ?? 0) === 0) return;
    if (!resampler || result.sampleRate !== decodedRate) {
      resampler = createResampler(result.sampleRate, RECOGNIZER_SAMPLE_RATE);
      decodedRate = result.sampleRate;
    }
    decodedChannels = Math.max(decodedChannels, channels.length);
    let samples = resampler.push(planarToMono(channels));
    if (toSkip > 0) {
      const skip = Math.min(toSkip, samples.length);
      toSkip -= skip;
      samples = samples.subarray(skip);
    }
    if (samples.length > 0) {
      queue.push(samples);
      queued += samples.length;
    }
  };

  /** Feeds the decoder one piece (or flushes it at the end). */
  const step = async () => {
    if (!decoder || ended) return;
    const piece = await nextPiece();
    if (!decoder) return; // closed while reading
    if (piece) take(await decoder(piece));
    else {
      ended = true;
      const last = decoder;
      decoder = undefined;
      take(await last());
    }
  };

  const takeSamples = (count: number): Int16Array => {
    const out = new Int16Array(count);
    let at = 0;
    while (at < count) {
      const head = queue[0]!;
      const length = Math.min(head.length, count - at);
      out.set(head.subarray(0, length), at);
      at += length;
      if (length === head.length) queue.shift();
      else queue[0] = head.subarray(length);
    }
    queued -= count;
    return out;
  };

  return {
    get info() {
      return info;
    },
    get level() {
      return level;
    },
    async open() {
      try {
        handle = await open(path, 'r');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        throw new ServerError(
          'AUDIO_INPUT_INVALID',
          code === 'ENOENT'
            ? localized(`录音 ${name} 不存在。`, `The recording ${name} does not exist.`)
            : localized(
                `无法读取录音 ${name}（${code ?? '未知原因'}）。`,
                `The recording ${name} cannot be read (${code ?? 'unknown reason'}).`,
              ),
          { field, technical: (error as Error).message },
          { cause: error },
        );
      }
      try {
        const file = handle;
        const stats = await file.stat();
        if (!stats.isFile()) throw notARecording('not a regular file');
        size = stats.size;
        const head = new Uint8Array(Math.min(size, HEAD_BYTES));
        await file.read(head, 0, head.byteLength, 0);
        const detected = detectRecordingFormat(head);
        if ('unsupported' in detected) throw notARecording(detected.unsupported);
        format = detected;
        let durationMs: number | undefined;
        if (detected.codec === 'm4a') {
          let plan: Awaited<ReturnType<typeof planMp4>>;
          try {
            plan = await planMp4(file, size);
          } catch (error) {
            if ((error as { code?: unknown }).code !== 'MP4_LAYOUT') throw error;
            throw notARecording((error as Error).message, error);
          }
          feed = [plan.head, ...plan.ranges];
          durationMs = plan.durationMs;
        } else {
          feed = [[0, size]];
          durationMs = await declaredDurationMs(file, size, head, detected.codec);
        }
        const { default: decode } = await import('@audio/decode');
        try {
          decoder = await decode[detected.codec]();
          // Decode up to the first audio: the format is checked here, not mid-class.
          while (decodedRate === 0 && !ended && !closed) await step();
        } catch (error) {
          throw decoderProblem(error);
        }
        if (decodedRate === 0) {
          throw problem(
            {
              zh: `${name} 里没有可解码的声音。支持的格式：${ACCEPTED_RECORDINGS}。`,
              en: `${name} holds no sound that could be decoded. Accepted formats: ${ACCEPTED_RECORDINGS}.`,
            },
            `${detected.label}: the decoder gave no samples`,
          );
        }
        info = {
          kind: 'file',
          name: path,
          sampleRate: decodedRate,
          channels: decodedChannels,
          ...(durationMs !== undefined ? { durationMs } : {}),
        };
      } catch (error) {
        await release();
        throw error;
      }
    },
    chunks() {
      return {
        async *[Symbol.asyncIterator](): AsyncGenerator<AudioChunk> {
          if (!handle || !info) throw new Error('open() the source first');
          reading = true;
          try {
            const start = now();
            while (!closed) {
              await pacing.untilResumed();
              if (closed) break;
              while (queued < chunkSamples && !ended && !closed) {
                try {
                  await step();
                } catch (error) {
                  const at = startAtMs + deliveredSamples / SAMPLES_PER_MS;
                  throw problem(
                    {
                      zh: `录音 ${name} 在 ${clock(at)} 之后无法解码。`,
                      en: `The recording ${name} could not be decoded past ${clock(at)}.`,
                    },
                    error instanceof Error ? error.message : String(error),
                    error,
                  );
                }
              }
              if (closed) break;
              if (queued === 0) {
                // Read to its end: the recording is as long as what it gave, whatever its
                // header said (a VBR MP3 without a frame count, a truncated file).
                if (ended)
                  info = { ...info, durationMs: startAtMs + deliveredSamples / SAMPLES_PER_MS };
                break;
              }
              const length = Math.min(chunkSamples, queued);
              const audioMs = deliveredSamples / SAMPLES_PER_MS;
              if (options.pace === 'realtime') {
                // Like a microphone, a chunk is there once its audio has been "spoken".
                const wait = start + pacing.pausedMs + audioMs + length / SAMPLES_PER_MS - now();
                if (wait > 0) await pacing.sleep(wait);
                if (closed) break;
                if (pacing.paused) continue;
              }
              const samples = takeSamples(length);
              const atMs = startAtMs + audioMs + pacing.pausedMs;
              deliveredSamples += length;
              level = frameEnergy(samples);
              yield { samples, atMs };
            }
          } finally {
            reading = false;
            if (closed) await release();
          }
        },
      };
    },
    progress() {
      return {
        fraction: size > 0 ? Math.min(1, consumed / size) : 1,
        positionMs: startAtMs + deliveredSamples / SAMPLES_PER_MS,
      };
    },
    pause() {
      pacing.pause();
    },
    resume() {
      pacing.resume();
    },
    async close() {
      closed = true;
      pacing.close();
      // A read in flight finishes first; the reader releases the file when it stops.
      if (!reading) await release();
    },
  };
}
