// Files only the current user may read: the settings file (API keys) and the shutdown token.
// On Linux and macOS the mode 0600 given at creation does it. Node ignores the mode on Windows,
// where a new file inherits its folder's access list — on a shared lab PC other students may
// read it — so there the file is restricted to the current user with `icacls` right after it is
// created and before its secret is written.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { writeFileAtomic } from '@class-assistant/transcript-core';

/**
 * Runs a program without a shell and resolves with its standard output; rejects when it cannot
 * start, fails or outlives `timeoutMs`.
 */
export type CommandRunner = (
  file: string,
  args: readonly string[],
  options: { timeoutMs: number },
) => Promise<string>;

/** How files are made private; every field has a default, replaced in tests. */
export interface FilePrivacyOptions {
  /** The platform (default `process.platform`): only `win32` runs `icacls`. */
  platform?: NodeJS.Platform;
  /** Runs `icacls` and `whoami` (default: `execFile`, no window, killed at the timeout). */
  runCommand?: CommandRunner;
  /** Where USERDOMAIN and USERNAME are read (default `process.env`). */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Time limit of each command in milliseconds (default 10 000). */
  timeoutMs?: number;
}

/** Where a file that could not be made private is reported. */
export interface PrivacyLogger {
  warn(details: object, message?: string): void;
}

/** The default {@link CommandRunner}: `execFile` with a timeout and no console window. */
export const execFileRunner: CommandRunner = (file, args, { timeoutMs }) =>
  new Promise((resolve, reject) => {
    execFile(
      file,
      [...args],
      { timeout: timeoutMs, windowsHide: true, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (!error) {
          resolve(stdout);
          return;
        }
        const why = error.killed
          ? `timed out after ${timeoutMs} ms`
          : typeof error.code === 'string'
            ? error.code
            : `exit code ${error.code}`;
        const said = (stderr.trim() || stdout.trim()).replace(/\s+/g, ' ');
        reject(new Error(`${file} ${why}${said ? `: ${said}` : ''}`, { cause: error }));
      },
    );
  });

/**
 * Restricts `path` to the current user. On Windows: `icacls <path> /inheritance:r /grant:r
 * <DOMAIN\user>:F` (the user from USERDOMAIN/USERNAME, else `whoami`): the folder's inherited
 * permissions are dropped and only this user keeps access. Elsewhere nothing is run (the file's
 * mode 0600 does it). Never throws: a failure is logged as a warning naming the file, and the
 * result is false.
 *
 * @example
 * await restrictToCurrentUser('C:\\Users\\me\\ClassAssistant\\.env', {}, logger);
 */
export async function restrictToCurrentUser(
  path: string,
  options: FilePrivacyOptions = {},
  logger?: PrivacyLogger,
): Promise<boolean> {
  if ((options.platform ?? process.platform) !== 'win32') return true;
  const run = options.runCommand ?? execFileRunner;
  const timeoutMs = options.timeoutMs ?? 10_000;
  let user: string | undefined;
  try {
    user = await currentWindowsUser(options.environment ?? process.env, run, timeoutMs);
    await run('icacls', [path, '/inheritance:r', '/grant:r', `${user}:F`], { timeoutMs });
    return true;
  } catch (error) {
    logger?.warn(
      { path, user, err: error },
      `Could not make ${path} readable by ${user ?? 'the current user'} only (${(error as Error).message}): other users of this computer may be able to read it.`,
    );
    return false;
  }
}

/** `DOMAIN\user` of the process: USERDOMAIN and USERNAME, else what `whoami` prints. */
async function currentWindowsUser(
  environment: Readonly<Record<string, string | undefined>>,
  run: CommandRunner,
  timeoutMs: number,
): Promise<string> {
  const name = environment.USERNAME?.trim();
  const domain = environment.USERDOMAIN?.trim();
  if (name) return domain ? `${domain}\\${name}` : name;
  const printed = (await run('whoami', [], { timeoutMs })).trim();
  if (printed === '') throw new Error('whoami printed no user name');
  return printed;
}

/**
 * Creates `path` (which must not exist: EEXIST otherwise) holding `content`, readable by the
 * current user only: created empty with mode 0600, restricted ({@link restrictToCurrentUser}),
 * then written (and fsynced when `durable`). A failed write removes the file.
 *
 * @example
 * await createPrivateFile(join(dataDir, '_shutdown.token'), token, {}, logger);
 */
export async function createPrivateFile(
  path: string,
  content: string | Uint8Array,
  options: FilePrivacyOptions & { durable?: boolean } = {},
  logger?: PrivacyLogger,
): Promise<void> {
  await (await open(path, 'wx', 0o600)).close();
  try {
    await restrictToCurrentUser(path, options, logger);
    const handle = await open(path, 'r+');
    try {
      await handle.writeFile(content);
      if (options.durable) await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    await rm(path, { force: true });
    throw error;
  }
}

/**
 * Replaces `path` atomically with `content`, readable by the current user only. On Linux and
 * macOS: `writeFileAtomic` with mode 0600 (an existing file keeps its own mode). On Windows,
 * where a rename keeps the new file's own access list, the temp file is made private before the
 * content goes in ({@link createPrivateFile}, fsynced), then renamed over `path`.
 */
export async function writePrivateFileAtomic(
  path: string,
  content: string | Uint8Array,
  options: FilePrivacyOptions = {},
  logger?: PrivacyLogger,
): Promise<void> {
  if ((options.platform ?? process.platform) !== 'win32') {
    await writeFileAtomic(path, content, { mode: 0o600 });
    return;
  }
  const folder = dirname(path);
  await mkdir(folder, { recursive: true });
  // The name writeFileAtomic gives its temp files.
  const temp = join(
    folder,
    `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  await createPrivateFile(temp, content, { ...options, durable: true }, logger);
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
