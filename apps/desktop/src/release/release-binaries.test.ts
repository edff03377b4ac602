// The release's binary check on release trees made of real binaries of each OS (from the
// backend's dependencies), read from a folder and from the zip.
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageFile } from '../../test/support/package-files.ts';
import { PE_MACHINE } from './pe.ts';
import {
  checkReleaseBinaries,
  filesInFolder,
  filesInZip,
  isReleaseBinaryError,
  type ReleaseBinary,
} from './release-binaries.ts';
import type { ReleaseTarget } from './targets.ts';
import { writeReleaseZip } from './zip.ts';

const WINDOWS_GUI_DLL = packageFile('naudiodon', 'portaudio/bin/portaudio_x64.dll');
const WINDOWS_CONSOLE_DLL = packageFile('vosk', 'lib/win-x86_64/libwinpthread-1.dll');
const LINUX_X64_SO = packageFile('naudiodon', 'portaudio/bin/libportaudio.so.2');
const LINUX_ARM_SO = packageFile('naudiodon', 'portaudio/bin_armhf/libportaudio.so.2');
const MAC_DYLIB = packageFile('naudiodon', 'portaudio/bin/libportaudio.dylib');
/** libvosk for macOS: one universal file holding x86_64 and arm64 code. */
const MAC_UNIVERSAL_DYLIB = packageFile('vosk', 'lib/osx-universal/libvosk.dylib');
/** sherpa-onnx's Linux x64 addon and onnxruntime, as pnpm installed them beside sherpa-onnx-node. */
const LINUX_SHERPA_ADDON = packageFile(
  'sherpa-onnx-node',
  '../sherpa-onnx-linux-x64/sherpa-onnx.node',
);
const LINUX_ONNXRUNTIME = packageFile(
  'sherpa-onnx-node',
  '../sherpa-onnx-linux-x64/libonnxruntime.so',
);

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

/** A release folder with `files` (release path -> real file to copy, or text). */
async function releaseTree(files: Record<string, string | { text: string }>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'desktop-binaries-'));
  folders.push(root);
  for (const [path, source] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    if (typeof source === 'string') await copyFile(source, join(root, path));
    else await writeFile(join(root, path), source.text);
  }
  return root;
}

/** The right Windows release: GUI launcher, console backend, Windows libraries, no others. */
const WINDOWS_RELEASE = {
  'ClassAssistant.exe': WINDOWS_GUI_DLL,
  'backend/class-assistant-backend.exe': WINDOWS_CONSOLE_DLL,
  'backend/node_modules/vosk/lib/win-x86_64/libwinpthread-1.dll': WINDOWS_CONSOLE_DLL,
  'backend/node_modules/@koromix/koffi-win32-x64/index.js': {
    text: "module.exports = require('./win32_x64/koffi.node');\n",
  },
  'backend/node_modules/sherpa-onnx-win-x64/sherpa-onnx.node': WINDOWS_CONSOLE_DLL,
  'backend/node_modules/sherpa-onnx-node/addon-static-import.js': {
    text: "addon = require('../sherpa-onnx-win-x64/sherpa-onnx.node');\n",
  },
  'backend/ui/index.html': { text: '<div id="app"></div>\n' },
  'README.txt': { text: 'MZ-style notes are not a binary.\n' },
};

/** The check's error for `files` on `target`, or a failure when it passes. */
async function rejection(root: string, target: ReleaseTarget) {
  try {
    await checkReleaseBinaries(filesInFolder(root), target);
  } catch (error) {
    if (isReleaseBinaryError(error)) return error;
    throw error;
  }
  throw new Error('the check passed');
}

