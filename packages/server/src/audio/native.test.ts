import { describe, expect, it } from 'vitest';
import { errorMessage, isServerError } from '../errors.ts';
import { libvoskPackage, voskLibraryFile } from './native.ts';

describe('libvosk per platform', () => {
  it('names the file of each platform a package carries it for', () => {
    expect(voskLibraryFile('linux', 'x64')).toMatch(/linux-x86_64[\\/]libvosk\.so$/);
    expect(voskLibraryFile('darwin', 'arm64')).toMatch(/osx-universal[\\/]libvosk\.dylib$/);
    expect(libvoskPackage('darwin', 'x64').name).toBe('@class-assistant/libvosk-darwin-universal');
  });

  it('tells a 64-bit ARM Linux machine, in both languages, which engine to use instead', () => {
    let caught: unknown;
    try {
      voskLibraryFile('linux', 'arm64');
    } catch (error) {
      caught = error;
    }
    expect(isServerError(caught) && caught.code).toBe('NATIVE_MODULE_MISSING');
    if (!isServerError(caught)) return;
    expect(errorMessage(caught, 'en')).toContain('linux-arm64');
    expect(errorMessage(caught, 'en')).toContain('LOCAL_ASR_ENGINE=sherpa');
    expect(errorMessage(caught, 'zh')).toContain('sherpa-onnx 离线引擎');
  });
});
