// The native modules of a release, assembled from the packages installed here. The registry's
// package of koffi's Windows part is the one thing from outside this machine: a cache folder
// seeded with a real Windows x64 DLL stands in for what `npm pack` would have fetched.
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageFile } from '../../test/support/package-files.ts';
import { BINARY_HEADER_BYTES, describeBinaryKind, readBinaryKind } from './binary-format.ts';
import { elfSearchPath } from './elf.ts';
import { assembleNativeModules } from './native-modules.ts';
import { cachedPackageDir } from './registry-package.ts';
import { filesInFolder } from './release-binaries.ts';
import { hostTarget } from './targets.ts';

const SERVER_DIR = join(import.meta.dirname, '..', '..', '..', '..', 'packages', 'server');
const KOFFI_VERSION = (
  JSON.parse(await readFile(join(SERVER_DIR, 'node_modules', 'koffi', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

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
  it("puts Windows koffi and libvosk into a win-x64 release, and no addon of this machine's", async () => {
    const cacheDir = await folder();
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
      copied: ['koffi', '@koromix/koffi-win32-x64', 'vosk'],
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
  });

  it.runIf(hostTarget() === 'linux-x64')(
    "puts this machine's koffi, libvosk and naudiodon into a linux-x64 release without fetching anything",
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
        copied: ['koffi', '@koromix/koffi-linux-x64', 'vosk', 'naudiodon'],
        skipped: [],
        missing: [],
      });
      expect(lines).toEqual([]);
      expect(await binariesUnder(destination)).toEqual({
        '@koromix/koffi-linux-x64/linux_x64/koffi.node': 'ELF x64',
        '@koromix/koffi-linux-x64/musl_x64/koffi.node': 'ELF x64',
        'naudiodon/build/Release/libportaudio.so.2': 'ELF x64',
        'naudiodon/build/Release/naudiodon.node': 'ELF x64',
        'vosk/lib/linux-x86_64/libvosk.so': 'ELF x64',
      });
      const addon = await readFile(
        join(destination, 'naudiodon', 'build', 'Release', 'naudiodon.node'),
      );
      expect(elfSearchPath(new Uint8Array(addon))).toBe('$ORIGIN');
    },
  );
});
