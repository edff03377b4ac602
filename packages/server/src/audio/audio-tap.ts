/**
 * The audio a recognizer hears, handed on as it is delivered (the class's audio is kept from
 * it). One wrapper for every source — microphone, app window, system sound, a recording — so
 * that whatever the recognizer hears is what is kept, and nothing else: a paused source
 * delivers nothing.
 */
import type { AudioChunk, AudioSource } from './audio-source.ts';

/**
 * `source` with each chunk it delivers shown to `watch` first, everything else forwarded;
 * `positionAt`, when given, replaces the source's own. The one wrapper the tap and the
 * recording-position tracker both build on.
 */
export function watchChunks(
  source: AudioSource,
  watch: (chunk: AudioChunk) => void,
  positionAt?: (atMs: number) => number | undefined,
): AudioSource {
  const watched: AudioSource = {
    get info() {
      return source.info;
    },
    get level() {
      return source.level;
    },
    open: () => source.open(),
    chunks() {
      const inner = source.chunks();
      return {
        async *[Symbol.asyncIterator]() {
          for await (const chunk of inner) {
            watch(chunk);
            yield chunk;
          }
        },
      };
    },
    pause: () => source.pause(),
    resume: () => source.resume(),
    close: () => source.close(),
  };
  if (source.progress) watched.progress = () => source.progress!();
  const position =
    positionAt ?? (source.positionAt && ((atMs: number) => source.positionAt!(atMs)));
  if (position) watched.positionAt = position;
  return watched;
}

/**
 * `source` with each chunk it delivers given to `onAudio` first; `source` itself without one.
 *
 * @example
 * const source = tapAudio(createAudioSource(settings, dataDir), (chunk) => keeper.hear(chunk));
 */
export function tapAudio(
  source: AudioSource,
  onAudio: ((chunk: AudioChunk) => void) | undefined,
): AudioSource {
  return onAudio ? watchChunks(source, onAudio) : source;
}
