// The first start of a version with the class library: the class an earlier version left in
// data/class_transcript.txt and the notes in data/summaries/ become classes of the library.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseTranscript } from '@class-assistant/transcript-core';
import { CLASS_FILES, dataPaths } from '../data-folder.ts';
import { readTextIfExists } from '../files.ts';
import { parseNotesFilename } from '../material/notes-store.ts';
import {
  type ClassMeta,
  newClassId,
  parseHeaderTime,
  syncFolder,
  writeClassMeta,
} from './class-folder.ts';

/** Notes written this long after a class started are taken as that class's notes. */
const NOTES_WINDOW_MS = 24 * 3600 * 1000;

/** A stable id suffix for an imported file, so that an interrupted import repeats itself exactly. */
function stableSuffix(source: string): () => string {
  return () =>
    BigInt(`0x${createHash('sha256').update(source).digest('hex').slice(0, 12)}`)
      .toString(36)
      .padStart(4, '0')
      .slice(-4);
}

interface ImportedClass {
  folder: string;
  meta: ClassMeta;
}

/**
 * Imports an earlier version's files when `classesDir` does not exist yet (the first start with
 * the library). Everything is prepared in a sibling folder that is renamed into place at the
 * end: an import cut short by a crash is simply done again. The original files are left as
 * they are (the original client still reads them).
 */
export async function importEarlierVersion(options: {
  dataDir: string;
  classesDir: string;
  logger: { info(object: object, message?: string): void };
}): Promise<void> {
  const { dataDir, classesDir } = options;
  if (await stat(classesDir).catch(() => null)) return;
  const paths = dataPaths(dataDir);
  const staging = paths.classesImporting;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  const imported: ImportedClass[] = [];

  const livePath = paths.liveTranscript;
  const liveText = await readTextIfExists(livePath);
  let liveClass: ImportedClass | null = null;
  if (liveText !== undefined) {
    const document = parseTranscript(liveText);
    if (document.entries.length > 0 || document.summary !== '') {
      const info = await stat(livePath);
      const startedAt = parseHeaderTime(document.header.startedAt) ?? info.mtime;
      const id = newClassId(startedAt, stableSuffix(`live:${document.header.startedAt}`));
      const folder = join(staging, id);
      await mkdir(folder);
      await writeFile(join(folder, CLASS_FILES.transcript), liveText);
      const material = document.header.materialName
        ? await readTextIfExists(paths.currentMaterial)
        : undefined;
      if (material) await writeFile(join(folder, CLASS_FILES.material), material);
      liveClass = {
        folder,
        meta: {
          id,
          course_name: document.header.courseName ?? '',
          material_name: document.header.materialName ?? '',
          started_at: startedAt.toISOString(),
          ended_at: info.mtime.toISOString(),
          line_count: document.entries.length,
          alerts: [],
          notes_file: null,
          material_file: material ? CLASS_FILES.material : null,
        },
      };
      imported.push(liveClass);
    }
  }

  const summariesDir = paths.summaries;
  const names = (await readdir(summariesDir).catch(() => [] as string[]))
    .filter((name) => name.toLowerCase().endsWith('.md'))
    .sort();
  let liveNotes: { name: string; time: number } | null = null;
  for (const name of names) {
    const path = join(summariesDir, name);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) continue;
    const { courseName, writtenAt } = parseNotesFilename(name);
    const written = writtenAt ?? info.mtime;
    if (liveClass) {
      const started = Date.parse(liveClass.meta.started_at);
      const sameCourse = courseName === '' || courseName === liveClass.meta.course_name;
      const delay = written.getTime() - started;
      if (sameCourse && delay >= 0 && delay <= NOTES_WINDOW_MS) {
        if (!liveNotes || written.getTime() >= liveNotes.time) {
          liveNotes = { name, time: written.getTime() };
        }
        continue;
      }
    }
    // Notes of a class whose transcript is gone: a class of its own, with the notes only.
    const id = newClassId(written, stableSuffix(`notes:${name}`));
    const folder = join(staging, id);
    await mkdir(folder);
    await writeFile(join(folder, CLASS_FILES.transcript), '');
    await writeFile(join(folder, CLASS_FILES.notes), await readFile(path));
    imported.push({
      folder,
      meta: {
        id,
        course_name: courseName,
        material_name: '',
        started_at: written.toISOString(),
        ended_at: written.toISOString(),
        line_count: 0,
        alerts: [],
        notes_file: CLASS_FILES.notes,
        material_file: null,
      },
    });
  }
  if (liveClass && liveNotes) {
    await writeFile(
      join(liveClass.folder, CLASS_FILES.notes),
      await readFile(join(summariesDir, liveNotes.name)),
    );
    liveClass.meta.notes_file = CLASS_FILES.notes;
  }
  for (const { folder, meta } of imported) {
    await writeClassMeta(folder, meta, { durable: true });
    await syncFolder(folder);
  }
  await syncFolder(staging);
  await rename(staging, classesDir);
  await syncFolder(dataDir);
  if (imported.length > 0) {
    options.logger.info(
      { classes: imported.length },
      `library: imported ${imported.length} class(es) from an earlier version (class_transcript.txt, summaries/)`,
    );
  }
}
