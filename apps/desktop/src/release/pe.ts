// Reading and editing Windows executables and DLLs (PE) on any OS, so the Windows release is
// assembled and checked on Linux too: the machine type and subsystem a file declares, dropping
// node.exe's Authenticode signature before the SEA blob is injected (the injection invalidates it;
// a stale signature is worse than none), and marking the launcher a GUI program so
// double-clicking it opens no console window.

/** Windows subsystems of the PE optional header. */
export const SUBSYSTEM = { gui: 2, console: 3 } as const;

/** Machine types of the COFF header (the CPU a PE file is built for). */
export const PE_MACHINE = { ia32: 0x14c, x64: 0x8664, arm: 0x1c4, arm64: 0xaa64 } as const;

interface PeHeader {
  /** Offset of the COFF file header (just after the `PE\0\0` signature). */
  coff: number;
  /** Offset of the optional header. */
  optional: number;
  /** 0x10b (PE32) or 0x20b (PE32+). */
  magic: number;
}

function header(image: Uint8Array): PeHeader {
  const view = new DataView(image.buffer, image.byteOffset, image.byteLength);
  if (image.byteLength < 0x40 || view.getUint16(0, true) !== 0x5a4d) {
    throw new Error('not a Windows executable (no MZ header)');
  }
  const peOffset = view.getUint32(0x3c, true);
  if (peOffset + 24 > image.byteLength || view.getUint32(peOffset, true) !== 0x00004550) {
    throw new Error('not a Windows executable (no PE signature)');
  }
  const optional = peOffset + 24;
  if (optional + 70 > image.byteLength) throw new Error('truncated PE optional header');
  const magic = view.getUint16(optional, true);
  if (magic !== 0x10b && magic !== 0x20b)
    throw new Error(`unknown PE optional header 0x${magic.toString(16)}`);
  return { coff: peOffset + 4, optional, magic };
}

/** The machine type of a PE image ({@link PE_MACHINE}). */
export function peMachine(image: Uint8Array): number {
  const { coff } = header(image);
  return new DataView(image.buffer, image.byteOffset, image.byteLength).getUint16(coff, true);
}

/** The subsystem of a PE image (2 GUI, 3 console). */
export function peSubsystem(image: Uint8Array): number {
  const { optional } = header(image);
  return new DataView(image.buffer, image.byteOffset, image.byteLength).getUint16(
    optional + 68,
    true,
  );
}

/** Sets the subsystem in place (the field sits at the same offset in PE32 and PE32+). */
export function setPeSubsystem(image: Uint8Array, subsystem: number): void {
  const { optional } = header(image);
  new DataView(image.buffer, image.byteOffset, image.byteLength).setUint16(
    optional + 68,
    subsystem,
    true,
  );
}

/**
 * Removes the Authenticode signature: clears the certificate-table directory entry and returns
 * the image without the certificate bytes when they sit at the end (as signtool puts them).
 */
export function withoutPeSignature(image: Uint8Array): Uint8Array {
  const { optional, magic } = header(image);
  const view = new DataView(image.buffer, image.byteOffset, image.byteLength);
  // Data directories start at 96 (PE32) or 112 (PE32+); the certificate table is entry 4.
  const entry = optional + (magic === 0x20b ? 112 : 96) + 4 * 8;
  const offset = view.getUint32(entry, true);
  const size = view.getUint32(entry + 4, true);
  if (offset === 0 || size === 0) return image;
  view.setUint32(entry, 0, true);
  view.setUint32(entry + 4, 0, true);
  return offset + size >= image.byteLength ? image.subarray(0, offset) : image;
}
