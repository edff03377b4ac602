/**
 * Where a file source's audio lies in the recording. Chunks carry times on the class clock,
 * which runs on through pauses (so lines either side of a pause are never joined); a line of a
 * recording is stamped with its position in the file instead. The tracker watches the chunks go
 * by and keeps one anchor per stretch of audio delivered without a break: a jump in the class
 * clock is a pause, and the position carries on where it stopped.
 */
import type { AudioChunk, AudioSource } from './audio-source.ts';
import { watchChunks } from './audio-tap.ts';
import { RECOGNIZER_SAMPLE_RATE } from './pcm.ts';

/** The start of a stretch of audio delivered without a pause. */
interface Anchor {
  atMs: number;
  positionMs: number;
}

/** A class clock jumping further than this between chunks is a pause. */
const JUMP_TOLERANCE_MS = 1;

/** Maps the class clock of a file source's chunks to positions in the recording. */
export interface RecordingPositions {
  /**
   * Notes a chunk as it is delivered. `endPositionMs`: the source's own position just past this
   * chunk (its `progress()`); read at the first chunk, so a source that starts later in the file
   * (a resumed import) counts from there.
   */
  note(chunk: AudioChunk, endPositionMs?: number): void;
  /**
   * The position in the recording (ms) of class-clock time `atMs`; a time inside a pause is the
   * position the pause held. `undefined` before the first chunk.
   */
  positionAt(atMs: number): number | undefined;
  /** The position just past the audio delivered so far (0 before the first chunk). */
  reachedMs(): number;
}

/**
 * Creates a {@link RecordingPositions}.
 *
 * @example
 * const positions = createRecordingPositions();
 * for await (const chunk of source.chunks()) positions.note(chunk, source.progress?.().positionMs);
 * positions.positionAt(segment.startMs); // → ms into the file
 */
export function createRecordingPositions(): RecordingPositions {
  const anchors: Anchor[] = [];
  let expectedAtMs = 0;
  let reached = 0;
  return {
    note(chunk, endPositionMs) {
      const durationMs = (chunk.samples.length / RECOGNIZER_SAMPLE_RATE) * 1000;
      if (anchors.length === 0) {
        const start =
          endPositionMs !== undefined && Number.isFinite(endPositionMs)
            ? Math.max(0, endPositionMs - durationMs)
            : 0;
        anchors.push({ atMs: chunk.atMs, positionMs: start });
        reached = start;
      } else if (Math.abs(chunk.atMs - expectedAtMs) > JUMP_TOLERANCE_MS) {
        anchors.push({ atMs: chunk.atMs, positionMs: reached });
      }
      expectedAtMs = chunk.atMs + durationMs;
      reached += durationMs;
    },
    positionAt(atMs) {
      if (anchors.length === 0) return undefined;
      // Pauses are few: search from the newest anchor back.
      let index = anchors.length - 1;
      while (index > 0 && anchors[index]!.atMs > atMs) index -= 1;
      const anchor = anchors[index]!;
      const position = anchor.positionMs + Math.max(0, atMs - anchor.atMs);
      const next = anchors[index + 1];
      return Math.min(position, next ? next.positionMs : reached);
    },
    reachedMs: () => reached,
  };
}

/**
 * The source with {@link AudioSource.positionAt} for the file it plays: its chunks are watched
 * as they go by, so any file source gets it, whatever decodes the file. A source with its own
 * `positionAt` is returned as it is; for a live source `positionAt` answers `undefined`.
 */
export function trackRecordingPosition(source: AudioSource): AudioSource {
  if (source.positionAt) return source;
  const positions = createRecordingPositions();
  return watchChunks(
    source,
    (chunk) => {
      if (source.info?.kind === 'file') positions.note(chunk, source.progress?.().positionMs);
    },
    (atMs) => (source.info?.kind === 'file' ? positions.positionAt(atMs) : undefined),
  );
}
