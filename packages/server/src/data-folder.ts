// The data folder's layout: every file and folder the backend, its CLIs and the desktop launcher
// keep in it, named once, each with what it is. Code that needs a path of the data folder takes
// it from here (`dataPaths`); the class agent's and the MCP tools' read view takes from here what
// is class content (readable) and what is not (secrets, logs, indexes, models, temporary files,
// settings). It imports only node:path, so the launcher can use it without the server.
import { dirname, join } from 'node:path';

/**
 * What a file of the data folder is:
 *
 * - `class-content`: what the student's classes consist of (transcripts, material, notes); the
 *   only kind the class agent and the MCP tools may read
 * - `settings`: edited by the student (the keywords file)
 * - `secret`: tokens and the app window's browser profile (its login cookie)
 * - `log`: diagnostics
 * - `index`: rebuilt from class content (the library's database)
 * - `model`: offline recognition models
 * - `temporary`: exists while something runs, removed or replaced afterwards
 */
export type DataKind =
  | 'class-content'
  | 'settings'
  | 'secret'
  | 'log'
  | 'index'
  | 'model'
  | 'temporary';

/** One file or folder at the top of the data folder. */
export interface DataFolderEntry {
  /** Its name in the data folder. */
  name: string;
  folder: boolean;
  kind: DataKind;
  /** What it holds, in a sentence. */
  what: string;
  /** A class-content folder of plain files: the extension of the files that are class content. */
  files?: '.txt' | '.md';
  /** A class-content folder of class folders (`<class-id>/` holding {@link CLASS_FILES}). */
  classFolders?: true;
}

const ENTRIES = {
  liveTranscript: {
    name: 'class_transcript.txt',
    folder: false,
    kind: 'class-content',
    what: 'the live class: header lines, an optional history-summary block, `[HH:MM:SS] text` lines',
  },
  currentMaterial: {
    name: 'current_class_material.txt',
    folder: false,
    kind: 'class-content',
    what: 'the material activated by start_monitor (empty without one)',
  },
  cite: {
    name: 'cite',
    folder: true,
    kind: 'class-content',
    files: '.txt',
    what: 'material texts written by uploads, with page markers',
  },
  summaries: {
    name: 'summaries',
    folder: true,
    kind: 'class-content',
    files: '.md',
    what: 'post-class notes, Markdown, `{course}_{YYYYMMDD}_{HHMMSS}.md`',
  },
  classes: {
    name: 'classes',
    folder: true,
    kind: 'class-content',
    classFolders: true,
    what: 'every class kept: `<class-id>/` with transcript.txt (all lines), class.json, notes, material, marked moments, each line’s page/translation/audio position (lines.jsonl), the audio (audio.ogg)',
  },
  classesImporting: {
    name: 'classes.importing',
    folder: true,
    kind: 'temporary',
    what: 'the class folders being made from an earlier version’s files, renamed to classes/ when done',
  },
  keywords: {
    name: 'keywords.txt',
    folder: false,
    kind: 'settings',
    what: 'one keyword per line, `#` comments, editable by hand',
  },
  libraryIndex: {
    name: 'library.db',
    folder: false,
    kind: 'index',
    what: 'the search index over classes/ (SQLite, with its -wal and -shm files), rebuilt from the folders',
  },
  models: {
    name: 'models',
    folder: true,
    kind: 'model',
    what: 'offline models, `<name>/` each; `.tmp-<name>-<pid>/` and `.download/` while one is installed',
  },
  imports: {
    name: 'imports',
    folder: true,
    kind: 'temporary',
    what: 'recordings being imported: `<import-id>/` with import.json (its state) and the uploaded file while the import can still resume (removed when done)',
  },
  temporary: {
    name: '.tmp',
    folder: true,
    kind: 'temporary',
    what: 'the backend’s temporary files (a class’s hot-words files), removed when done',
  },
  startupLog: {
    name: '_startup.log',
    folder: false,
    kind: 'log',
    what: 'the backend’s log (capped; `.1` and `.2` are the earlier files)',
  },
  mcpToken: {
    name: 'mcp-token',
    folder: false,
    kind: 'secret',
    what: 'the bearer token of /mcp, made at the first start and kept (owner-only)',
  },
  shutdownToken: {
    name: '_shutdown.token',
    folder: false,
    kind: 'secret',
    what: 'this run’s token for POST /api/shutdown (owner-only)',
  },
  launcherLog: {
    name: '_launcher.log',
    folder: false,
    kind: 'log',
    what: 'the desktop launcher’s log',
  },
  launcherLock: {
    name: '_launcher.lock',
    folder: false,
    kind: 'temporary',
    what: 'the desktop launcher’s instance lock (one launcher per data folder)',
  },
  browserProfile: {
    name: 'browser-profile',
    folder: true,
    kind: 'secret',
    what: 'the browser profile of the app window (its login cookie)',
  },
} satisfies Record<string, DataFolderEntry>;

