import type { AudioChunk } from './audio-source.ts';
import { RECOGNIZER_SAMPLE_RATE } from './pcm.ts';

/** Options of {@link createChunkQueue}. */
export interface ChunkQueueOptions {
  /** Most audio held before the oldest is dropped. Default 30 s. */
  maxQueuedMs?: number;
  /** Told once when audio is first dropped. */
  onWarning?: (message: string) => void;
}

/** Audio captured and not read yet; see {@link createChunkQueue}. */
export interface ChunkQueue {
  push(chunk: AudioChunk): void;
  /** Drops what is queued (a paused source). */
  clear(): void;
  /** Wakes the reader, to look at `stop` again (the source ended, failed or closed). */
  notify(): void;
  /**
   * The chunks in order; when none is queued, `stop()` says whether the source is over
   * (`true`: the reading ends) or failed (an Error: thrown), else the reader waits.
   */
  read(stop: () => boolean | Error): AsyncGenerator<AudioChunk>;
}

/**
 * The queue between a live source (the microphone, the app window) and its recognizer. Capture
 * never waits for recognition: when recognition falls `maxQueuedMs` behind, the oldest audio is
 * dropped (said once through `onWarning`) instead of memory growing.
 *
 * @example
 * const queue = createChunkQueue({ onWarning: report });
 * queue.push({ samples, atMs });
 * for await (const chunk of queue.read(() => closed)) vad.push(chunk.samples);
 */
export function createChunkQueue(options: ChunkQueueOptions = {}): ChunkQueue {
  const maxQueued = ((options.maxQueuedMs ?? 30_000) * RECOGNIZER_SAMPLE_RATE) / 1000;
  const queue: AudioChunk[] = [];
  let queuedSamples = 0;
  let droppedWarned = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  return {
    push(chunk) {
      queue.push(chunk);
      queuedSamples += chunk.samples.length;
      while (queuedSamples > maxQueued && queue.length > 1) {
        queuedSamples -= queue.shift()!.samples.length;
        if (!droppedWarned) {
          droppedWarned = true;
          options.onWarning?.(
            'Recognition is slower than real time: the oldest audio is being dropped.',
          );
        }
      }
      notify();
    },
    clear() {
      queue.length = 0;
      queuedSamples = 0;
    },
    notify,
    async *read(stop) {
      for (;;) {
        const next = queue.shift();
        if (next) {
          queuedSamples -= next.samples.length;
          yield next;
          continue;
        }
        const over = stop();
        if (over instanceof Error) throw over;
        if (over) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
  };
}
