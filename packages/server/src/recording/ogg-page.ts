/**
 * Ogg pages (RFC 3533): building one from its packets, and walking the pages of a file to find
 * where an unfinished stream can go on — the end of its last whole page, its serial number, the
 * next page sequence number and the granule position reached. A page whose checksum does not
 * match (torn by a crash in the middle of a write) and everything after it are not counted.
 */
import type { FileHandle } from 'node:fs/promises';

/** Header type flags of a page. */
export const OGG_BEGIN = 0x02;
export const OGG_END = 0x04;

const CAPTURE = [0x4f, 0x67, 0x67, 0x53]; // "OggS"
const HEADER_BYTES = 27;
const MAX_SEGMENTS = 255;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i += 1) {
    let r = i << 24;
    for (let bit = 0; bit < 8; bit += 1) {
      r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    }
    table[i] = r >>> 0;
  }
  return table;
})();

/** The Ogg checksum (CRC-32, polynomial 0x04c11db7, not reflected, starting at 0) of `bytes`. */
export function oggCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (let i = 0; i < bytes.length; i += 1) {
    crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ bytes[i]!) & 0xff]!) >>> 0;
  }
  return crc >>> 0;
}

/** The lacing values of packets that fit one page (at most 255 of them). */
function lacingOf(packetLengths: readonly number[]): number[] {
  const lacing: number[] = [];
  for (const length of packetLengths) {
    let left = length;
    while (left >= 255) {
      lacing.push(255);
      left -= 255;
    }
    lacing.push(left);
  }
  if (lacing.length > MAX_SEGMENTS) {
    throw new RangeError(
      `an Ogg page holds at most ${MAX_SEGMENTS} segments, not ${lacing.length}`,
    );
  }
  return lacing;
}

/** What an Ogg page says of itself. */
export interface PageFields {
  flags: number;
  granule: bigint;
  serial: number;
  sequence: number;
}

/**
 * One page holding whole `packets` (each ends on this page).
 *
 * @example
 * oggPage([opusHead], { flags: OGG_BEGIN, granule: 0n, serial: 1, sequence: 0 });
 */
export function oggPage(packets: readonly Uint8Array[], fields: PageFields): Uint8Array {
  const lacing = lacingOf(packets.map((packet) => packet.length));
  const bodyLength = packets.reduce((sum, packet) => sum + packet.length, 0);
  const page = new Uint8Array(HEADER_BYTES + lacing.length + bodyLength);
  const view = new DataView(page.buffer);
  page.set(CAPTURE, 0);
  page[4] = 0; // version
  page[5] = fields.flags;
  view.setBigInt64(6, fields.granule, true);
  view.setUint32(14, fields.serial, true);
  view.setUint32(18, fields.sequence, true);
  page[26] = lacing.length;
  page.set(lacing, HEADER_BYTES);
  let at = HEADER_BYTES + lacing.length;
  for (const packet of packets) {
    page.set(packet, at);
    at += packet.length;
  }
  view.setUint32(22, oggCrc(page), true);
  return page;
}

/** Where a stream in a file can go on. */
export interface OggResumePoint {
  /** The end of the last whole page (bytes after it are a torn page or junk). */
  endOffset: number;
  /** The offset of the last whole page, and its header type flags (to clear an end flag). */
  lastPageOffset: number;
  lastPageFlags: number;
  serial: number;
  /** The sequence number for the next page. */
  nextSequence: number;
  /** The granule position of the last page that has one (0 when only headers). */
  granule: bigint;
  /** Whole pages found. */
  pages: number;
}

/** A page's length when a whole page with a matching checksum starts at `at`; else 0. */
function wholePageAt(bytes: Uint8Array, at: number): number {
  if (bytes.length - at < HEADER_BYTES) return 0;
  for (let i = 0; i < 4; i += 1) if (bytes[at + i] !== CAPTURE[i]) return 0;
  if (bytes[at + 4] !== 0) return 0;
  const segments = bytes[at + 26]!;
  if (bytes.length - at < HEADER_BYTES + segments) return 0;
  let body = 0;
  for (let i = 0; i < segments; i += 1) body += bytes[at + HEADER_BYTES + i]!;
  const length = HEADER_BYTES + segments + body;
  if (bytes.length - at < length) return 0;
  // A copy (a Buffer's slice would share memory), its checksum field zeroed to check it.
  const page = new Uint8Array(length);
  page.set(bytes.subarray(at, at + length));
  const view = new DataView(page.buffer);
  const stored = view.getUint32(22, true);
  view.setUint32(22, 0, true);
  return oggCrc(page) === stored ? length : 0;
}

/**
 * Walks the pages of one logical stream from the start of `bytes` and tells where it can go on;
 * `null` when not even the first page is whole (nothing worth keeping).
 */
export function oggResumePoint(bytes: Uint8Array): OggResumePoint | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  let point = null as OggResumePoint | null;
  for (;;) {
    const length = wholePageAt(bytes, at);
    if (length === 0) break;
    const serial = view.getUint32(at + 14, true);
    if (point && serial !== point.serial) break;
    const granule = view.getBigInt64(at + 6, true);
    point = {
      endOffset: at + length,
      lastPageOffset: at,
      lastPageFlags: bytes[at + 5]!,
      serial,
      nextSequence: view.getUint32(at + 18, true) + 1,
      granule: granule >= 0n ? granule : (point?.granule ?? 0n),
      pages: (point?.pages ?? 0) + 1,
    };
    at += length;
  }
  return point;
}

/** {@link oggResumePoint} of a file open for reading. */
export async function oggResumePointOf(handle: FileHandle): Promise<OggResumePoint | null> {
  const { size } = await handle.stat();
  const bytes = new Uint8Array(size);
  let read = 0;
  while (read < size) {
    const { bytesRead } = await handle.read(bytes, read, size - read, read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return oggResumePoint(bytes.subarray(0, read));
}
