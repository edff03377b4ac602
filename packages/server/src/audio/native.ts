/**
 * The one place native code is located and loaded: koffi (FFI), naudiodon's addon (microphone),
 * libvosk (from our per-platform package `@class-assistant/libvosk-<platform>`, or the `vosk`
 * package) and libpocketsphinx (from the system). Nothing here runs at
 * import time; each piece is loaded on first use by the mode that needs it, so the server starts
 * and mock mode works without any of them, and a missing piece is an error of that mode only.
 *
 * Packages are resolved with `createRequire`: from this package's own dependencies, or, when
 * CLASS_ASSISTANT_NATIVE_MODULES names a folder, from that `node_modules`-style folder instead
 * (the packaged single-file backend keeps its native pieces in a folder beside the executable).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type * as Koffi from 'koffi';
import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';

/** The environment variable naming the folder native packages are loaded from. */
export const NATIVE_MODULES_VARIABLE = 'CLASS_ASSISTANT_NATIVE_MODULES';

/** The koffi module. */
export type KoffiModule = typeof Koffi;

/** naudiodon's N-API addon (`build/Release/naudiodon.node`), used without its index.js. */
export interface NaudiodonAddon {
  getDevices(): NaudiodonDevice[];
  getHostAPIs(): { defaultHostAPI: number; HostAPIs: NaudiodonHostApi[] };
  create(options: { inOptions: NaudiodonInOptions }): NaudiodonAudioIO;
}

/** One device as PortAudio lists it. */
export interface NaudiodonDevice {
  id: number;
  name: string;
  maxInputChannels: number;
  maxOutputChannels: number;
  defaultSampleRate: number;
  hostAPIName: string;
}

/** One host API (ALSA, WASAPI, CoreAudio…). `defaultInput` is 2^32-1 when it has none. */
export interface NaudiodonHostApi {
  id: number;
  name: string;
  type: string;
  deviceCount: number;
  defaultInput: number;
  defaultOutput: number;
}

/** Capture options of naudiodon's `create()`. */
export interface NaudiodonInOptions {
  channelCount: number;
  sampleFormat: 16;
  sampleRate: number;
  /** -1: the default input device. */
  deviceId: number;
  closeOnError: boolean;
  /** Buffers PortAudio may queue before it drops audio (naudiodon's default is 2). */
  maxQueue?: number;
  framesPerBuffer?: number;
}

/** The native capture object: start, then read buffers until quit. */
export interface NaudiodonAudioIO {
  start(): void;
  read(size: number): Promise<{ buf?: Buffer; finished?: boolean; err?: Error }>;
  quit(mode: 'WAIT' | 'ABORT'): Promise<void>;
}

/** Where native packages come from at the moment (the variable is read on every call). */
export function nativeModulesFolder(): string | undefined {
  const folder = process.env[NATIVE_MODULES_VARIABLE]?.trim();
  return folder ? resolve(folder) : undefined;
}

function nativeRequire(): NodeJS.Require {
  const folder = nativeModulesFolder();
  // A path inside the folder: createRequire resolves packages from the folder's node_modules
  // lookup chain, which starts with the folder itself when it is named node_modules, and with
  // `<folder>/node_modules` otherwise. Both layouts work: see packageRoot.
  return createRequire(folder ? join(folder, 'noop.js') : import.meta.url);
}

function searched(): string {
  const folder = nativeModulesFolder();
  return folder
    ? `${NATIVE_MODULES_VARIABLE}=${folder}`
    : "this package's dependencies (node_modules)";
}

function missing(packageName: string, purpose: string, hint: string): ServerError {
  return new ServerError(
    'NATIVE_MODULE_MISSING',
    `The native package "${packageName}" (${purpose}) is not installed: looked in ${searched()}. ${hint}`,
    { hint },
  );
}

/**
 * The folder of an installed package, or undefined. Packages without `./package.json` in their
 * exports (koffi) are found through their main entry.
 */
export function packageRoot(packageName: string): string | undefined {
  const folder = nativeModulesFolder();
  if (folder) {
    // Only the folder itself: Node's own lookup would also search NODE_PATH and ~/.node_modules
    // (pnpm sets NODE_PATH for scripts), and a packaged build must not pick up stray copies.
    for (const candidate of [
      join(folder, packageName),
      join(folder, 'node_modules', packageName),
    ]) {
      if (existsSync(join(candidate, 'package.json'))) return candidate;
    }
    return undefined;
  }
  const require = nativeRequire();
  try {
    return dirname(require.resolve(`${packageName}/package.json`));
  } catch {
    // Fall through: exports may hide package.json.
  }
  try {
    let directory = dirname(require.resolve(packageName));
    while (!existsSync(join(directory, 'package.json')) && dirname(directory) !== directory) {
      directory = dirname(directory);
    }
    return directory;
  } catch {
    return undefined;
  }
}