/** The keys of {@link DATA_FOLDER} (and of {@link dataPaths}). */
export type DataFolderKey = keyof typeof ENTRIES;

/** Every file and folder at the top of the data folder, by key. */
export const DATA_FOLDER: Readonly<Record<DataFolderKey, DataFolderEntry>> = ENTRIES;

/** The files of a class folder (`classes/<class-id>/`), all class content. */
export const CLASS_FILES = {
  transcript: 'transcript.txt',
  meta: 'class.json',
  notes: 'notes.md',
  material: 'material.txt',
  marks: 'marks.json',
  /** Each line’s page, translation and audio position, one JSON change per line (line-extras.ts). */
  lineExtras: 'lines.jsonl',
  /** The class’s audio as it was heard, Ogg Opus (when KEEP_AUDIO is on). */
  audio: 'audio.ogg',
} as const;

/** In `models/`: the `.part` files being downloaded and their locks. */
export const MODEL_DOWNLOADS_FOLDER = '.download';

/** The absolute (or `dataDir`-relative) path of every entry of the data folder. */
export type DataPaths = Readonly<Record<DataFolderKey, string>> & {
  /** The data folder itself. */
  readonly root: string;
};

/**
 * The paths of a data folder.
 *
 * @example
 * const paths = dataPaths('/home/me/.class-assistant/data');
 * paths.summaries; // '/home/me/.class-assistant/data/summaries'
 */
export function dataPaths(dataDir: string): DataPaths {
  const paths: Record<string, string> = { root: dataDir };
  for (const [key, entry] of Object.entries(DATA_FOLDER)) paths[key] = join(dataDir, entry.name);
  return paths as DataPaths;
}

/** `<models>/.download`: `.part` files being downloaded and their locks. */
export function modelDownloadsPath(modelsFolder: string): string {
  return join(modelsFolder, MODEL_DOWNLOADS_FOLDER);
}

/** The settings file's name in the app folder (where it is when no path is given). */
export const SETTINGS_FILE_NAME = '.env';

/** The data folder's name next to the settings file (where it is when no path is given). */
export const DATA_FOLDER_NAME = 'data';

/**
 * The settings file and the data folder of an app folder, when neither is given.
 *
 * @example
 * appFolderPaths('/home/me/.class-assistant'); // { settingsFile: '…/.env', dataDir: '…/data' }
 */
export function appFolderPaths(folder: string): { settingsFile: string; dataDir: string } {
  return {
    settingsFile: join(folder, SETTINGS_FILE_NAME),
    dataDir: join(folder, DATA_FOLDER_NAME),
  };
}

/** The data folder next to a settings file (when only the settings file is given). */
export function dataDirBeside(settingsFile: string): string {
  return join(dirname(settingsFile), DATA_FOLDER_NAME);
}

/** The entries of one kind, e.g. every secret of the data folder. */
export function entriesOfKind(kind: DataKind): DataFolderEntry[] {
  return Object.values(DATA_FOLDER).filter((entry) => entry.kind === kind);
}
