// What of the data folder the class agent and the MCP tools may read: class content, and
// nothing else. The data folder also holds the MCP token, the shutdown token, the startup log,
// the library's database, models and whatever else a person puts there; a prompt (or a sentence
// in an uploaded slide) could ask a model to read any of it and send it to its provider. So the
// view is a list of what is allowed, not of what is forbidden: a file the list does not name is
// not there for the agent. Every file is read without following links (contained-file.ts).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isPlainFileName } from '../files.ts';
import { CLASS_FILES, isClassId } from '../library/class-folder.ts';
import { readContainedText } from '../security/contained-file.ts';

/** The live transcript of the running (or last) class. */
export const LIVE_TRANSCRIPT = 'class_transcript.txt';
/** The material of the running class. */
export const CURRENT_MATERIAL = 'current_class_material.txt';
/** Material texts written by uploads. */
export const CITE_FOLDER = 'cite';
/** Post-class notes. */
export const SUMMARIES_FOLDER = 'summaries';
/** The library's class folders. */
export const CLASSES_FOLDER = 'classes';

const CLASS_FOLDER_FILES: readonly string[] = Object.values(CLASS_FILES);

/**
 * The parts of `path` (relative to the data folder, `/` or `\` between parts, a leading `./`
 * allowed) when it names class content, else null:
 *
 * - `class_transcript.txt`, `current_class_material.txt`
 * - `cite/<name>.txt` (material texts), `summaries/<name>.md` (notes)
 * - `classes/<class-id>/transcript.txt`, `class.json`, `notes.md`, `material.txt`
 *
 * Pure: it says nothing of whether the file exists or is a link.
 *
 * @example
 * classContentPath('cite/week1.txt'); // ['cite', 'week1.txt']
 * classContentPath('mcp-token'); // null
 */
export function classContentPath(path: string): string[] | null {
  const parts = path.split(/[/\\]/).filter((part, position) => !(position === 0 && part === '.'));
  if (parts.some((part) => part === '' || part === '.' || part === '..')) return null;
  const [first = '', second = '', third = ''] = parts;
  switch (parts.length) {
    case 1:
      return first === LIVE_TRANSCRIPT || first === CURRENT_MATERIAL ? parts : null;
    case 2:
      if (first === CITE_FOLDER && isPlainFileName(second, '.txt')) return parts;
      if (first === SUMMARIES_FOLDER && isPlainFileName(second, '.md')) return parts;
      return null;
    case 3:
      return first === CLASSES_FOLDER && isClassId(second) && CLASS_FOLDER_FILES.includes(third)
        ? parts
        : null;
    default:
      return null;
  }
}

/**
 * The text of a class-content file of `dataDir`, or undefined when it does not exist. `parts`
 * must come from {@link classContentPath} (or name class content the same way). A link is
 * refused (`FILE_LINK_REFUSED`, naming the file).
 */
export function readClassContent(
  dataDir: string,
  parts: readonly string[],
): Promise<string | undefined> {
  return readContainedText(dataDir, parts);
}

/** The names in a folder (none when it is missing), sorted. */
async function namesIn(folder: string): Promise<string[]> {
  return (await readdir(folder).catch(() => [] as string[])).sort();
}

/**
 * Every class-content path that exists in `dataDir`, as `/`-separated paths relative to it: the
 * live files, then `cite/`, `summaries/` and the class folders (newest class first). Links are
 * listed too (reading them is refused, saying so).
 */
export async function listClassContent(dataDir: string): Promise<string[]> {
  const found: string[] = [];
  const top = new Set(await namesIn(dataDir));
  for (const name of [LIVE_TRANSCRIPT, CURRENT_MATERIAL]) if (top.has(name)) found.push(name);
  for (const folder of [CITE_FOLDER, SUMMARIES_FOLDER]) {
    for (const name of await namesIn(join(dataDir, folder))) {
      if (classContentPath(`${folder}/${name}`)) found.push(`${folder}/${name}`);
    }
  }
  const classes = (await namesIn(join(dataDir, CLASSES_FOLDER))).filter(isClassId).reverse();
  for (const id of classes) {
    for (const name of await namesIn(join(dataDir, CLASSES_FOLDER, id))) {
      if (CLASS_FOLDER_FILES.includes(name)) found.push(`${CLASSES_FOLDER}/${id}/${name}`);
    }
  }
  return found;
}
