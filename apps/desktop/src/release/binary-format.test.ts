// Real binaries of every OS, from the backend's dependencies (test/support/package-files.ts).
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { packageFile } from '../../test/support/package-files.ts';
import { BINARY_HEADER_BYTES, describeBinaryKind, readBinaryKind } from './binary-format.ts';
import { PE_MACHINE } from './pe.ts';

async function head(path: string): Promise<Uint8Array> {
  return new Uint8Array(await readFile(path)).subarray(0, BINARY_HEADER_BYTES);
}

describe('readBinaryKind', () => {
  it('reads the format, CPU and Windows subsystem of real libraries of each OS', async () => {
    const cases: Array<[string, string, string]> = [
      ['vosk', 'lib/win-x86_64/libvosk.dll', 'PE x64 (console)'],
      ['naudiodon', 'portaudio/bin/portaudio_x64.dll', 'PE x64 (gui)'],
      ['vosk', 'lib/linux-x86_64/libvosk.so', 'ELF x64'],
      ['naudiodon', 'portaudio/bin_armhf/libportaudio.so.2', 'ELF arm'],
      ['vosk', 'lib/osx-universal/libvosk.dylib', 'Mach-O x64+arm64'],
      ['naudiodon', 'portaudio/bin/libportaudio.dylib', 'Mach-O ia32+x64'],
    ];
    for (const [name, path, expected] of cases) {
      expect(describeBinaryKind(readBinaryKind(await head(packageFile(name, path)))), path).toBe(
        expected,
      );
    }
  });

  it('tells a PE built for another CPU by its machine type', async () => {
    const dll = await head(packageFile('vosk', 'lib/win-x86_64/libwinpthread-1.dll'));
    const view = new DataView(dll.buffer, dll.byteOffset, dll.byteLength);
    view.setUint16(view.getUint32(0x3c, true) + 4, PE_MACHINE.arm64, true);
    expect(readBinaryKind(dll)).toEqual({
      format: 'pe',
      architectures: ['arm64'],
      subsystem: 'console',
    });
    view.setUint16(view.getUint32(0x3c, true) + 4, 0x1234, true);
    expect(readBinaryKind(dll)?.architectures).toEqual(['unknown (0x1234)']);
  });

  it('finds no binary in text, in text that starts with "MZ", or in a file too short to say', () => {
    const text = (value: string) => new TextEncoder().encode(value);
    expect(readBinaryKind(text('module.exports = require("./win32_x64/koffi.node");'))).toBe(
      undefined,
    );
    expect(readBinaryKind(text('MZ is how this note begins, and it goes on for a while.'))).toBe(
      undefined,
    );
    expect(readBinaryKind(text('\u007fELF'))).toBe(undefined);
    expect(describeBinaryKind(undefined)).toBe('no ELF, PE or Mach-O header');
  });
});
