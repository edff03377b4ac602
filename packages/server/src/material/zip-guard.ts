import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';

/** One entry of a ZIP central directory. */
export interface ZipEntryInfo {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
  /** Bit 0 of the general-purpose flags: the entry is encrypted. */
  encrypted: boolean;
}

/** Caps that keep a hostile archive from exhausting memory (zip bombs). */
export interface ZipLimits {
  /** Most entries an archive may have. */
  maxEntries: number;
  /** Most bytes all entries may declare once decompressed. */
  maxTotalUncompressed: number;
  /** Most bytes one entry may declare once decompressed. */
  maxEntryUncompressed: number;
  /**
   * Most bytes one XML part (`.xml`, `.rels`: what the readers parse) may declare once
   * decompressed (default 32 MiB; a 300-slide deck's largest part is well under 1 MiB).
   */
  maxXmlEntryUncompressed?: number;
  /**
   * Highest ratio of the declared unpacked total to the archive's size (default 100; real
   * documents compress 2-20 times). Checked once the total passes {@link RATIO_CHECK_FROM}.
   */
  maxRatio?: number;
}

/** Defaults: generous for real decks (hundreds of slides with media), far below a bomb. */
export const DEFAULT_ZIP_LIMITS: Required<ZipLimits> = {
  maxEntries: 20_000,
  maxTotalUncompressed: 1024 * 1024 * 1024,
  maxEntryUncompressed: 256 * 1024 * 1024,
  maxXmlEntryUncompressed: 32 * 1024 * 1024,
  maxRatio: 100,
};

/**
 * The compression ratio is only checked for archives unpacking to more than this: a few
 * megabytes hurt nobody, and a tiny document of repetitive XML may well compress 200 times.
 */
const RATIO_CHECK_FROM = 8 * 1024 * 1024;

/** True for the parts the readers parse (and so inflate whole). */
function isXmlPart(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.endsWith('.xml') || lower.endsWith('.rels');
}

const tooLarge = (message: string) =>
  new ServerError(
    'UPLOAD_ARCHIVE_TOO_LARGE',
    localized(
      `文件解压后过大（${message}），可能是压缩炸弹。`,
      `${message}; it may be a zip bomb.`,
    ),
  );

/**
 * Reads the central directory of a ZIP archive (ZIP64 included) without decompressing anything,
 * and refuses archives whose declared sizes, entry count or compression ratio exceed `limits`.
 * Declared sizes can lie, so readers must still cap what they inflate (`openOfficeZip` does).
 */
export function inspectZip(
  bytes: Uint8Array,
  limits: ZipLimits = DEFAULT_ZIP_LIMITS,
): ZipEntryInfo[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const corrupt = (why: string) =>
    new ServerError(
      'UPLOAD_CORRUPT',
      localized(
        `文件不是可读取的 Office 文档：${why}。`,
        `The file is not a readable Office document: ${why}.`,
      ),
    );
  // End of central directory: 22 bytes + a comment of up to 65535 bytes, at the very end.
  let eocd = -1;
  for (let offset = bytes.length - 22; offset >= Math.max(0, bytes.length - 22 - 65535); offset--) {
    if (view.getUint32(offset, true) === 0x06054b50) {
      eocd = offset;
      break;
    }
  }
  if (eocd < 0) throw corrupt('the ZIP directory is missing (truncated or damaged file)');
  let count = view.getUint16(eocd + 10, true);
  let directorySize = view.getUint32(eocd + 12, true);
  let directoryOffset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
    const locator = eocd - 20;
    if (locator < 0 || view.getUint32(locator, true) !== 0x07064b50) {
      throw corrupt('a ZIP64 archive without its locator');
    }
    const record = Number(view.getBigUint64(locator + 8, true));
    if (record + 56 > bytes.length || view.getUint32(record, true) !== 0x06064b50) {
      throw corrupt('a damaged ZIP64 directory record');
    }
    count = Number(view.getBigUint64(record + 32, true));
    directorySize = Number(view.getBigUint64(record + 40, true));
    directoryOffset = Number(view.getBigUint64(record + 48, true));
  }
  if (count > limits.maxEntries) {
    throw tooLarge(
      `The document holds ${count} archive entries (at most ${limits.maxEntries} are accepted)`,
    );
  }
  if (directoryOffset + directorySize > bytes.length) {
    throw corrupt('the ZIP directory points past the end of the file (truncated upload?)');
  }
  const maxXml = limits.maxXmlEntryUncompressed ?? DEFAULT_ZIP_LIMITS.maxXmlEntryUncompressed;
  const maxRatio = limits.maxRatio ?? DEFAULT_ZIP_LIMITS.maxRatio;
  const entries: ZipEntryInfo[] = [];
  let total = 0;
  let offset = directoryOffset;
  const decoder = new TextDecoder();
  for (let index = 0; index < count; index++) {
    if (offset + 46 > bytes.length || view.getUint32(offset, true) !== 0x02014b50) {
      throw corrupt('a damaged ZIP directory entry');
    }
    const flags = view.getUint16(offset + 8, true);
    let compressedSize = view.getUint32(offset + 20, true);
    let uncompressedSize = view.getUint32(offset + 24, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const name = decoder.decode(bytes.subarray(offset + 46, offset + 46 + nameLength));
    // ZIP64 extended information: the 0xFFFFFFFF fields follow in order.
    let extra = offset + 46 + nameLength;
    const extraEnd = extra + extraLength;
    while (extra + 4 <= extraEnd) {
      const id = view.getUint16(extra, true);
      const size = view.getUint16(extra + 2, true);
      if (id === 0x0001) {
        let field = extra + 4;
        if (uncompressedSize === 0xffffffff && field + 8 <= extra + 4 + size) {
          uncompressedSize = Number(view.getBigUint64(field, true));
          field += 8;
        }
        if (compressedSize === 0xffffffff && field + 8 <= extra + 4 + size) {
          compressedSize = Number(view.getBigUint64(field, true));
        }
      }
      extra += 4 + size;
    }
    if (uncompressedSize > limits.maxEntryUncompressed) {
      throw tooLarge(
        `The document entry ${name} would unpack to ${formatBytes(uncompressedSize)} (at most ${formatBytes(limits.maxEntryUncompressed)})`,
      );
    }
    if (isXmlPart(name) && uncompressedSize > maxXml) {
      throw tooLarge(
        `The document part ${name} would unpack to ${formatBytes(uncompressedSize)} (XML parts may have at most ${formatBytes(maxXml)})`,
      );
    }
    total += uncompressedSize;
    if (total > limits.maxTotalUncompressed) {
      throw tooLarge(
        `The document would unpack to more than ${formatBytes(limits.maxTotalUncompressed)}`,
      );
    }
    entries.push({ name, compressedSize, uncompressedSize, encrypted: (flags & 1) === 1 });
    offset = extraEnd + commentLength;
  }
  if (total > RATIO_CHECK_FROM && total > bytes.length * maxRatio) {
    throw tooLarge(
      `The document would unpack to ${formatBytes(total)}, ${Math.round(total / bytes.length)} times its size of ${formatBytes(bytes.length)} (at most ${maxRatio} times is accepted)`,
    );
  }
  return entries;
}

/** Formats a byte count for messages. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 * 1024) return `${(bytes / 1024 / 1024 / 1024).toFixed(1)} GiB`;
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}