let koffi: KoffiModule | undefined;

/**
 * Loads koffi once. Throws NATIVE_MODULE_MISSING when it is not installed or its platform
 * binary (`@koromix/koffi-<platform>-<arch>`) is absent.
 */
export function loadKoffi(): KoffiModule {
  if (koffi) return koffi;
  const root = packageRoot('koffi');
  if (!root) {
    throw missing(
      'koffi',
      'calls the offline recognition libraries',
      'Reinstall the backend (pnpm install / npm install) so its dependencies are complete.',
    );
  }
  try {
    koffi = nativeRequire()(join(root, 'index.cjs')) as KoffiModule;
  } catch (error) {
    throw new ServerError(
      'NATIVE_MODULE_MISSING',
      `koffi is installed at ${root} but its native part for ${process.platform}-${process.arch} did not load (${(error as Error).message}). It lives in the package @koromix/koffi-${process.platform}-${process.arch}${nativeModulesFolder() ? `, which must sit next to koffi in ${nativeModulesFolder()}` : ''}.`,
      { hint: `Install @koromix/koffi-${process.platform}-${process.arch}.` },
      { cause: error },
    );
  }
  return koffi;
}

let sherpaOnnx: unknown;

/** The package holding sherpa-onnx's native part for this machine (`win` for Windows). */
export function sherpaOnnxPlatformPackage(
  platform: string = process.platform,
  arch: string = process.arch,
): string {
  return `sherpa-onnx-${platform === 'win32' ? 'win' : platform}-${arch}`;
}

/**
 * Path of sherpa-onnx's compiled addon (in the platform package next to sherpa-onnx-node, where
 * its JavaScript looks), without loading it; NATIVE_MODULE_MISSING when either part is absent.
 */
export function sherpaOnnxAddonPath(): string {
  const root = packageRoot('sherpa-onnx-node');
  if (!root) {
    throw missing(
      'sherpa-onnx-node',
      'runs SenseVoice, streaming transducers and Silero VAD offline',
      'Reinstall the backend (pnpm install / npm install) so its dependencies are complete, or use LOCAL_ASR_ENGINE=vosk.',
    );
  }
  const addon = join(root, '..', sherpaOnnxPlatformPackage(), 'sherpa-onnx.node');
  if (!existsSync(addon)) {
    throw new ServerError(
      'NATIVE_MODULE_MISSING',
      `sherpa-onnx-node is at ${root} but its native part ${sherpaOnnxPlatformPackage()} is not next to it.`,
      { hint: `Install ${sherpaOnnxPlatformPackage()}, or use LOCAL_ASR_ENGINE=vosk.` },
    );
  }
  return addon;
}

/**
 * Loads sherpa-onnx-node once (the sherpa engine of the local mode: SenseVoice, streaming
 * transducers, Silero VAD). Its JavaScript finds the native part in the package
 * `sherpa-onnx-<platform>-<arch>` (`win` for Windows) next to it. `T` is the caller's typing of
 * the module's API. Throws NATIVE_MODULE_MISSING when either part is absent.
 */
export function loadSherpaOnnx<T>(): T {
  if (sherpaOnnx) return sherpaOnnx as T;
  sherpaOnnxAddonPath();
  const root = packageRoot('sherpa-onnx-node') ?? '';
  const platformPackage = sherpaOnnxPlatformPackage();
  try {
    sherpaOnnx = nativeRequire()(join(root, 'sherpa-onnx.js'));
  } catch (error) {
    throw new ServerError(
      'NATIVE_MODULE_MISSING',
      `sherpa-onnx-node is installed at ${root} but its native part for ${process.platform}-${process.arch} did not load (${(error as Error).message}). It lives in the package ${platformPackage}${nativeModulesFolder() ? `, which must sit next to sherpa-onnx-node in ${nativeModulesFolder()}` : ''}.`,
      { hint: `Install ${platformPackage}, or use LOCAL_ASR_ENGINE=vosk.` },
      { cause: error },
    );
  }
  return sherpaOnnx as T;
}

/** Path of naudiodon's compiled addon, or a NATIVE_MODULE_MISSING error saying how to build it. */
export function naudiodonAddonPath(): string {
  const build =
    process.platform === 'linux'
      ? 'install the ALSA headers (Debian/Ubuntu: apt install libasound2-dev) and a C++ compiler, then reinstall so naudiodon builds (it is listed in onlyBuiltDependencies)'
      : 'reinstall the backend so naudiodon builds (it needs a C++ compiler and node-gyp)';
  const hint = `Set AUDIO_INPUT=app to capture the microphone in the app window instead (no addon needed), or ${build}.`;
  const root = packageRoot('naudiodon');
  if (!root) throw missing('naudiodon', 'microphone capture', hint);
  const addon = join(root, 'build', 'Release', 'naudiodon.node');
  if (!existsSync(addon)) {
    throw new ServerError(
      'NATIVE_MODULE_MISSING',
      `naudiodon (microphone capture) is installed at ${root} but was never built: ${addon} does not exist. ${hint}`,
      { hint },
    );
  }
  return addon;
}

