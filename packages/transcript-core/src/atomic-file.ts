// Durable whole-file writes (design.md §3): write a temp file in the same folder, fsync it,
// rename it over the target, fsync the folder. A reader sees the old or the new file, never a
// half-written one, and a crash at any point loses neither.
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Name prefix of the temp files {@link writeFileAtomic} leaves behind if killed mid-write. */
export function tempFilePrefix(path: string): string {
  return `.${basename(path)}.tmp-`;
}

/** Writes `content` to `path` atomically and durably (see the module comment). */
export async function writeFileAtomic(
  path: string,
  content: string | Uint8Array,
  options: { durable?: boolean } = {},
): Promise<void> {
  const durable = options.durable ?? true;
  const temp = join(
    dirname(path),
    `${tempFilePrefix(path)}${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  const handle = await open(temp, 'wx');
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
  if (durable) await syncDirectory(dirname(path));
}

/** fsyncs a directory so that a rename or a new file in it survives a crash. */
export async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
