/**
 * An Ogg Opus file written as the audio comes (RFC 7845): the OpusHead and OpusTags pages, then
 * pages of Opus packets flushed about every second and synced to the disk every few seconds, so
 * a crash loses at most the last seconds. A file that exists already goes on: a torn last page
 * is cut off and the same logical stream continues (same serial number, the next page sequence,
 * the granule position going on), so the file stays one stream a player can play and seek.
 */
import { type FileHandle, open } from 'node:fs/promises';
import { OGG_BEGIN, OGG_END, oggCrc, oggPage, oggResumePointOf } from './ogg-page.ts';

/** Opus counts time in 48 kHz samples whatever the input rate. */
export const OPUS_GRANULE_RATE = 48_000;
const MAX_PACKETS_PER_PAGE = 200;

/** Options of {@link openOggOpusWriter}. */
export interface OggOpusWriterOptions {
  /** The encoder's lookahead in 48 kHz samples (OpusHead's pre-skip) of a new file. */
  preSkip: number;
  /** The input's sample rate, noted in OpusHead. */
  inputSampleRate: number;
  /** A page is written once it holds this much audio (ms; default 1000). */
  pageMs?: number;
  /** The file is synced to the disk at most this often (ms; default 5000). */
  syncMs?: number;
  /** The vendor string of OpusTags. */
  vendor?: string;
  /** Serial number of a new stream (default: random). */
  serial?: number;
}

/** An open Ogg Opus file. */
export interface OggOpusWriter {
  /** The audio already in the file when it was opened (ms of playback), 0 for a new file. */
  readonly resumedMs: number;
  /** Adds one Opus packet of `samples48` samples at 48 kHz (960 for 20 ms). */
  add(packet: Uint8Array, samples48: number): Promise<void>;
  /** Writes the packets held so far as a page. */
  flush(): Promise<void>;
  /** Playback length of the audio added and held, ms. */
  durationMs(): number;
  /** Bytes in the file (pages written). */
  bytes(): number;
  /** Writes what is held as the stream's last page, syncs and closes. */
  close(): Promise<void>;
}

function opusHead(preSkip: number, inputSampleRate: number): Uint8Array {
  const head = new Uint8Array(19);
  const view = new DataView(head.buffer);
  head.set(new TextEncoder().encode('OpusHead'), 0);
  head[8] = 1; // version
  head[9] = 1; // channels
  view.setUint16(10, preSkip, true);
  view.setUint32(12, inputSampleRate, true);
  view.setInt16(16, 0, true); // output gain
  head[18] = 0; // channel mapping family
  return head;
}

function opusTags(vendor: string): Uint8Array {
  const vendorBytes = new TextEncoder().encode(vendor);
  const tags = new Uint8Array(8 + 4 + vendorBytes.length + 4);
  const view = new DataView(tags.buffer);
  tags.set(new TextEncoder().encode('OpusTags'), 0);
  view.setUint32(8, vendorBytes.length, true);
  tags.set(vendorBytes, 12);
  view.setUint32(12 + vendorBytes.length, 0, true);
  return tags;
}

/** The pre-skip of the OpusHead packet on a file's first page (0 when it is not there). */
async function preSkipOf(handle: FileHandle): Promise<number> {
  const first = new Uint8Array(28 + 19);
  const { bytesRead } = await handle.read(first, 0, first.length, 0);
  if (bytesRead < first.length) return 0;
  const head = first.subarray(28);
  if (new TextDecoder().decode(head.subarray(0, 8)) !== 'OpusHead') return 0;
  return new DataView(head.buffer, head.byteOffset).getUint16(10, true);
}

/**
 * Opens `path` to write an Ogg Opus stream: a new one, or the one the file holds, after its
 * last whole page.
 *
 * @example
 * const writer = await openOggOpusWriter(path, { preSkip: 312, inputSampleRate: 16000 });
 * await writer.add(packet, 960);
 * await writer.close();
 */
