// Packages for another platform than this machine's (the Node binary, koffi's native part) come
// from the npm registry: fetched with `npm pack` (npm, the ordinary client), unpacked and kept in
// a cache folder between builds.
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { extract } from 'tar';

/** The command that fetches a package tarball from the registry. */
export function npmPackCommand(
  name: string,
  version: string,
  destination: string,
): { file: string; args: string[] } {
  return {
    file: process.platform === 'win32' ? 'npm.cmd' : 'npm',
    args: ['pack', `${name}@${version}`, '--pack-destination', destination, '--silent'],
  };
}

/** The cache folder of one package version: `@koromix/koffi-win32-x64` 3.3.4 -> `@koromix+koffi-win32-x64-3.3.4`. */
export function cachedPackageDir(cacheDir: string, name: string, version: string): string {
  return join(cacheDir, `${name.replace('/', '+')}-${version}`);
}

/** Options of {@link fetchRegistryPackage}. */
export interface RegistryFetchOptions {
  /** Where unpacked packages are kept between builds. */
  cacheDir: string;
  /** Prints progress. */
  log(line: string): void;
}

/**
 * The unpacked folder of `name`@`version`: from the cache, or fetched from the registry into it.
 * A folder is only ever complete: the package is unpacked beside it and renamed into place.
 */
export async function fetchRegistryPackage(
  name: string,
  version: string,
  options: RegistryFetchOptions,
): Promise<string> {
  const folder = cachedPackageDir(options.cacheDir, name, version);
  try {
    await access(join(folder, 'package.json'));
    return folder;
  } catch {
    // Not cached yet.
  }
  options.log(`fetching ${name}@${version} from the npm registry`);
  await mkdir(options.cacheDir, { recursive: true });
  const work = await mkdtemp(join(options.cacheDir, '.fetch-'));
  try {
    const command = npmPackCommand(name, version, work);
    const { stdout } = await promisify(execFile)(command.file, command.args, {
      maxBuffer: 1024 * 1024,
      shell: process.platform === 'win32',
    });
    const tarball = join(work, stdout.trim().split(/\r?\n/).pop() ?? '');
    const unpacked = join(work, 'unpacked');
    await mkdir(unpacked);
    await extract({ file: tarball, cwd: unpacked });
    await rm(folder, { recursive: true, force: true });
    await rename(join(unpacked, 'package'), folder);
  } catch (error) {
    throw new Error(
      `could not fetch ${name}@${version} from the npm registry: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return folder;
}
