// Reading the settings file without ever opening something that is not a regular file: a named
// pipe (FIFO) at its path would block the read until a writer comes (for good), a device could
// be read forever, a directory or a socket cannot be read at all.
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFileSync,
  type Stats,
  statSync,
} from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { ServerError } from '../errors.ts';
import { type Localized, localized } from '../language.ts';

/** Why the settings path cannot be used as the settings file. */
export interface SettingsFileProblem {
  /** The settings path. */
  path: string;
  /** What is there instead of a regular file, or `unreadable` (with the system's code). */
  kind: 'directory' | 'fifo' | 'socket' | 'device' | 'other' | 'unreadable';
  /** What the student reads: what is wrong and what to do. */
  message: Localized;
}

/** The settings file's content, its absence, or why it cannot be used. */
export type SettingsFileRead =
  | { kind: 'text'; text: string }
  | { kind: 'missing' }
  | { kind: 'unusable'; problem: SettingsFileProblem };

/**
 * Opened without blocking: a FIFO put there between the check and the open does not wedge the
 * process, and the open file is checked again before it is read. Windows has no such flag (and
 * no FIFOs at file paths).
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** What can be at the settings path instead of a regular file. */
type NotRegularKind = Exclude<SettingsFileProblem['kind'], 'unreadable'>;

const KIND_NAMES: Record<NotRegularKind, Localized> = {
  directory: localized('一个文件夹', 'a folder'),
  fifo: localized('一个命名管道（FIFO）', 'a named pipe (FIFO)'),
  socket: localized('一个套接字', 'a socket'),
  device: localized('一个设备文件', 'a device file'),
  other: localized('一个特殊文件', 'a special file'),
};

function kindOf(info: Stats): NotRegularKind | undefined {
  if (info.isFile()) return undefined;
  if (info.isDirectory()) return 'directory';
  if (info.isFIFO()) return 'fifo';
  if (info.isSocket()) return 'socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'device';
  return 'other';
}

function notRegular(path: string, kind: NotRegularKind) {
  const what = KIND_NAMES[kind];
  return {
    kind: 'unusable' as const,
    problem: {
      path,
      kind,
      message: localized(
        `设置文件 ${path} 是${what.zh}，不是普通文件：后端不会打开它，正在使用默认设置，设置也无法保存。请删除或移走它，然后重新保存设置。`,
        `The settings file ${path} is ${what.en}, not a regular file: the backend does not open it, uses the default settings and cannot save them. Remove or move it away, then save the settings again.`,
      ),
    },
  };
}

function unreadable(path: string, error: unknown): SettingsFileRead {
  const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return {
    kind: 'unusable',
    problem: {
      path,
      kind: 'unreadable',
      message: localized(
        `无法读取设置文件 ${path}（${reason}）：正在使用默认设置。请检查它的权限。`,
        `The settings file ${path} cannot be read (${reason}): the default settings are used. Check its permissions.`,
      ),
    },
  };
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Reads the settings file at `path` if it is a regular file (a link to one is fine): checked
 * before it is opened, opened without blocking, checked again once open.
 *
 * @example
 * const read = await readSettingsFile('/home/me/.env');
 * if (read.kind === 'unusable') console.log(read.problem.message.en);
 */
export async function readSettingsFile(path: string): Promise<SettingsFileRead> {
  try {
    const kind = kindOf(await stat(path));
    if (kind) return notRegular(path, kind);
    const handle = await open(path, OPEN_FLAGS);
    try {
      const opened = kindOf(await handle.stat());
      if (opened) return notRegular(path, opened);
      return { kind: 'text', text: await handle.readFile('utf8') };
    } finally {
      await handle.close();
    }
  } catch (error) {
    return isMissing(error) ? { kind: 'missing' } : unreadable(path, error);
  }
}

/** {@link readSettingsFile} without awaiting, for a read that must not wait (a cheap check). */
export function readSettingsFileSync(path: string): SettingsFileRead {
  try {
    const kind = kindOf(statSync(path));
    if (kind) return notRegular(path, kind);
    const fd = openSync(path, OPEN_FLAGS);
    try {
      const opened = kindOf(fstatSync(fd));
      if (opened) return notRegular(path, opened);
      return { kind: 'text', text: readFileSync(fd, 'utf8') };
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    return isMissing(error) ? { kind: 'missing' } : unreadable(path, error);
  }
}

/** The answer to a request that needs the settings file while it cannot be used (409). */
export function settingsFileError(problem: SettingsFileProblem): ServerError {
  return new ServerError('SETTINGS_FILE_UNUSABLE', problem.message, {
    field: 'settings_file',
    hint: problem.path,
  });
}