describe('checkReleaseBinaries', () => {
  it('passes a Windows release of Windows x64 binaries and lists each one, in the folder and the zip', async () => {
    const root = await releaseTree(WINDOWS_RELEASE);
    const expected: ReleaseBinary[] = [
      {
        path: 'ClassAssistant.exe',
        kind: { format: 'pe', architectures: ['x64'], subsystem: 'gui' },
      },
      {
        path: 'backend/class-assistant-backend.exe',
        kind: { format: 'pe', architectures: ['x64'], subsystem: 'console' },
      },
      {
        path: 'backend/node_modules/sherpa-onnx-win-x64/sherpa-onnx.node',
        kind: { format: 'pe', architectures: ['x64'], subsystem: 'console' },
      },
      {
        path: 'backend/node_modules/vosk/lib/win-x86_64/libwinpthread-1.dll',
        kind: { format: 'pe', architectures: ['x64'], subsystem: 'console' },
      },
    ];
    expect(await checkReleaseBinaries(filesInFolder(root), 'win-x64')).toEqual(expected);
    const zip = join(root, '..', `${root.split(/[\\/]/).pop()}.zip`);
    folders.push(zip);
    await writeReleaseZip(root, zip, 'ClassAssistant-1.2.0');
    expect(await checkReleaseBinaries(filesInZip(zip), 'win-x64')).toEqual(expected);
  });

  it('fails a Windows release holding a Linux .so, naming the file', async () => {
    const root = await releaseTree({
      ...WINDOWS_RELEASE,
      'backend/node_modules/naudiodon/build/Release/libportaudio.so.2': LINUX_X64_SO,
    });
    const error = await rejection(root, 'win-x64');
    expect(error.code).toBe('RELEASE_WRONG_BINARY');
    expect(error.message).toBe(
      'the win-x64 release has a wrong binary:\n  backend/node_modules/naudiodon/build/Release/libportaudio.so.2 is ELF x64; win-x64 needs PE x64',
    );
  });

  it("fails a Windows release carrying this machine's sherpa-onnx addon and onnxruntime", async () => {
    const root = await releaseTree({
      ...WINDOWS_RELEASE,
      'backend/node_modules/sherpa-onnx-win-x64/sherpa-onnx.node': LINUX_SHERPA_ADDON,
      'backend/node_modules/sherpa-onnx-linux-x64/libonnxruntime.so': LINUX_ONNXRUNTIME,
    });
    const error = await rejection(root, 'win-x64');
    expect(error.message.split('\n').slice(1)).toEqual([
      '  backend/node_modules/sherpa-onnx-linux-x64/libonnxruntime.so is ELF x64; win-x64 needs PE x64',
      '  backend/node_modules/sherpa-onnx-win-x64/sherpa-onnx.node is ELF x64; win-x64 needs PE x64',
    ]);
  });

  it('fails a Windows DLL built for another CPU, a macOS library and a .node that is no binary', async () => {
    const arm64 = join(await releaseTree({}), 'arm64.dll');
    const dll = new Uint8Array(await readFile(WINDOWS_CONSOLE_DLL));
    const view = new DataView(dll.buffer);
    view.setUint16(view.getUint32(0x3c, true) + 4, PE_MACHINE.arm64, true);
    await writeFile(arm64, dll);
    const root = await releaseTree({
      ...WINDOWS_RELEASE,
      'backend/node_modules/vosk/lib/win-x86_64/libvosk.dll': arm64,
      'backend/node_modules/naudiodon/portaudio/bin/libportaudio.dylib': MAC_DYLIB,
      'backend/node_modules/koffi/build/koffi.node': { text: 'not compiled' },
    });
    const error = await rejection(root, 'win-x64');
    expect(error.message.split('\n').slice(1)).toEqual([
      '  backend/node_modules/koffi/build/koffi.node is no binary (no ELF, PE or Mach-O header); win-x64 needs PE x64',
      '  backend/node_modules/naudiodon/portaudio/bin/libportaudio.dylib is Mach-O ia32+x64; win-x64 needs PE x64',
      '  backend/node_modules/vosk/lib/win-x86_64/libvosk.dll is PE arm64 (console); win-x64 needs PE x64',
    ]);
    // The right ones are listed too, without a problem.
    expect(error.binaries.filter((binary) => !binary.problem)).toHaveLength(4);
  });

  it('fails a Windows launcher that would open a console window, and a missing backend', async () => {
    const { 'backend/class-assistant-backend.exe': _backend, ...withoutBackend } = WINDOWS_RELEASE;
    const root = await releaseTree({
      ...withoutBackend,
      'ClassAssistant.exe': WINDOWS_CONSOLE_DLL,
    });
    const error = await rejection(root, 'win-x64');
    expect(error.message).toBe(
      'the win-x64 release has 2 wrong binaries:\n  ClassAssistant.exe is PE x64 (console); win-x64 needs PE x64 (gui)\n  backend/class-assistant-backend.exe is missing',
    );
  });

  it('checks a Linux release the same way, also binaries without a telling name', async () => {
    const linux = {
      'class-assistant': LINUX_X64_SO,
      'backend/class-assistant-backend': LINUX_X64_SO,
      'backend/node_modules/naudiodon/build/Release/libportaudio.so.2': LINUX_X64_SO,
      'backend/node_modules/sherpa-onnx-linux-x64/sherpa-onnx.node': LINUX_SHERPA_ADDON,
      'backend/node_modules/sherpa-onnx-linux-x64/libonnxruntime.so': LINUX_ONNXRUNTIME,
    };
    expect(
      (await checkReleaseBinaries(filesInFolder(await releaseTree(linux)), 'linux-x64')).map(
        (binary) => binary.path,
      ),
    ).toEqual([
      'backend/class-assistant-backend',
      'backend/node_modules/naudiodon/build/Release/libportaudio.so.2',
      'backend/node_modules/sherpa-onnx-linux-x64/libonnxruntime.so',
      'backend/node_modules/sherpa-onnx-linux-x64/sherpa-onnx.node',
      'class-assistant',
    ]);
    const root = await releaseTree({
      ...linux,
      'backend/node_modules/naudiodon/portaudio/bin_armhf/portaudio-helper': LINUX_ARM_SO,
      'backend/node_modules/naudiodon/portaudio/bin/portaudio_x64.dll': WINDOWS_GUI_DLL,
    });
    expect((await rejection(root, 'linux-x64')).message.split('\n').slice(1)).toEqual([
      '  backend/node_modules/naudiodon/portaudio/bin/portaudio_x64.dll is PE x64 (gui); linux-x64 needs ELF x64',
      '  backend/node_modules/naudiodon/portaudio/bin_armhf/portaudio-helper is ELF arm; linux-x64 needs ELF x64',
    ]);
  });

  it('checks a macOS app: Node’s binary is its executable, a universal library holds the target’s CPU', async () => {
    const app = 'Class Assistant.app/Contents';
    // Node's Intel binary: a thin 64-bit Mach-O header of x86_64 (CPU_TYPE_X86_64).
    const thin = join(await mkdtemp(join(tmpdir(), 'desktop-macho-')), 'node');
    folders.push(dirname(thin));
    const header = new Uint8Array(4096);
    new DataView(header.buffer).setUint32(0, 0xcffaedfe, false);
    new DataView(header.buffer).setUint32(4, 0x01000007, true);
    await writeFile(thin, header);
    const intel = {
      [`${app}/Resources/node`]: thin,
      [`${app}/MacOS/Class Assistant`]: {
        text: '#!/bin/sh\nexec "$RESOURCES/node" launcher.cjs\n',
      },
      [`${app}/Resources/backend/node_modules/vosk/lib/osx-universal/libvosk.dylib`]:
        MAC_UNIVERSAL_DYLIB,
    };
    const binaries = await checkReleaseBinaries(
      filesInFolder(await releaseTree(intel)),
      'darwin-x64',
    );
    expect(binaries.map((binary) => [binary.path, binary.kind?.architectures])).toEqual([
      [
        `${app}/Resources/backend/node_modules/vosk/lib/osx-universal/libvosk.dylib`,
        ['x64', 'arm64'],
      ],
      [`${app}/Resources/node`, ['x64']],
    ]);
    // The same files for Apple Silicon: the universal library passes, the x64 Node does not.
    expect(
      (await rejection(await releaseTree(intel), 'darwin-arm64')).message.split('\n').slice(1),
    ).toEqual([`  ${app}/Resources/node is Mach-O x64; darwin-arm64 needs Mach-O arm64`]);
    // An app without Node's binary.
    const { [`${app}/Resources/node`]: _node, ...noNode } = intel;
    expect((await rejection(await releaseTree(noNode), 'darwin-x64')).message).toContain(
      `${app}/Resources/node is missing`,
    );
  });
});
