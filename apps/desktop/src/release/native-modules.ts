// The native pieces of the live-audio modes cannot be bundled: they go into
// release/backend/node_modules, where the packaged backend loads them
// (CLASS_ASSISTANT_NATIVE_MODULES; packages/server/src/audio/native.ts finds each one there).
// Each is taken for the release's target, never simply copied from this machine:
//
//   koffi      its JavaScript, plus @koromix/koffi-<platform>-<arch> of the same version for the
//              target: the installed one when it is this machine's, else from the npm registry;
//   vosk       package.json and lib/<target folder> only (libvosk and, on Windows, its DLLs);
//   sherpa-onnx-node  its JavaScript, plus sherpa-onnx-<platform>-<arch> of the same version for
//              the target (the addon, sherpa-onnx's C API and onnxruntime), taken as koffi's is;
//   naudiodon  its compiled addon (built on this machine by pnpm install) and the PortAudio
//              beside it, so only in a release for this machine; elsewhere the app window
//              captures the microphone.
//
// A missing piece only disables its mode; the demo mode needs none.
import { cp, mkdir, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setElfSearchPath } from './elf.ts';
import { fetchRegistryPackage } from './registry-package.ts';
import { hostTarget, type ReleaseTarget, TARGETS } from './targets.ts';

/** What went into the release, what was left out on purpose, and what could not be found. */
export interface NativeModulesReport {
  /** Package folders written under node_modules, e.g. `@koromix/koffi-win32-x64`. */
  copied: string[];
  /** Pieces left out for this target, with why. */
  skipped: Array<{ name: string; why: string }>;
  /** Pieces not installed on this machine, with what is missing. */
  missing: Array<{ name: string; why: string }>;
}

/** The package folders of a release that /api/health reports, by the name it reports them with. */
const REPORTED_AS: Readonly<Record<string, string>> = {
  koffi: 'koffi',
  vosk: 'vosk',
  naudiodon: 'naudiodon',
  'sherpa-onnx-node': 'sherpa-onnx',
};

/**
 * The names of `audio.native_modules` in /api/health that a release with these package folders
 * must show available (platform packages are part of the piece they serve).
 */
export function reportedNativeModules(copied: readonly string[]): string[] {
  return copied.flatMap((folder) => (REPORTED_AS[folder] ? [REPORTED_AS[folder]] : []));
}

/** Options of {@link assembleNativeModules}. */
export interface NativeModulesOptions {
  /** The backend package, whose dependencies the native packages are. */
  serverDir: string;
  target: ReleaseTarget;
  /** The release's node_modules folder. */
  destination: string;
  /** Where packages fetched from the registry are kept between builds. */
  cacheDir: string;
  log(line: string): void;
}

/** The folder of package `name` as resolved from `fromDir`, links followed. */
async function packageDir(fromDir: string, name: string): Promise<string | undefined> {
  const require = createRequire(join(fromDir, 'package.json'));
  try {
    return await realpath(dirname(require.resolve(`${name}/package.json`)));
  } catch {
    // Packages whose exports hide package.json (koffi): resolve the main file and walk up.
  }
  let dir: string;
  try {
    dir = dirname(require.resolve(name));
  } catch {
    return undefined;
  }
  for (;;) {
    try {
      const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
      };
      if (manifest.name === name) return await realpath(dir);
    } catch {
      // Keep walking.
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

async function packageVersion(dir: string): Promise<string> {
  return (JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { version: string })
    .version;
}

/**
 * The target's platform package of `name` at `version`: the one installed beside `packageFolder`
 * when it is the same version, else the registry's (cached).
 */
async function platformPackageFor(
  packageFolder: string,
  name: string,
  version: string,
  options: NativeModulesOptions,
): Promise<string> {
  const installed = await packageDir(packageFolder, name);
  return installed && (await packageVersion(installed)) === version
    ? installed
    : await fetchRegistryPackage(name, version, options);
}

/** Copies `files` (paths inside the package folder `from`) to `to`, dereferencing pnpm's links. */
async function copyParts(from: string, to: string, files: readonly string[]): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const file of files) {
    await cp(join(from, file), join(to, file), { recursive: true, dereference: true });
  }
}

/**
 * Puts the target's koffi, libvosk, sherpa-onnx and (for this machine's target) naudiodon's addon into
 * `destination`.
 *
 * @example
 * await assembleNativeModules({ serverDir, target: 'win-x64', destination: 'release/backend/node_modules', cacheDir: '.cache', log: console.log });
 */
