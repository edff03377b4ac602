import { describe, expect, it } from 'vitest';
import { peSubsystem, SUBSYSTEM, setPeSubsystem, withoutPeSignature } from './pe.ts';

/** A minimal PE image: MZ header, PE signature, COFF header, optional header, a signature. */
function image(magic: 0x10b | 0x20b, signature = true): Uint8Array {
  const size = 4096;
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  view.setUint16(0, 0x5a4d, true); // MZ
  view.setUint32(0x3c, 0x80, true); // e_lfanew
  view.setUint32(0x80, 0x00004550, true); // PE\0\0
  const optional = 0x80 + 24;
  view.setUint16(optional, magic, true);
  view.setUint16(optional + 68, SUBSYSTEM.console, true);
  if (signature) {
    const entry = optional + (magic === 0x20b ? 112 : 96) + 32;
    view.setUint32(entry, size - 512, true);
    view.setUint32(entry + 4, 512, true);
    bytes.fill(0xcc, size - 512);
  }
  return bytes;
}

describe('Windows executables', () => {
  it('switches a console program to the GUI subsystem (PE32+ and PE32)', () => {
    for (const magic of [0x20b, 0x10b] as const) {
      const exe = image(magic);
      expect(peSubsystem(exe)).toBe(SUBSYSTEM.console);
      setPeSubsystem(exe, SUBSYSTEM.gui);
      expect(peSubsystem(exe)).toBe(SUBSYSTEM.gui);
    }
  });

  it('drops the Authenticode signature at the end of the file', () => {
    for (const magic of [0x20b, 0x10b] as const) {
      const stripped = withoutPeSignature(image(magic));
      expect(stripped.byteLength).toBe(4096 - 512);
      expect(stripped.includes(0xcc)).toBe(false);
      const entry = 0x80 + 24 + (magic === 0x20b ? 112 : 96) + 32;
      expect(new DataView(stripped.buffer, stripped.byteOffset).getBigUint64(entry, true)).toBe(0n);
    }
    const unsigned = image(0x20b, false);
    expect(withoutPeSignature(unsigned)).toBe(unsigned);
  });

  it('refuses what is not a Windows executable', () => {
    expect(() =>
      peSubsystem(new TextEncoder().encode('\u007fELF not windows'.padEnd(128))),
    ).toThrow('not a Windows executable (no MZ header)');
    const noPe = image(0x20b);
    new DataView(noPe.buffer).setUint32(0x80, 0, true);
    expect(() => setPeSubsystem(noPe, SUBSYSTEM.gui)).toThrow('no PE signature');
  });
});
