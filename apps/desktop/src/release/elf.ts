// The library search path (DT_RUNPATH, or the older DT_RPATH) a 64-bit little-endian ELF shared
// object carries, read and rewritten in place. node-gyp links naudiodon's addon against the
// PortAudio beside it with that folder's absolute path on the build machine; in a release the
// addon must look in its own folder (`$ORIGIN`) instead, wherever the release was unpacked.

const PT_LOAD = 1;
const PT_DYNAMIC = 2;
const DT_NULL = 0n;
const DT_STRTAB = 5n;
const DT_RPATH = 15n;
const DT_RUNPATH = 29n;

interface SearchPath {
  /** File offset of the path string in the dynamic string table. */
  offset: number;
  /** Its length in bytes, without the terminating NUL. */
  length: number;
  value: string;
}

function searchPathOf(image: Uint8Array): SearchPath | undefined {
  const view = new DataView(image.buffer, image.byteOffset, image.byteLength);
  if (image.byteLength < 64 || view.getUint32(0, false) !== 0x7f454c46) {
    throw new Error('not an ELF file');
  }
  if (view.getUint8(4) !== 2 || view.getUint8(5) !== 1) {
    throw new Error('not a 64-bit little-endian ELF file');
  }
  const programHeaders = Number(view.getBigUint64(32, true));
  const entrySize = view.getUint16(54, true);
  const count = view.getUint16(56, true);
  const segments: Array<{ type: number; offset: number; address: number; size: number }> = [];
  for (let index = 0; index < count; index++) {
    const at = programHeaders + index * entrySize;
    if (at + 56 > image.byteLength) throw new Error('truncated ELF program headers');
    segments.push({
      type: view.getUint32(at, true),
      offset: Number(view.getBigUint64(at + 8, true)),
      address: Number(view.getBigUint64(at + 16, true)),
      size: Number(view.getBigUint64(at + 32, true)),
    });
  }
  const dynamic = segments.find((segment) => segment.type === PT_DYNAMIC);
  if (!dynamic) return undefined;
  let stringTable: number | undefined;
  let path: number | undefined;
  for (let at = dynamic.offset; at + 16 <= dynamic.offset + dynamic.size; at += 16) {
    const tag = view.getBigInt64(at, true);
    if (tag === DT_NULL) break;
    const value = Number(view.getBigUint64(at + 8, true));
    if (tag === DT_STRTAB) stringTable = value;
    // DT_RUNPATH wins over DT_RPATH, as in the dynamic loader.
    else if (tag === DT_RUNPATH || (tag === DT_RPATH && path === undefined)) path = value;
  }
  if (stringTable === undefined || path === undefined) return undefined;
  // DT_STRTAB is an address: the loaded segment holding it says where that is in the file.
  const address = stringTable;
  const segment = segments.find(
    (entry) =>
      entry.type === PT_LOAD && address >= entry.address && address < entry.address + entry.size,
  );
  if (!segment) throw new Error('the ELF string table is in no loaded segment');
  const offset = segment.offset + (address - segment.address) + path;
  const end = image.indexOf(0, offset);
  if (end < 0) throw new Error('unterminated ELF search path');
  return {
    offset,
    length: end - offset,
    value: new TextDecoder().decode(image.subarray(offset, end)),
  };
}

/** The library search path of an ELF shared object, or undefined when it has none. */
export function elfSearchPath(image: Uint8Array): string | undefined {
  return searchPathOf(image)?.value;
}

/**
 * Rewrites the library search path in place to `path` (padded with NULs), which must not be
 * longer than the one there. Returns the old path; undefined (and nothing changed) when there is
 * none.
 */
export function setElfSearchPath(image: Uint8Array, path: string): string | undefined {
  const current = searchPathOf(image);
  if (!current) return undefined;
  const bytes = new TextEncoder().encode(path);
  if (bytes.byteLength > current.length) {
    throw new Error(
      `the new search path "${path}" is longer than the one in the file ("${current.value}")`,
    );
  }
  image.fill(0, current.offset, current.offset + current.length);
  image.set(bytes, current.offset);
  return current.value;
}
