// Reading a file of the data folder that a class tool, the class agent or a route passes on —
// a class file, a material text, notes — without being led elsewhere by a link. A symbolic link
// (at the file or a folder on the way) or a hard link (a file with more than one name, one of
// which may be the settings file or a token) placed in `cite/` or a class folder would otherwise
// hand that file's content to whoever asked, an LLM provider included.
import { randomBytes } from 'node:crypto';
import { type BigIntStats, constants } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';

/** The `code` of a Node system error, if any. */
function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

/** The refusal of `shown` (the path as a person reads it, relative to the data folder). */
function linkedFileError(shown: string): ServerError {
  return new ServerError(
    'FILE_LINK_REFUSED',
    localized(
      `没有读取 ${shown}：它是一个链接（符号链接或硬链接），或不是普通文件，可能指向数据文件夹里别的文件或文件夹以外的文件。请把它换成一个普通文件。`,
      `${shown} was not read: it is a link (symbolic or hard) or not a regular file, so it may lead to another file of the data folder or outside it. Replace it with a plain file.`,
    ),
  );
}

/** True when `named` (the name's lstat) is the opened file, a regular file with one name. */
function soleName(opened: BigIntStats, named: BigIntStats | undefined): boolean {
  return (
    named !== undefined &&
    opened.isFile() &&
    opened.nlink === 1n &&
    named.isFile() &&
    named.nlink === 1n &&
    named.dev === opened.dev &&
    named.ino === opened.ino
  );
}

/**
 * True when the opened file, a regular file with at most one name left, is no longer what the
 * name leads to and the name now leads to another regular file with one name: the file was
 * replaced (renamed over) meanwhile. Whatever was read is discarded and read again; a hard link
 * is never taken for a replacement (the opened file would have two names).
 */
function replacedBy(opened: BigIntStats, named: BigIntStats | undefined): boolean {
  return (
    named !== undefined &&
    opened.isFile() &&
    opened.nlink <= 1n &&
    named.isFile() &&
    named.nlink === 1n &&
    (named.dev !== opened.dev || named.ino !== opened.ino)
  );
}

/**
 * True when the name still leads to the opened file but its link count already reads 0: the
 * lookup found the name just as a rename over it (or an unlink) took it away — seen on ext4 under
 * a file rewritten every 2 ms. The read is tried again (never returned), so a link cannot slip
 * through this way.
 */
function losingItsName(opened: BigIntStats, named: BigIntStats | undefined): boolean {
  return (
    named !== undefined &&
    opened.isFile() &&
    named.isFile() &&
    named.nlink === 0n &&
    named.dev === opened.dev &&
    named.ino === opened.ino
  );
}

async function lstatOrUndefined(path: string): Promise<BigIntStats | undefined> {
  try {
    return await lstat(path, { bigint: true });
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * The text of `<folder>/<names…>`, or undefined when it does not exist. Refused with
 * `FILE_LINK_REFUSED` (naming the file) when a folder below `folder` on the way is a symbolic
 * link, or the file is a symbolic link, a hard link (more than one name), or anything but a
 * regular file. The file is opened without following a link, and the name must still lead to
 * the opened file, with one name, before and after the read: a read that raced a swap of the
 * name is discarded.
 *
 * @example
 * const notes = await readContainedText(dataDir, ['classes', id, 'notes.md']);
 */
export async function readContainedText(
  folder: string,
  names: readonly string[],
): Promise<string | undefined> {
  // A file the backend rewrites (temp file, then rename over it: the live transcript at each
  // fold, class.json every few seconds while a class runs) may be replaced while it is read: the
  // read is discarded and done again on the new file. A read is only ever returned when every
  // check of one attempt passed, so trying again never lets a link through.
  for (let attempt = 1; ; attempt++) {
    try {
      return await readContainedOnce(folder, names);
    } catch (error) {
      if (!(error instanceof ReplacedWhileRead) || attempt === REPLACED_RETRIES) {
        throw error instanceof ReplacedWhileRead ? linkedFileError(names.join('/')) : error;
      }
    }
  }
}

/**
 * Reads tried on a file replaced while it was read, before the read is refused. Each try is a
 * few system calls; 100 leaves room for a machine so busy that a file rewritten every few ms
 * (the race test) wins ten times in a row, which happened under a full test run beside other work.
 */
const REPLACED_RETRIES = 100;

/** The file was replaced by another (renamed over) while it was read. */
class ReplacedWhileRead extends Error {}

async function readContainedOnce(
  folder: string,
  names: readonly string[],
): Promise<string | undefined> {
  const shown = names.join('/');
  let path = folder;
  for (const [position, name] of names.entries()) {
    path = join(path, name);
    const info = await lstatOrUndefined(path);
    if (info === undefined) return undefined;
    const last = position === names.length - 1;
    if (info.isSymbolicLink() || (last ? !info.isFile() : !info.isDirectory())) {
      throw linkedFileError(shown);
    }
  }
  let handle: FileHandle;
  try {
    // O_NOFOLLOW: a symbolic link swapped in since the check is not followed (ELOOP);
    // O_NONBLOCK: a FIFO cannot hang the read. Windows has neither flag, and no FIFOs.
    handle = await open(
      path,
      constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
    );
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK') throw linkedFileError(shown);
    throw error;
  }
  try {
    const check = async () => {
      const opened = await handle.stat({ bigint: true });
      const named = await lstatOrUndefined(path);
      if (soleName(opened, named)) return;
      if (replacedBy(opened, named) || losingItsName(opened, named)) throw new ReplacedWhileRead();
      throw linkedFileError(shown);
    };
    await check();
    const text = await handle.readFile('utf8');
    // While a name is being removed, a lookup may still find it with the link count already
    // lowered: one check can be fooled by a hard link being unlinked at that moment. The lookup
    // of a name that does not exist waits for the folder's lock, which a removal holds to its
    // end, so the second check after it needs another removal timed just as exactly.
    await check();
    await lstatOrUndefined(join(dirname(path), `.settle-${randomBytes(9).toString('hex')}`));
    await check();
    return text;
  } finally {
    await handle.close();
  }
}
