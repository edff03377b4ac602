import { type FileHandle, open } from 'node:fs/promises';
import type { parsePcmWav } from '@class-assistant/asr-protocol';
import { ServerError } from '../errors.ts';
import type { AudioChunk, AudioSource, AudioSourceInfo } from './audio-source.ts';
import { createFilePacing } from './file-pacing.ts';
import { createRecognizerConverter, frameEnergy } from './pcm.ts';

/** Options of {@link createWavFileSource}. */
export interface WavFileSourceOptions {
  /** `realtime`: one second of audio per second, like a microphone; `fast`: as fast as it is read. */
  pace: 'realtime' | 'fast';
  /** Length of each chunk in ms (AUDIO_CHUNK_SIZE's duration; 100 by default). */
  chunkMs: number;
  /** Clock for pacing (tests). Default `performance.now`. */
  now?: () => number;
  /**
   * Where in the recording to begin, in ms (default 0): the audio before it is skipped, and
   * chunk times and progress stay positions in the whole recording.
   */
  startAtMs?: number;
}

const HEAD_BYTES = 1 << 20;

function invalid(message: string, cause?: unknown): ServerError {
  return new ServerError(
    'AUDIO_INPUT_INVALID',
    message,
    {
      field: 'AUDIO_INPUT',
      hint: 'AUDIO_INPUT=file:PATH must name a PCM 16-bit WAV file (mono or stereo, any rate).',
    },
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Plays a WAV file (PCM s16le, mono or stereo, any sample rate) as an audio source. The file is
 * streamed, never read whole, so a three-hour recording costs no more memory than a minute.
 * Pausing holds the position; the class clock keeps running through the pause.
 *
 * @example
 * const source = createWavFileSource('/lectures/week3.wav', { pace: 'realtime', chunkMs: 100 });
 * await source.open();
 */
export function createWavFileSource(path: string, options: WavFileSourceOptions): AudioSource {
  const now = options.now ?? (() => performance.now());
  let handle: FileHandle | undefined;
  let info: AudioSourceInfo | undefined;
  let dataStart = 0;
  let dataEnd = 0;
  const pacing = createFilePacing(now);
  let closed = false;
  let level = 0;
  let reading = false;
  /** File offset just past the audio delivered so far. */
  let deliveredEnd = 0;
  /** File offset of the first byte to deliver (`startAtMs`). */
  let firstByte = 0;
  const releaseFile = async () => {
    const file = handle;
    handle = undefined;
    await file?.close();
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
        throw invalid(
          code === 'ENOENT'
            ? `AUDIO_INPUT names ${path}, which does not exist.`
            : `AUDIO_INPUT names ${path}, which cannot be read (${code ?? (error as Error).message}).`,
          error,
        );
      }
      const { size } = await handle.stat();
      const head = new Uint8Array(Math.min(size, HEAD_BYTES));
      await handle.read(head, 0, head.byteLength, 0);
      // The WAV reader comes with the ASR protocol package: loaded by the first WAV class.
      const { isAsrProtocolError, parsePcmWav: parse } = await import(
        '@class-assistant/asr-protocol'
      );
      let wav: ReturnType<typeof parsePcmWav>;
      try {
        wav = parse(head);
      } catch (error) {
        await handle.close();
        handle = undefined;
        throw invalid(
          `AUDIO_INPUT names ${path}: ${isAsrProtocolError(error) ? error.message : String(error)}`,
          error,
        );
      }
      dataStart = wav.data.byteOffset - head.byteOffset;
      const frame = 2 * wav.channels;
      const available = size - dataStart;
      const declared = wav.declaredDataBytes ?? available;
      const length = Math.min(declared, available);
      dataEnd = dataStart + (length - (length % frame));
      info = {
        kind: 'file',
        name: path,
        sampleRate: wav.sampleRate,
        channels: wav.channels,
        durationMs: ((dataEnd - dataStart) / frame / wav.sampleRate) * 1000,
      };
      const skipFrames = Math.round(((options.startAtMs ?? 0) * wav.sampleRate) / 1000);
      firstByte = Math.min(dataEnd, dataStart + Math.max(0, skipFrames) * frame);
      deliveredEnd = firstByte;
    },
    chunks() {
      return {
        async *[Symbol.asyncIterator](): AsyncGenerator<AudioChunk> {
          if (!handle || !info) throw new Error('open() the source first');
          const file = handle;
          reading = true;
          try {
            const frame = 2 * info.channels;
            const bytesPerMs = (info.sampleRate * frame) / 1000;
            const chunkBytes = Math.max(
              frame,
              Math.round((options.chunkMs * bytesPerMs) / frame) * frame,
            );
            const convert = createRecognizerConverter(info);
            const start = now();
            let position = firstByte;
            let audioMs = (position - dataStart) / bytesPerMs;
            const skippedMs = audioMs;
            while (position < dataEnd && !closed) {
              await pacing.untilResumed();
              if (closed) break;
              const length = Math.min(chunkBytes, dataEnd - position);
              if (options.pace === 'realtime') {
                // Like a microphone, a chunk is there once its audio has been "spoken": chunk k
                // leaves at the end of its own audio (no drift; pauses excluded).
                const wait =
                  start + pacing.pausedMs + audioMs - skippedMs + length / bytesPerMs - now();
                if (wait > 0) await pacing.sleep(wait);
                if (closed) break;
                if (pacing.paused) continue;
              }
              // A fresh buffer each time: consumers may keep the samples (the streaming mode
              // keeps unconfirmed audio for resending), and they are views into it.
              const buffer = new Uint8Array(length);
              const { bytesRead } = await file.read(buffer, 0, length, position);
              if (bytesRead === 0) break;
              const samples = convert(buffer.subarray(0, bytesRead));
              const atMs = audioMs + pacing.pausedMs;
              position += bytesRead;
              deliveredEnd = position;
              audioMs += bytesRead / bytesPerMs;
              level = frameEnergy(samples);
              yield { samples, atMs };
            }
          } finally {
            reading = false;
            if (closed) await releaseFile();
          }
        },
      };
    },
    progress() {
      const total = dataEnd - dataStart;
      const done = Math.max(0, deliveredEnd - dataStart);
      return {
        fraction: total > 0 ? Math.min(1, done / total) : 1,
        positionMs: info ? (done / (2 * info.channels) / info.sampleRate) * 1000 : 0,
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
      if (!reading) await releaseFile();
    },
  };
}
