// The native modules of a release, assembled from the packages installed here. The registry's
// package of koffi's Windows part is the one thing from outside this machine: a cache folder
// seeded with a real Windows x64 DLL stands in for what `npm pack` would have fetched.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { packageFile } from '../../test/support/package-files.ts';
import { BINARY_HEADER_BYTES, describeBinaryKind, readBinaryKind } from './binary-format.ts';
import { elfSearchPath } from './elf.ts';
import { assembleNativeModules, reportedNativeModules } from './native-modules.ts';
import { cachedPackageDir } from './registry-package.ts';
import { filesInFolder } from './release-binaries.ts';
import { hostTarget } from './targets.ts';

const SERVER_DIR = join(import.meta.dirname, '..', '..', '..', '..', 'packages', 'server');
const versionOf = async (name: string) =>
  (
    JSON.parse(await readFile(join(SERVER_DIR, 'node_modules', name, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
const KOFFI_VERSION = await versionOf('koffi');
const SHERPA_VERSION = await versionOf('sherpa-onnx-node');

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function folder(): Promise<string> {
  const path = await mkdtemp(join(tmpdir(), 'desktop-native-'));
  folders.push(path);
  return path;
}

/** Every binary under `root` with what it is. */
async function binariesUnder(root: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for await (const file of filesInFolder(root)) {
    const kind = readBinaryKind(await file.readHead(BINARY_HEADER_BYTES));
    if (kind) found[file.path] = describeBinaryKind(kind);
  }
  return found;
}

describe('assembleNativeModules', () => {
  it("puts Windows koffi, libvosk and sherpa-onnx into a win-x64 release, and no addon of this machine's", async () => {
    const cacheDir = await folder();
    // sherpa-onnx's Windows package as the registry has it: the addon, its C API, onnxruntime.
    const sherpaWindows = cachedPackageDir(cacheDir, 'sherpa-onnx-win-x64', SHERPA_VERSION);
    await mkdir(sherpaWindows, { recursive: true });
    await writeFile(
      join(sherpaWindows, 'package.json'),
      JSON.stringify({ name: 'sherpa-onnx-win-x64', version: SHERPA_VERSION }),
    );
    for (const file of ['sherpa-onnx.node', 'sherpa-onnx-c-api.dll', 'onnxruntime.dll']) {
      await copyFile(packageFile('vosk', 'lib/win-x86_64/libvosk.dll'), join(sherpaWindows, file));
    }
    const koffiWindows = cachedPackageDir(cacheDir, '@koromix/koffi-win32-x64', KOFFI_VERSION);
    await mkdir(join(koffiWindows, 'win32_x64'), { recursive: true });
    await writeFile(
      join(koffiWindows, 'package.json'),
      JSON.stringify({ name: '@koromix/koffi-win32-x64', version: KOFFI_VERSION }),
    );
    await copyFile(
      packageFile('naudiodon', 'portaudio/bin/portaudio_x64.dll'),
      join(koffiWindows, 'win32_x64', 'koffi.node'),
    );
    const destination = join(await folder(), 'node_modules');
    const lines: string[] = [];
    const report = await assembleNativeModules({
      serverDir: SERVER_DIR,
      target: 'win-x64',
      destination,
      cacheDir,
      log: (line) => lines.push(line),
    });
    expect(report).toEqual({
      copied: [
        'koffi',
        '@koromix/koffi-win32-x64',
        'vosk',
        'sherpa-onnx-node',
        'sherpa-onnx-win-x64',
      ],
      skipped: [
        {
          name: 'naudiodon',
          why: 'its addon is compiled on the machine that installs it, so this machine has no win-x64 build of it; the app window captures the microphone (AUDIO_INPUT=app)',
        },
      ],
      missing: [],
    });
    expect(lines).toEqual([]);
    expect(await binariesUnder(destination)).toEqual({
      '@koromix/koffi-win32-x64/win32_x64/koffi.node': 'PE x64 (gui)',
      'sherpa-onnx-win-x64/onnxruntime.dll': 'PE x64 (console)',
      'sherpa-onnx-win-x64/sherpa-onnx-c-api.dll': 'PE x64 (console)',
      'sherpa-onnx-win-x64/sherpa-onnx.node': 'PE x64 (console)',
      'vosk/lib/win-x86_64/libgcc_s_seh-1.dll': 'PE x64 (console)',
      'vosk/lib/win-x86_64/libstdc++-6.dll': 'PE x64 (console)',
      'vosk/lib/win-x86_64/libvosk.dll': 'PE x64 (console)',
      'vosk/lib/win-x86_64/libwinpthread-1.dll': 'PE x64 (console)',
    });
    // Where the backend's native.ts looks: koffi's native part beside koffi, vosk's package.json.
    expect(
      JSON.parse(await readFile(join(destination, 'koffi', 'package.json'), 'utf8')),
    ).toMatchObject({
      name: 'koffi',
      version: KOFFI_VERSION,
    });
    expect(
      JSON.parse(await readFile(join(destination, 'vosk', 'package.json'), 'utf8')),
    ).toMatchObject({
      name: 'vosk',
    });
    // sherpa-onnx-node's JavaScript requires ../sherpa-onnx-win-x64/sherpa-onnx.node on Windows.
    expect(
      JSON.parse(await readFile(join(destination, 'sherpa-onnx-node', 'package.json'), 'utf8')),
    ).toMatchObject({ name: 'sherpa-onnx-node', version: SHERPA_VERSION });
    expect(
      await readFile(join(destination, 'sherpa-onnx-node', 'addon-static-import.js'), 'utf8'),
    ).toContain("require('../sherpa-onnx-win-x64/sherpa-onnx.node')");
    expect(reportedNativeModules(report.copied)).toEqual(['koffi', 'vosk', 'sherpa-onnx']);
  });

  it.runIf(hostTarget() === 'linux-x64')(
    "puts this machine's koffi, libvosk, sherpa-onnx and naudiodon into a linux-x64 release without fetching anything",
    async () => {
      const destination = join(await folder(), 'node_modules');
      const lines: string[] = [];
      const report = await assembleNativeModules({
        serverDir: SERVER_DIR,
        target: 'linux-x64',
        destination,
        cacheDir: await folder(),
        log: (line) => lines.push(line),
      });
      expect(report).toEqual({
        copied: [
          'koffi',
          '@koromix/koffi-linux-x64',
          'vosk',
          'sherpa-onnx-node',
          'sherpa-onnx-linux-x64',
          'naudiodon',
        ],
        skipped: [],
        missing: [],
      });
      expect(lines).toEqual([]);
      expect(await binariesUnder(destination)).toEqual({
        '@koromix/koffi-linux-x64/linux_x64/koffi.node': 'ELF x64',
        '@koromix/koffi-linux-x64/musl_x64/koffi.node': 'ELF x64',
        'naudiodon/build/Release/libportaudio.so.2': 'ELF x64',
        'naudiodon/build/Release/naudiodon.node': 'ELF x64',
        'sherpa-onnx-linux-x64/libonnxruntime.so': 'ELF x64',
        'sherpa-onnx-linux-x64/libsherpa-onnx-c-api.so': 'ELF x64',
        'sherpa-onnx-linux-x64/libsherpa-onnx-cxx-api.so': 'ELF x64',
        'sherpa-onnx-linux-x64/sherpa-onnx.node': 'ELF x64',
        'vosk/lib/linux-x86_64/libvosk.so': 'ELF x64',
      });
      expect(reportedNativeModules(report.copied)).toEqual([
        'koffi',
        'vosk',
        'sherpa-onnx',
        'naudiodon',
      ]);
      // The sherpa-onnx addon looks for its libraries beside itself only, not in the folder of
      // the machine it was built on.
      const sherpaAddon = await readFile(
        join(destination, 'sherpa-onnx-linux-x64', 'sherpa-onnx.node'),
      );
      expect(elfSearchPath(new Uint8Array(sherpaAddon))).toBe('$ORIGIN');
      const installedAddon = packageFile(
        'sherpa-onnx-node',
        '../sherpa-onnx-linux-x64/sherpa-onnx.node',
      );
      expect(elfSearchPath(new Uint8Array(await readFile(installedAddon)))).not.toBe('$ORIGIN');
      // And the backend loads all of it from there: sherpa-onnx runs its Silero VAD.
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [join(SERVER_DIR, 'bin', 'class-assistant-backend.js'), 'check-native', '--json'],
        { env: { ...process.env, CLASS_ASSISTANT_NATIVE_MODULES: destination } },
      );
      const checked = (
        JSON.parse(stdout) as {
          native_modules: Array<{ name: string; loaded: boolean; detail: string }>;
        }
      ).native_modules;
      expect(checked.map(({ name, loaded }) => [name, loaded])).toEqual([
        ['koffi', true],
        ['vosk', true],
        ['sherpa-onnx', true],
      ]);
      expect(checked[2]!.detail).toContain(join(destination, 'sherpa-onnx-linux-x64'));
      const addon = await readFile(
        join(destination, 'naudiodon', 'build', 'Release', 'naudiodon.node'),
      );
      expect(elfSearchPath(new Uint8Array(addon))).toBe('$ORIGIN');
    },
  );
});
