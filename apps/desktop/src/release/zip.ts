// The release archive: every file of the release folder under one top folder, executables
// marked executable and owner-only files kept owner-only (unix mode in the zip's external
// attributes) so they run, and stay private, after unzip.
import { createWriteStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';

async function filesUnder(root: string, folder = root): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      const inside = await filesUnder(root, path);
      // Keep empty folders (data/) in the archive.
      files.push(...(inside.length > 0 ? inside : [`${path}/`]));
    } else if (entry.isFile()) {
      files.push(path);
    }
  }
  return files;
}

/**
 * Zips `folder` into `zipPath` with every entry under `topFolder/`.
 *
 * @example
 * await writeReleaseZip('release', 'dist/class-assistant-1.2.0-linux-x64.zip', 'ClassAssistant-1.2.0');
 */
export async function writeReleaseZip(
  folder: string,
  zipPath: string,
  topFolder: string,
  /** Folders shipped empty (their files stay out of the archive), e.g. `data`. */
  emptyFolders: readonly string[] = [],
): Promise<number> {
  const zip = new yazl.ZipFile();
  const skipped = emptyFolders.map((name) => join(folder, name));
  const files = [
    ...skipped.map((path) => `${path}/`),
    ...(await filesUnder(folder)).filter(
      (file) =>
        !skipped.some(
          (path) =>
            file === `${path}/` || file.startsWith(`${path}/`) || file.startsWith(`${path}\\`),
        ),
    ),
  ];
  for (const file of files) {
    const name = `${topFolder}/${relative(folder, file).replaceAll('\\', '/')}`;
    if (file.endsWith('/')) {
      zip.addEmptyDirectory(name.replace(/\/$/, ''), { mode: 0o40755 });
      continue;
    }
    const info = await stat(file);
    const executable = (info.mode & 0o111) !== 0 || file.endsWith('.exe');
    // Owner-only files (the settings, which will hold API keys) stay owner-only when unpacked.
    const ownerOnly = (info.mode & 0o077) === 0;
    zip.addFile(file, name, {
      mode: executable ? 0o100755 : ownerOnly ? 0o100600 : 0o100644,
      mtime: info.mtime,
      compress: true,
    });
  }
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(zipPath));
  return files.length;
}
