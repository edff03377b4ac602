// What of the data folder the class agent and the MCP tools may read: class content, and
// nothing else. The data folder also holds the MCP token, the shutdown token, the startup log,
// the library's database, models and whatever else a person puts there; a prompt (or a sentence
// in an uploaded slide) could ask a model to read any of it and send it to its provider. So the
// view is a list of what is allowed, not of what is forbidden: a file the list does not name is
// not there for the agent. Every file is read without following links (contained-file.ts).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CLASS_FILES, type DataFolderEntry, entriesOfKind } from '../data-folder.ts';
import { isPlainFileName } from '../files.ts';
import { isClassId } from '../library/class-folder.ts';
import { readContainedText } from '../security/contained-file.ts';

/**
 * What of the data folder is class content, from its layout (data-folder.ts): every other kind
 * (secrets, logs, the index, models, settings, temporary files) is not in the view.
 */
const CLASS_CONTENT: readonly DataFolderEntry[] = entriesOfKind('class-content');
const LIVE_FILES: readonly string[] = CLASS_CONTENT.filter((entry) => !entry.folder).map(
  (entry) => entry.name,
);
const FILE_FOLDERS: ReadonlyMap<string, string> = new Map(
  CLASS_CONTENT.flatMap((entry) =>
    entry.folder && entry.files ? [[entry.name, entry.files]] : [],
  ),
);
const CLASS_FOLDER_PARENTS: readonly string[] = CLASS_CONTENT.filter(
  (entry) => entry.folder && entry.classFolders,
).map((entry) => entry.name);
// The class's audio is not text: the agent reads the lines instead.
const CLASS_FOLDER_FILES: readonly string[] = Object.values(CLASS_FILES).filter(
  (name) => name !== CLASS_FILES.audio,
);

/**
 * The parts of `path` (relative to the data folder, `/` or `\` between parts, a leading `./`
 * allowed) when it names class content, else null:
 *
 * - `class_transcript.txt`, `current_class_material.txt`
 * - `cite/<name>.txt` (material texts), `summaries/<name>.md` (notes)
 * - `classes/<class-id>/transcript.txt`, `class.json`, `notes.md`, `material.txt`, `marks.json`,
 *   `lines.jsonl` (not the audio)
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
      return LIVE_FILES.includes(first) ? parts : null;
    case 2: {
      const extension = FILE_FOLDERS.get(first);
      return extension !== undefined && isPlainFileName(second, extension) ? parts : null;
    }
    case 3:
      return CLASS_FOLDER_PARENTS.includes(first) &&
        isClassId(second) &&
        CLASS_FOLDER_FILES.includes(third)
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
  for (const name of LIVE_FILES) if (top.has(name)) found.push(name);
  for (const folder of FILE_FOLDERS.keys()) {
    for (const name of await namesIn(join(dataDir, folder))) {
      if (classContentPath(`${folder}/${name}`)) found.push(`${folder}/${name}`);
    }
  }
  for (const parent of CLASS_FOLDER_PARENTS) {
    const classes = (await namesIn(join(dataDir, parent))).filter(isClassId).reverse();
    for (const id of classes) {
      for (const name of await namesIn(join(dataDir, parent, id))) {
        if (CLASS_FOLDER_FILES.includes(name)) found.push(`${parent}/${id}/${name}`);
      }
    }
  }
  return found;
}
