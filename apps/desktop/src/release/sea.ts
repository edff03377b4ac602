// A Node single executable application: a CommonJS bundle turned into a preparation blob by this
// Node (the pinned version, the same as the binary it goes into), injected with postject into a
// copy of the target's Node binary.
import { execFile } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'postject';
import { SUBSYSTEM, setPeSubsystem, withoutPeSignature } from './pe.ts';

/** The fuse Node looks for to know a blob was injected (Node's docs). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** Options of {@link makeSea}. */
export interface SeaOptions {
  /** The target's Node binary. */
  nodeBinary: string;
  /** The CommonJS bundle to run. */
  script: string;
  /** The executable to write. */
  output: string;
  /** A folder for the config and blob. */
  workDir: string;
  /** Windows executable (the signature is dropped before injection). */
  windows: boolean;
  /** Windows: no console window (the launcher). */
  gui?: boolean;
  /**
   * V8 code cache in the blob: faster start, but only valid for the platform that made it, so
   * only for a target that matches the building machine.
   */
  useCodeCache: boolean;
  /** Files embedded in the executable, by asset name (read with `node:sea`'s getAsset). */
  assets?: Record<string, string>;
}

/** The sea-config.json of {@link makeSea}. */
export function seaConfig(
  script: string,
  blob: string,
  useCodeCache: boolean,
  assets: Record<string, string> = {},
) {
  return {
    main: script,
    output: blob,
    ...(Object.keys(assets).length > 0 ? { assets } : {}),
    // Node 24 ignores this flag in the blob (it still warns); the execArgv below silences it.
    disableExperimentalWarning: true,
    useCodeCache,
    useSnapshot: false,
    // `--` ends Node's own options: without it Node reads an application argument named
    // `--env-file` as its own flag (it loads that file into the environment, or exits when the
    // file does not exist yet), so `class-assistant-backend --env-file x` would not reach us.
    execArgv: ['--disable-warning=ExperimentalWarning', '--'],
  };
}

/** Builds one single executable application. */
export async function makeSea(options: SeaOptions): Promise<void> {
  const name = options.output.replace(/^.*[\\/]/, '');
  const config = join(options.workDir, `${name}.sea-config.json`);
  const blob = join(options.workDir, `${name}.blob`);
  await writeFile(
    config,
    JSON.stringify(seaConfig(options.script, blob, options.useCodeCache, options.assets), null, 2),
  );
  await promisify(execFile)(process.execPath, ['--experimental-sea-config', config], {
    maxBuffer: 1024 * 1024,
  });
  let image: Uint8Array = await readFile(options.nodeBinary);
  if (options.windows) {
    image = withoutPeSignature(image);
    if (options.gui) setPeSubsystem(image, SUBSYSTEM.gui);
  }
  await writeFile(options.output, image);
  await chmod(options.output, 0o755);
  // LIEF (inside postject) reports harmless ELF note warnings on stderr; keep the log readable.
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) =>
    String(chunk).startsWith('warning: ')
      ? true
      : write(chunk as string, ...(rest as []))) as typeof process.stderr.write;
  try {
    await inject(options.output, 'NODE_SEA_BLOB', await readFile(blob), {
      sentinelFuse: SEA_FUSE,
      overwrite: true,
    });
  } finally {
    process.stderr.write = write;
  }
}