export async function assembleNativeModules(
  options: NativeModulesOptions,
): Promise<NativeModulesReport> {
  const { serverDir, target, destination } = options;
  const info = TARGETS[target];
  const report: NativeModulesReport = { copied: [], skipped: [], missing: [] };

  const koffi = await packageDir(serverDir, 'koffi');
  if (koffi) {
    await cp(koffi, join(destination, 'koffi'), { recursive: true, dereference: true });
    report.copied.push('koffi');
    // koffi looks for its native part in node_modules/@koromix/koffi-<platform>-<arch>.
    const platformPackage = `@koromix/koffi-${info.platform}-${info.arch}`;
    const source = await platformPackageFor(
      koffi,
      platformPackage,
      await packageVersion(koffi),
      options,
    );
    await cp(source, join(destination, ...platformPackage.split('/')), {
      recursive: true,
      dereference: true,
    });
    report.copied.push(platformPackage);
  } else {
    report.missing.push({ name: 'koffi', why: 'not installed' });
  }

  const vosk = await packageDir(serverDir, 'vosk');
  const voskLibraries = join('lib', info.voskLibraryFolder ?? '');
  if (info.voskLibraryFolder === null) {
    report.skipped.push({
      name: 'vosk',
      why: `no npm package carries libvosk for ${target} (the vosk package has none): Vosk is left out, sherpa-onnx works`,
    });
  } else if (!vosk) {
    report.missing.push({ name: 'vosk', why: 'not installed' });
  } else if (!(await readdir(join(vosk, voskLibraries)).catch(() => undefined))) {
    report.missing.push({ name: 'vosk', why: `the package has no ${voskLibraries}` });
  } else {
    await copyParts(vosk, join(destination, 'vosk'), ['package.json', voskLibraries]);
    report.copied.push('vosk');
  }

  const sherpa = await packageDir(serverDir, 'sherpa-onnx-node');
  if (sherpa) {
    // Its JavaScript requires the addon from ../sherpa-onnx-<platform>-<arch>/: side by side.
    await cp(sherpa, join(destination, 'sherpa-onnx-node'), { recursive: true, dereference: true });
    report.copied.push('sherpa-onnx-node');
    const platformPackage = info.sherpaOnnxPackage;
    const source = await platformPackageFor(
      sherpa,
      platformPackage,
      await packageVersion(sherpa),
      options,
    );
    await cp(source, join(destination, platformPackage), { recursive: true, dereference: true });
    if (info.binaryFormat === 'elf') {
      // The addon's search path also names the folder it was built in on sherpa-onnx's CI:
      // its libraries are beside it, and nowhere else is looked at.
      const addon = join(destination, platformPackage, 'sherpa-onnx.node');
      const image = new Uint8Array(await readFile(addon));
      if (setElfSearchPath(image, '$ORIGIN') !== undefined) await writeFile(addon, image);
    }
    report.copied.push(platformPackage);
  } else {
    report.missing.push({ name: 'sherpa-onnx-node', why: 'not installed' });
  }

  const naudiodon = await packageDir(serverDir, 'naudiodon');
  const built = join('build', 'Release');
  if (hostTarget() !== target) {
    report.skipped.push({
      name: 'naudiodon',
      why: `its addon is compiled on the machine that installs it, so this machine has no ${target} build of it; the app window captures the microphone (AUDIO_INPUT=app)`,
    });
  } else if (!naudiodon) {
    report.missing.push({ name: 'naudiodon', why: 'not installed' });
  } else {
    // The addon and the PortAudio library it was linked against, nothing else of the package
    // (its portaudio/bin holds prebuilt libraries of every OS).
    const files = (await readdir(join(naudiodon, built)).catch(() => [] as string[])).filter(
      (file) =>
        file === 'naudiodon.node' ||
        /^libportaudio\.(so(\.\d+)*|dylib)$|^portaudio.*\.dll$/.test(file),
    );
    if (!files.includes('naudiodon.node')) {
      report.missing.push({
        name: 'naudiodon',
        why: `its addon was never built (${built} is empty)`,
      });
    } else {
      await copyParts(naudiodon, join(destination, 'naudiodon'), [
        'package.json',
        ...files.map((file) => join(built, file)),
      ]);
      if (info.binaryFormat === 'elf') {
        // Linked with this machine's absolute path to its PortAudio: look beside itself instead.
        const addon = join(destination, 'naudiodon', built, 'naudiodon.node');
        const image = new Uint8Array(await readFile(addon));
        if (setElfSearchPath(image, '$ORIGIN') !== undefined) await writeFile(addon, image);
      }
      report.copied.push('naudiodon');
    }
  }
  return report;
}