/**
 * Loads naudiodon's addon directly — never its index.js, which requires `segfault-handler` (a NAN
 * addon built for one Node version, and which writes crash.log into the working folder). Only
 * the microphone child process calls this: PortAudio and ALSA print to stdout and stderr, and a
 * crash of the audio stack must not take the server down.
 */
export function loadNaudiodonAddon(): NaudiodonAddon {
  return nativeRequire()(naudiodonAddonPath()) as NaudiodonAddon;
}

/** The libvosk file of this platform inside the `vosk` package, by `process.platform`/`arch`. */
export function voskLibraryFile(platform = process.platform, arch = process.arch): string {
  if (platform === 'win32' && arch === 'x64') return join('lib', 'win-x86_64', 'libvosk.dll');
  if (platform === 'darwin') return join('lib', 'osx-universal', 'libvosk.dylib');
  if (platform === 'linux' && arch === 'x64') return join('lib', 'linux-x86_64', 'libvosk.so');
  // No npm package carries libvosk for other machines (64-bit ARM Linux among them): the
  // release for those has no Vosk, and says which engine to use instead.
  throw new ServerError(
    'NATIVE_MODULE_MISSING',
    localized(
      `这台电脑（${platform}-${arch}）没有 Vosk：libvosk 只有 Linux x64、Windows x64 和 macOS 的版本。请改用 sherpa-onnx 离线引擎（LOCAL_ASR_ENGINE=sherpa）、PocketSphinx，或在线识别。`,
      `Vosk is not available on this computer (${platform}-${arch}): libvosk exists for Linux x64, Windows x64 and macOS only. Use the sherpa-onnx offline engine (LOCAL_ASR_ENGINE=sherpa), PocketSphinx, or an online recognizer.`,
    ),
    {
      field: 'LOCAL_ASR_ENGINE',
      hint: 'Use LOCAL_ASR_ENGINE=sherpa (or pocketsphinx), or ASR_MODE=stream/cloud/dashscope on this machine.',
    },
  );
}

/**
 * Our per-platform package carrying libvosk for this machine, and the file inside it:
 * `@class-assistant/libvosk-linux-x64` (lib/libvosk.so), `-win32-x64` (lib/libvosk.dll and its
 * runtime DLLs) or `-darwin-universal` (lib/libvosk.dylib). Package managers install only the one
 * whose `os`/`cpu` fit, as optional dependencies of this package.
 */
export function libvoskPackage(
  platform = process.platform,
  arch = process.arch,
): { name: string; file: string } {
  // Throws the unsupported-platform error first.
  const file = voskLibraryFile(platform, arch).split(/[\\/]/).at(-1)!;
  const target = platform === 'darwin' ? 'darwin-universal' : `${platform}-${arch}`;
  return { name: `@class-assistant/libvosk-${target}`, file: join('lib', file) };
}

/**
 * Path of libvosk for this machine, or NATIVE_MODULE_MISSING. Looked for in our per-platform
 * package ({@link libvoskPackage}) first, then in the `vosk` package (which carries every
 * platform's files; a development checkout has it); with CLASS_ASSISTANT_NATIVE_MODULES set (the
 * packaged release), in that folder only, in the same order.
 */
export function voskLibraryPath(): string {
  const own = libvoskPackage();
  const candidates: Array<{ root: string | undefined; file: string }> = [
    { root: packageRoot(own.name), file: own.file },
    { root: packageRoot('vosk'), file: voskLibraryFile() },
  ];
  for (const { root, file } of candidates) {
    if (root && existsSync(join(root, file))) return join(root, file);
  }
  const found = candidates.filter((candidate) => candidate.root !== undefined);
  if (found.length > 0) {
    throw new ServerError(
      'NATIVE_MODULE_MISSING',
      `libvosk is missing from ${found.map(({ root, file }) => join(root!, file)).join(' and ')}.`,
      { hint: `Reinstall the backend (its optional dependency ${own.name} carries libvosk).` },
    );
  }
  throw missing(
    own.name,
    'libvosk, the offline recognizer library of the local mode',
    'Reinstall the backend with its optional dependencies (npm install without --omit=optional).',
  );
}

const loadedLibraries = new Map<string, Koffi.LibraryHandle>();

/**
 * Loads a shared library through koffi once per path. On Windows the library's folder is added
 * to PATH first, so the DLLs it depends on (libvosk's libstdc++ and friends) are found.
 */
