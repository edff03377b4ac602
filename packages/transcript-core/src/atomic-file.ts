// Durable whole-file writes: write a temp file in the same folder, fsync it,
// rename it over the target, fsync the folder. A reader sees the old or the new file, never a
// half-written one, and a crash at any point loses neither.
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Name prefix of the temp files {@link writeFileAtomic} leaves behind if killed mid-write. */
export function tempFilePrefix(path: string): string {
  return `.${basename(path)}.tmp-`;
}

/** Options of {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /** fsync the file and its folder (default true); off only for benchmarks and scratch files. */
  durable?: boolean;
  /** Permission bits of a new file (default 0o644); an existing file keeps its own. */
  mode?: number;
}

/**
 * Writes `content` to `path` atomically and durably (see the module comment), creating the
 * folder if needed. Used for history folding here, and exported for other whole-file rewrites
 * (settings, material) so that one implementation carries the guarantee.
 *
 * @example
 * await writeFileAtomic('data/settings.env', 'KEY=value\n', { mode: 0o600 });
 */
export async function writeFileAtomic(
  path: string,
  content: string | Uint8Array,
  options: WriteFileAtomicOptions = {},
): Promise<void> {
  const durable = options.durable ?? true;
  const folder = dirname(path);
  await mkdir(folder, { recursive: true });
  let mode = options.mode ?? 0o644;
  try {
    mode = (await stat(path)).mode & 0o777;
  } catch {
    // A new file: `mode` applies.
  }
  const temp = join(
    folder,
    `${tempFilePrefix(path)}${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(content);
    if (durable) await handle.sync();
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  if (durable) await syncDirectory(folder);
}

/**
 * fsyncs a directory so that a rename or a new file in it survives a crash. Windows cannot open
 * a folder for fsync; there the rename itself is atomic and this is a no-op.
 */
export async function syncDirectory(directory: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(directory, 'r');
  } catch (error) {
    if (process.platform === 'win32') return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (process.platform !== 'win32') throw error;
  } finally {
    await handle.close();
  }
}
