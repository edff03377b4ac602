/**
 * Serving a class's kept audio (`classes/<id>/audio.ogg`) to a player: the file opened without
 * following a link, and the byte range a player asks for (`Range: bytes=…`) so that it can seek
 * to any line without loading the whole class.
 */
import { constants } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';
import { join } from 'node:path';
import { CLASS_FILES, DATA_FOLDER } from '../data-folder.ts';
import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';

/** The audio file of a class, open for reading, and its size when opened. */
export interface OpenedClassAudio {
  handle: FileHandle;
  size: number;
}

/** The bytes to send: `start` to `end`, both included. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * What to answer to a `Range` header for a file of `size` bytes: the full file (`'full'`: no
 * header, a header in another unit, several ranges, or one that does not parse — a server may
 * ignore those), one range, or `'unsatisfiable'` (416: it starts past the end).
 *
 * @example
 * byteRange('bytes=100-', 1000); // { start: 100, end: 999 }
 * byteRange('bytes=-200', 1000); // { start: 800, end: 999 }
 */
export function byteRange(
  header: string | undefined,
  size: number,
): ByteRange | 'full' | 'unsatisfiable' {
  if (header === undefined) return 'full';
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return 'full';
  const [, from = '', to = ''] = match;
  if (from === '' && to === '') return 'full';
  if (from === '') {
    // The last `to` bytes.
    const length = Number(to);
    if (length === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(from);
  if (start >= size) return 'unsatisfiable';
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (end < start) return 'full';
  return { start, end };
}

function noAudio(id: string): ServerError {
  return new ServerError(
    'CLASS_AUDIO_NOT_FOUND',
    localized(
      `课堂 ${id} 没有保存录音（上课时“保存课堂录音”是关闭的，或录音已被删除）。`,
      `Class ${id} has no audio kept (keeping the class audio was off during it, or the audio was deleted).`,
    ),
    { field: 'id' },
  );
}

/**
 * Opens the audio of class `id` (its folder known to exist). 404 `CLASS_AUDIO_NOT_FOUND` when it
 * has none; `FILE_LINK_REFUSED` when the file, or the class folder, is a link or not a regular
 * file with one name.
 */
export async function openClassAudio(dataDir: string, id: string): Promise<OpenedClassAudio> {
  const folder = join(dataDir, DATA_FOLDER.classes.name, id);
  const path = join(folder, CLASS_FILES.audio);
  const refused = new ServerError(
    'FILE_LINK_REFUSED',
    localized(
      `没有读取课堂 ${id} 的录音：它是一个链接或不是普通文件。`,
      `The audio of class ${id} was not read: it is a link or not a regular file.`,
    ),
  );
  const folderInfo = await lstat(folder).catch(() => undefined);
  if (folderInfo?.isSymbolicLink()) throw refused;
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw noAudio(id);
    if (code === 'ELOOP') throw refused;
    throw error;
  }
  const info = await handle.stat();
  if (!info.isFile() || info.nlink !== 1) {
    await handle.close();
    throw refused;
  }
  return { handle, size: info.size };
}
