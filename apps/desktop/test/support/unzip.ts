// Reading release archives back with yauzl, as a student's unzip tool would see them.
import { createWriteStream } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';

/** An entry's name and unix mode. */
export interface ZipEntryInfo {
  name: string;
  mode: number;
}

/** Every entry of a zip. */
export async function zipEntries(path: string): Promise<ZipEntryInfo[]> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true });
  const entries: ZipEntryInfo[] = [];
  for await (const entry of zip.eachEntry()) {
    entries.push({ name: entry.fileName, mode: (entry.externalFileAttributes >>> 16) & 0o177777 });
  }
  return entries;
}

/** Unpacks a zip into `destination`, restoring executable bits. */
export async function unzip(path: string, destination: string): Promise<void> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
  try {
    for await (const entry of zip.eachEntry()) {
      const target = resolve(destination, entry.fileName);
      if (!target.startsWith(resolve(destination)))
        throw new Error(`unsafe entry ${entry.fileName}`);
      if (entry.fileName.endsWith('/')) {
        await mkdir(target, { recursive: true });
        continue;
      }
      await mkdir(dirname(target), { recursive: true });
      await pipeline(await zip.openReadStreamPromise(entry), createWriteStream(target));
      const mode = (entry.externalFileAttributes >>> 16) & 0o777;
      if (mode !== 0) await chmod(target, mode);
    }
  } finally {
    zip.close();
  }
}
