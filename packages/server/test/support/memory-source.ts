// An AudioSource over samples in memory, for tests that need to control exactly when the audio
// runs out (the file and microphone sources are tested on their own).
import type { AudioChunk, AudioSource } from '../../src/audio/audio-source.ts';
import { frameEnergy } from '../../src/audio/pcm.ts';

/** Options of {@link memorySource}. */
export interface MemorySourceOptions {
  /** After the samples: end (like a file) or stay open, silent, until closed (like a microphone). */
  afterAudio: 'end' | 'hold';
  /** Milliseconds to wait between 100 ms chunks (0: as fast as read). */
  chunkDelayMs?: number;
}

/** A source playing 16 kHz mono samples in 100 ms chunks. `delivered()` says how far it got. */
export function memorySource(
  samples: Int16Array,
  options: MemorySourceOptions,
): AudioSource & { delivered(): number } {
  let closed = false;
  let wake: (() => void) | undefined;
  let position = 0;
  let level = 0;
  return {
    info: { kind: 'file', name: 'memory', sampleRate: 16000, channels: 1 },
    get level() {
      return level;
    },
    delivered: () => position,
    async open() {},
    chunks() {
      return {
        async *[Symbol.asyncIterator](): AsyncGenerator<AudioChunk> {
          while (position < samples.length && !closed) {
            const chunk = samples.subarray(position, position + 1600);
            const atMs = position / 16;
            position += chunk.length;
            level = frameEnergy(chunk);
            yield { samples: chunk, atMs };
            if (options.chunkDelayMs)
              await new Promise((resolve) => setTimeout(resolve, options.chunkDelayMs));
          }
          if (options.afterAudio === 'hold') {
            while (!closed) await new Promise<void>((resolve) => (wake = resolve));
          }
        },
      };
    },
    pause() {},
    resume() {},
    async close() {
      closed = true;
      wake?.();
    },
  };
}
