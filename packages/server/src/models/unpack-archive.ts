/**
 * Unpacks a model archive (ZIP) into an empty folder, streaming each entry to disk with yauzl.
 * A model comes from the network, so the archive is treated as hostile: entries that would land
 * outside the folder (`../`, absolute paths, drive letters), links and other special entries,
 * and archives whose entries inflate past the caps are refused before or while they are written.
 * The caller unpacks into a temporary folder and renames it into place only after success.
 */
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type yauzl from 'yauzl';
import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';

/** Caps of {@link unpackArchive}. */
export interface UnpackLimits {
  /** Most bytes all entries may inflate to. */
  maxTotalBytes: number;
  /** Most entries. */
  maxEntries: number;
}

/** Defaults: a large Vosk model unpacks to under 4 GB in under 100 files. */
export const DEFAULT_UNPACK_LIMITS: UnpackLimits = {
  maxTotalBytes: 16 * 1024 ** 3,
  maxEntries: 100_000,
};

/** What was unpacked. */
export interface UnpackResult {
  files: number;
  bytes: number;
}

const invalid = (archive: string, reason: string) =>
  new ServerError(
    'MODEL_ARCHIVE_INVALID',
    localized(
      `模型压缩包 ${archive} 被拒绝了：${reason}。没有安装任何东西。`,
      `The model archive ${archive} was refused: ${reason}. Nothing was installed.`,
    ),
  );

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

// yauzl is loaded by the first unpack, not with the server.
async function openZip(path: string): Promise<yauzl.ZipFile> {
  const { default: zipReader } = await import('yauzl');
  return new Promise((resolvePromise, reject) => {
    zipReader.open(
      path,
      // validateEntrySizes: an entry that inflates past its declared size is an error.
      { lazyEntries: true, autoClose: true, validateEntrySizes: true, decodeStrings: true },
      (error, zip) => (error ? reject(error) : resolvePromise(zip)),
    );
  });
}

function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<NodeJS.ReadableStream> {
  return new Promise((resolvePromise, reject) => {
    zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolvePromise(stream)));
  });
}

/**
 * The path an entry is written to inside `folder`, or why it may not be written. yauzl already
 * refuses absolute names and `..` segments; this checks again on the resolved path, so no name
 * can reach outside whatever yauzl lets through.
 */
export function entryTarget(folder: string, name: string): string | { problem: string } {
  const clean = name.replace(/\\/g, '/');
  if (clean.includes('\0')) return { problem: `the entry "${name}" has a NUL in its name` };
  if (isAbsolute(clean) || /^[A-Za-z]:/.test(clean) || clean.startsWith('/')) {
    return { problem: `the entry "${name}" has an absolute path` };
  }
  const target = resolve(folder, clean);
  const inside = relative(folder, target);
  if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
    return { problem: `the entry "${name}" would be written outside the model folder` };
  }
  return target;
}

/**
 * Unpacks `archive` into `folder` (created if missing; should be empty). Throws
 * MODEL_ARCHIVE_INVALID naming the entry or cap at fault; what was written stays in `folder`
 * for the caller to remove.
 *
 * @example
 * await unpackArchive('model.zip', 'models/.tmp-model-1234/content');
 */
export async function unpackArchive(
  archive: string,
  folder: string,
  limits: UnpackLimits = DEFAULT_UNPACK_LIMITS,
  signal?: AbortSignal,
): Promise<UnpackResult> {
  const root = resolve(folder);
  await mkdir(root, { recursive: true });
  let zip: yauzl.ZipFile;
  try {
    zip = await openZip(archive);
  } catch (error) {
    throw invalid(archive, `it is not a readable ZIP file (${(error as Error).message})`);
  }
  if (zip.entryCount > limits.maxEntries) {
    zip.close();
    throw invalid(archive, `it has ${zip.entryCount} entries, more than ${limits.maxEntries}`);
  }
  let declared = 0;
  let written = 0;
  let files = 0;
  const madeFolders = new Set<string>([root]);
  const ensureFolder = async (path: string) => {
    if (madeFolders.has(path)) return;
    await mkdir(path, { recursive: true });
    madeFolders.add(path);
  };

  return new Promise<UnpackResult>((resolvePromise, reject) => {
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      zip.close();
      reject(
        (error as { code?: string }).code === 'MODEL_ARCHIVE_INVALID' ||
          (error as { code?: string }).code === 'MODEL_DOWNLOAD_CANCELLED'
          ? error
          : invalid(archive, (error as Error).message),
      );
    };
    const onAbort = () =>
      fail(
        new ServerError(
          'MODEL_DOWNLOAD_CANCELLED',
          localized('模型安装已取消。', 'The model installation was cancelled.'),
        ),
      );
    signal?.addEventListener('abort', onAbort, { once: true });
    zip.on('error', fail);
    zip.on('end', () => {
      signal?.removeEventListener('abort', onAbort);
      if (settled) return;
      settled = true;
      resolvePromise({ files, bytes: written });
    });
    zip.on('entry', (entry: yauzl.Entry) => {
      void (async () => {
        const target = entryTarget(root, entry.fileName);
        if (typeof target !== 'string') throw invalid(archive, target.problem);
        const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
        const isFolder = entry.fileName.endsWith('/');
        if (mode !== 0 && mode !== (isFolder ? S_IFDIR : S_IFREG)) {
          throw invalid(
            archive,
            `the entry "${entry.fileName}" is a link or a special file, which a model never has`,
          );
        }
        if (isFolder) {
          await ensureFolder(target);
          zip.readEntry();
          return;
        }
        declared += entry.uncompressedSize;
        if (declared > limits.maxTotalBytes) {
          throw invalid(
            archive,
            `it would unpack to more than ${limits.maxTotalBytes} bytes (a zip bomb?)`,
          );
        }
        await ensureFolder(dirname(target));
        const stream = await openEntry(zip, entry);
        const count = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            written += chunk.length;
            if (written > limits.maxTotalBytes) {
              done(
                invalid(
                  archive,
                  `it unpacks to more than ${limits.maxTotalBytes} bytes (a zip bomb?)`,
                ),
              );
              return;
            }
            done(null, chunk);
          },
        });
        // 'wx': never follow or overwrite something already at the target.
        await pipeline(stream, count, createWriteStream(target, { flags: 'wx' }));
        files++;
        zip.readEntry();
      })().catch(fail);
    });
    zip.readEntry();
  });
}
