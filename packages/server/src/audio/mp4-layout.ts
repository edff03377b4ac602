/**
 * The order in which an MP4/M4A/MOV file's bytes are fed to a streaming decoder so that it never
 * holds the whole file. A decoder needs the `moov` box (the sample tables) before it can place a
 * single sample; most phone and ffmpeg recordings write it after the media (`mdat`), which would
 * make a streaming decoder keep everything until the end. Here the top-level boxes are walked
 * with small random-access reads, and when `moov` comes after the media the decoder reads a
 * virtual file instead: [moov, its chunk offsets moved] + [the bytes before moov] + [the bytes
 * after it]. Bytes before moov move by moov's size; bytes after it keep their offset.
 */
import type { FileHandle } from 'node:fs/promises';

/** What to feed: `head` first (moov and what precedes it, or moov alone), then `ranges` of the file. */
export interface Mp4Plan {
  head: Uint8Array;
  /** [start, end) byte ranges of the file, in feeding order, after `head`. */
  ranges: Array<[number, number]>;
  /** The movie's length from its header, when it states one. */
  durationMs: number | undefined;
  /** True when moov came after the media and was moved to the front. */
  moved: boolean;
}

/** Why a file cannot be planned, in the file's own terms. */
class Mp4LayoutError extends Error {
  readonly code = 'MP4_LAYOUT';
}

/** The largest moov read into memory (a 3-hour video's tables are a few MB). */
const MAX_MOOV_BYTES = 256 * 1024 * 1024;

const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl']);

const type4 = (bytes: Uint8Array, at: number): string =>
  String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);

async function readAt(handle: FileHandle, offset: number, length: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(length);
  const { bytesRead } = await handle.read(bytes, 0, length, offset);
  return bytes.subarray(0, bytesRead);
}

/**
 * Plans the feeding of an ISO BMFF file of `size` bytes; throws {@link Mp4LayoutError} when the
 * file has no moov (an interrupted recording), is cut inside its boxes, or when moving moov
 * would push a 32-bit chunk offset past 4 GiB.
 */
export async function planMp4(handle: FileHandle, size: number): Promise<Mp4Plan> {
  let offset = 0;
  let media: number | undefined; // start of the first mdat/moof
  while (offset + 8 <= size) {
    const header = await readAt(handle, offset, 16);
    const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
    const type = type4(header, 4);
    let length = view.getUint32(0);
    if (length === 1) {
      if (header.length < 16) throw new Mp4LayoutError(`box ${type} at ${offset} is cut short`);
      length = view.getUint32(8) * 2 ** 32 + view.getUint32(12);
    } else if (length === 0) length = size - offset;
    if (length < 8) throw new Mp4LayoutError(`box "${type}" at ${offset} has a size of ${length}`);
    const end = offset + length;
    if (type === 'moov') {
      if (end > size) throw new Mp4LayoutError(`the moov box at ${offset} is cut short`);
      if (length > MAX_MOOV_BYTES) throw new Mp4LayoutError(`the moov box is ${length} bytes`);
      if (media === undefined) {
        // Tables first (faststart, fragmented): the file streams as it is.
        const head = await readAt(handle, 0, end);
        return {
          head,
          ranges: end < size ? [[end, size]] : [],
          durationMs: movieDuration(head.subarray(offset, end)),
          moved: false,
        };
      }
      const moov = await readAt(handle, offset, length);
      moveChunkOffsets(moov, offset, length);
      const ranges: Array<[number, number]> = [[0, offset]];
      if (end < size) ranges.push([end, size]);
      return { head: moov, ranges, durationMs: movieDuration(moov), moved: true };
    }
    if ((type === 'mdat' || type === 'moof') && media === undefined) media = offset;
    offset = end;
  }
  throw new Mp4LayoutError(
    media === undefined
      ? 'no moov box (no audio or video tables)'
      : 'no moov box after the media: the recording was not finished (the app that wrote it stopped before closing the file)',
  );
}

/**
 * The length in ms of the sound track (its mdhd), else of the movie (mvhd): a video's picture
 * may run longer than its sound.
 */
function movieDuration(moov: Uint8Array): number | undefined {
  const view = new DataView(moov.buffer, moov.byteOffset, moov.byteLength);
  const header = (at: number): number | undefined => {
    const version = moov[at + 8];
    const scale = view.getUint32(at + (version === 1 ? 28 : 20));
    const duration =
      version === 1
        ? view.getUint32(at + 32) * 2 ** 32 + view.getUint32(at + 36)
        : view.getUint32(at + 24);
    return scale > 0 && duration > 0 && duration < 0xffffffff
      ? (duration / scale) * 1000
      : undefined;
  };
  let movie: number | undefined;
  let sound: number | undefined;
  const walk = (
    start: number,
    end: number,
    track: { handler?: string; media?: number | undefined },
  ) => {
    let at = start;
    while (at + 8 <= end) {
      const length = view.getUint32(at);
      if (length < 8 || at + length > end) return;
      const type = type4(moov, at + 4);
      if (type === 'trak') {
        const found: { handler?: string; media?: number | undefined } = {};
        walk(at + 8, at + length, found);
        if (found.handler === 'soun' && found.media !== undefined) sound ??= found.media;
      } else if (type === 'mdia') walk(at + 8, at + length, track);
      else if (type === 'mvhd') movie = header(at);
      else if (type === 'mdhd') track.media = header(at);
      else if (type === 'hdlr') track.handler = type4(moov, at + 16);
      at += length;
    }
  };
  walk(8, moov.length, {});
  return sound ?? movie;
}

/**
 * Rewrites, in place, every chunk offset (stco, co64) of every track for moov moved in front of
 * the file: offsets before `moovStart` grow by `moovLength`, later ones stay.
 */
function moveChunkOffsets(moov: Uint8Array, moovStart: number, moovLength: number): void {
  const view = new DataView(moov.buffer, moov.byteOffset, moov.byteLength);
  const walk = (start: number, end: number): void => {
    let at = start;
    while (at + 8 <= end) {
      const length = view.getUint32(at);
      if (length < 8 || at + length > end) return;
      const type = type4(moov, at + 4);
      if (CONTAINERS.has(type)) walk(at + 8, at + length);
      else if (type === 'stco') {
        const count = view.getUint32(at + 12);
        for (let index = 0; index < count && at + 20 + index * 4 <= at + length; index++) {
          const entry = at + 16 + index * 4;
          const value = view.getUint32(entry);
          if (value >= moovStart) continue;
          const moved = value + moovLength;
          if (moved > 0xffffffff) {
            throw new Mp4LayoutError(
              `moving the moov box in front would push a 32-bit chunk offset (${value}) past 4 GiB`,
            );
          }
          view.setUint32(entry, moved);
        }
      } else if (type === 'co64') {
        const count = view.getUint32(at + 12);
        for (let index = 0; index < count && at + 24 + index * 8 <= at + length; index++) {
          const entry = at + 16 + index * 8;
          const value = view.getUint32(entry) * 2 ** 32 + view.getUint32(entry + 4);
          if (value >= moovStart) continue;
          const moved = value + moovLength;
          view.setUint32(entry, Math.floor(moved / 2 ** 32));
          view.setUint32(entry + 4, moved % 2 ** 32);
        }
      }
      at += length;
    }
  };
  walk(8, moov.length);
}