export function loadLibrary(path: string): Koffi.LibraryHandle {
  const cached = loadedLibraries.get(path);
  if (cached) return cached;
  const ffi = loadKoffi();
  if (process.platform === 'win32' && path.includes('\\')) {
    const folder = dirname(path);
    const current = process.env.PATH ?? process.env.Path ?? '';
    if (!current.split(';').includes(folder)) process.env.PATH = `${folder};${current}`;
  }
  const library = ffi.load(path);
  loadedLibraries.set(path, library);
  return library;
}

/** Library names tried for PocketSphinx 5prealpha (sphinxbase + pocketsphinx), per platform. */
export function pocketsphinxLibraryNames(platform = process.platform): {
  sphinxbase: string[];
  pocketsphinx: string[];
} {
  if (platform === 'win32')
    return { sphinxbase: ['sphinxbase.dll'], pocketsphinx: ['pocketsphinx.dll'] };
  if (platform === 'darwin') {
    return {
      sphinxbase: ['libsphinxbase.3.dylib', 'libsphinxbase.dylib'],
      pocketsphinx: ['libpocketsphinx.3.dylib', 'libpocketsphinx.dylib'],
    };
  }
  return {
    sphinxbase: ['libsphinxbase.so.3', 'libsphinxbase.so'],
    pocketsphinx: ['libpocketsphinx.so.3', 'libpocketsphinx.so'],
  };
}

/**
 * Loads libsphinxbase and libpocketsphinx from the system library path. Throws
 * NATIVE_MODULE_MISSING naming the packages to install.
 */
export function loadPocketsphinxLibraries(): {
  sphinxbase: Koffi.LibraryHandle;
  pocketsphinx: Koffi.LibraryHandle;
} {
  const names = pocketsphinxLibraryNames();
  const first = (candidates: string[]): Koffi.LibraryHandle => {
    const problems: string[] = [];
    for (const name of candidates) {
      try {
        return loadLibrary(name);
      } catch (error) {
        if ((error as { code?: string }).code === 'NATIVE_MODULE_MISSING') throw error;
        problems.push(`${name}: ${(error as Error).message}`);
      }
    }
    throw new ServerError(
      'NATIVE_MODULE_MISSING',
      `PocketSphinx is not installed on this machine (${problems.join('; ')}).`,
      {
        hint: 'Debian/Ubuntu: apt install libpocketsphinx3 libsphinxbase3 pocketsphinx-en-us.',
      },
    );
  };
  return { sphinxbase: first(names.sphinxbase), pocketsphinx: first(names.pocketsphinx) };
}

/** One native piece as /api/health reports it. */
export interface NativeModuleStatus {
  name: 'koffi' | 'naudiodon' | 'vosk' | 'sherpa-onnx';
  /** What needs it. */
  purpose: string;
  available: boolean;
  /** The file found, or why it is missing. */
  detail: string;
}

let reportCache:
  | { folder: string | undefined; at: number; report: NativeModuleStatus[] }
  | undefined;

/**
 * Where each native piece would be loaded from, without loading anything: lets a packaged build
 * check that its native folder is complete. Kept for 5 s (the UI polls /api/health).
 */
export function nativeModulesReport(): NativeModuleStatus[] {
  const folder = nativeModulesFolder();
  if (reportCache && reportCache.folder === folder && Date.now() - reportCache.at < 5000) {
    return reportCache.report;
  }
  const report = locateNativeModules();
  reportCache = { folder, at: Date.now(), report };
  return report;
}

function locateNativeModules(): NativeModuleStatus[] {
  const check = (
    name: NativeModuleStatus['name'],
    purpose: string,
    locate: () => string,
  ): NativeModuleStatus => {
    try {
      return { name, purpose, available: true, detail: locate() };
    } catch (error) {
      return { name, purpose, available: false, detail: (error as Error).message };
    }
  };
  return [
    check('koffi', 'Vosk and PocketSphinx calls (local mode)', () => {
      const root = packageRoot('koffi');
      if (!root) throw missing('koffi', 'FFI', 'Reinstall the backend.');
      const platformPackage = join(
        root,
        '..',
        '@koromix',
        `koffi-${process.platform}-${process.arch}`,
      );
      if (!existsSync(platformPackage)) {
        throw new Error(
          `koffi is at ${root} but its native part @koromix/koffi-${process.platform}-${process.arch} is not next to it`,
        );
      }
      return platformPackage;
    }),
    check('naudiodon', 'microphone capture', naudiodonAddonPath),
    check('vosk', 'libvosk (local mode, LOCAL_ASR_ENGINE=vosk)', voskLibraryPath),
    check('sherpa-onnx', 'sherpa-onnx (local mode, LOCAL_ASR_ENGINE=sherpa)', sherpaOnnxAddonPath),
  ];
}