export async function openOggOpusWriter(
  path: string,
  options: OggOpusWriterOptions,
): Promise<OggOpusWriter> {
  const pageSamples = ((options.pageMs ?? 1000) * OPUS_GRANULE_RATE) / 1000;
  const syncMs = options.syncMs ?? 5000;
  const handle = await open(path, 'a+').then(async (probe) => {
    // 'a+' creates the file without truncating it; writes need positions, so reopen 'r+'.
    await probe.close();
    return open(path, 'r+');
  });
  let serial = options.serial ?? (Math.random() * 0xffffffff) >>> 0;
  let sequence = 0;
  let granule = 0n;
  let offset = 0;
  let preSkip = options.preSkip;
  let resumed = false;
  try {
    const point = await oggResumePointOf(handle);
    const filePreSkip = point && point.pages >= 2 ? await preSkipOf(handle) : 0;
    if (point && point.pages >= 2 && filePreSkip > 0) {
      resumed = true;
      serial = point.serial;
      sequence = point.nextSequence;
      granule = point.granule;
      offset = point.endOffset;
      preSkip = filePreSkip;
      await handle.truncate(offset);
      if (point.lastPageFlags & OGG_END) {
        // The stream was closed: its last page is no longer the last.
        const header = new Uint8Array(point.endOffset - point.lastPageOffset);
        await handle.read(header, 0, header.length, point.lastPageOffset);
        header[5] = point.lastPageFlags & ~OGG_END;
        new DataView(header.buffer).setUint32(22, 0, true);
        new DataView(header.buffer).setUint32(22, oggCrc(header), true);
        await handle.write(header, 0, header.length, point.lastPageOffset);
      }
    } else {
      await handle.truncate(0);
    }
  } catch (error) {
    await handle.close();
    throw error;
  }

  const write = async (page: Uint8Array) => {
    let done = 0;
    while (done < page.length) {
      const { bytesWritten } = await handle.write(page, done, page.length - done, offset + done);
      done += bytesWritten;
    }
    offset += page.length;
  };
  const page = (packets: Uint8Array[], flags: number, at: bigint) => {
    const bytes = oggPage(packets, { flags, granule: at, serial, sequence });
    sequence += 1;
    return bytes;
  };

  if (!resumed) {
    await write(page([opusHead(preSkip, options.inputSampleRate)], OGG_BEGIN, 0n));
    await write(page([opusTags(options.vendor ?? 'class-assistant')], 0, 0n));
    await handle.datasync();
  }
  const resumedMs = Math.max(0, Number(granule - BigInt(preSkip)) / (OPUS_GRANULE_RATE / 1000));

  let held: Uint8Array[] = [];
  let heldSamples = 0;
  let syncedAt = performance.now();
  let closed = false;

  const flushHeld = async (flags: number) => {
    if (held.length === 0 && flags === 0) return;
    granule += BigInt(heldSamples);
    const packets = held;
    held = [];
    heldSamples = 0;
    await write(page(packets, flags, granule));
    if (performance.now() - syncedAt >= syncMs) {
      syncedAt = performance.now();
      await handle.datasync();
    }
  };

  return {
    resumedMs,
    async add(packet, samples48) {
      if (closed) throw new Error('the audio file is closed');
      held.push(packet);
      heldSamples += samples48;
      const lacing = held.reduce((sum, item) => sum + Math.floor(item.length / 255) + 1, 0);
      if (heldSamples >= pageSamples || held.length >= MAX_PACKETS_PER_PAGE || lacing > 200) {
        await flushHeld(0);
      }
    },
    flush: () => flushHeld(0),
    durationMs: () =>
      Math.max(
        0,
        Number(granule + BigInt(heldSamples) - BigInt(preSkip)) / (OPUS_GRANULE_RATE / 1000),
      ),
    bytes: () => offset,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await flushHeld(OGG_END);
        await handle.datasync();
      } finally {
        await handle.close();
      }
    },
  };
}
