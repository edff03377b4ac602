/**
 * The models the app can fetch by itself: each archive's file name, size and pinned checksums.
 * A download is installed only when its size and SHA-256 (and MD5, where one is pinned) match
 * the values here, wherever it came from: the official host or a mirror (MODELS_BASE_URL).
 *
 * Where the pinned values come from (the official host cannot be reached from where this
 * catalogue was written, so no value was computed here):
 *
 * - **Size and MD5**: the official list https://alphacephei.com/vosk/models/model-list.json
 *   publishes both for every archive (no SHA-256). The values below were read from verbatim
 *   copies of that list's entries kept in public repositories; trustworthy as far as those copies
 *   are faithful (each size also agrees with independently published ones).
 * - **SHA-256**: not published by Alpha Cephei. The values below are each pinned by many
 *   unrelated public projects (Yocto recipes, Arch user packages, app installers in Java, Kotlin,
 *   Python and shell) that downloaded the official archive and agree byte for byte. Independent
 *   agreement, not an official statement: a model whose SHA-256 could not be found this way is
 *   not in the catalogue.
 *
 * | id                | archive                                | size (official) | MD5 (official)                   | SHA-256 (independently published, 8+ projects each)              |
 * | ----------------- | -------------------------------------- | --------------- | -------------------------------- | ---------------------------------------------------------------- |
 * | vosk-small-cn     | vosk-model-small-cn-0.22.zip           | 43898754        | d1a8e82933dcc7632667c036b0bb3dbb | 3af8b0e7e0f835ae9d414ce5df580237a3cfb08d586c9fbbb0f7ff29ad5b14ba |
 * | vosk-small-en-us  | vosk-model-small-en-us-0.15.zip        | 41205931        | (not found)                      | 30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498 |
 * | vosk-en-us-lgraph | vosk-model-en-us-0.22-lgraph.zip       | 130557655       | 2df36985f8ed8eb7b78476cadcdab48f | d9838b4aaa82a75c4a17f5aca300eaca129aaab2a7cbf951bafbb500eb9c4334 |
 *
 * The big models (vosk-model-cn-0.22, 1.3 GB; vosk-model-en-us-0.22, 1.8 GB) are left out: no
 * copy of their official size and MD5 and no independently published SHA-256 could be found.
 * Students who want them can still fetch them checked, with their own checksum:
 * `class-assistant-backend models pull --url <url> --sha256 <hex> --name <folder>`.
 */

/** Offline engines a model can be for (`sherpa`: a sherpa-onnx model folder). */
export type ModelEngine = 'vosk' | 'pocketsphinx' | 'sherpa';

/** Class languages of the local mode (LOCAL_ASR_LANGUAGE). */
export type ModelLanguage = 'zh' | 'en';

/** One model the app can download. */
export interface ModelCatalogueEntry {
  /** Stable id used by the CLI, the API and the UI, e.g. `vosk-small-cn`. */
  id: string;
  /** The folder it is installed as under `<data>/models/`, e.g. `vosk-model-small-cn-0.22`. */
  name: string;
  engine: ModelEngine;
  language: ModelLanguage;
  /** The archive's file name on the model host (and on any mirror). */
  file: string;
  /** Exact size of the archive in bytes. */
  sizeBytes: number;
  /** Lower-case hex SHA-256 of the archive. */
  sha256: string;
  /** Lower-case hex MD5 of the archive, when the official list's value is known. */
  md5?: string;
  /** One line for the student: what the model is good for. */
  description: string;
}

/** The official model host; `MODELS_BASE_URL` replaces it with a mirror of the same files. */
export const DEFAULT_MODELS_BASE_URL = 'https://alphacephei.com/vosk/models';

/** The catalogue the app ships (see the table above for the provenance of every value). */
export const OFFICIAL_MODEL_CATALOGUE: readonly ModelCatalogueEntry[] = [
  {
    id: 'vosk-small-cn',
    name: 'vosk-model-small-cn-0.22',
    engine: 'vosk',
    language: 'zh',
    file: 'vosk-model-small-cn-0.22.zip',
    sizeBytes: 43_898_754,
    sha256: '3af8b0e7e0f835ae9d414ce5df580237a3cfb08d586c9fbbb0f7ff29ad5b14ba',
    md5: 'd1a8e82933dcc7632667c036b0bb3dbb',
    description: 'Chinese (Mandarin), small: good for a lecture on a laptop',
  },
  {
    id: 'vosk-small-en-us',
    name: 'vosk-model-small-en-us-0.15',
    engine: 'vosk',
    language: 'en',
    file: 'vosk-model-small-en-us-0.15.zip',
    sizeBytes: 41_205_931,
    sha256: '30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498',
    description: 'US English, small: good for a lecture on a laptop',
  },
  {
    id: 'vosk-en-us-lgraph',
    name: 'vosk-model-en-us-0.22-lgraph',
    engine: 'vosk',
    language: 'en',
    file: 'vosk-model-en-us-0.22-lgraph.zip',
    sizeBytes: 130_557_655,
    sha256: 'd9838b4aaa82a75c4a17f5aca300eaca129aaab2a7cbf951bafbb500eb9c4334',
    md5: '2df36985f8ed8eb7b78476cadcdab48f',
    description: 'US English, large: more accurate, needs about 1 GB of memory',
  },
];

/** The archive's address on the host `baseUrl` (empty: {@link DEFAULT_MODELS_BASE_URL}). */
export function modelArchiveUrl(entry: Pick<ModelCatalogueEntry, 'file'>, baseUrl = ''): string {
  const base = (baseUrl.trim() || DEFAULT_MODELS_BASE_URL).replace(/\/+$/, '');
  return `${base}/${encodeURIComponent(entry.file)}`;
}

/**
 * The folder name of a model, checked: letters, digits, `.`, `_` and `-`, not starting with a
 * dot (folders starting with one are the manager's own), at most 100 characters.
 */
export function modelNameProblem(name: string): string | undefined {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name)) {
    return `"${name}" is not a model folder name: use letters, digits, ".", "_" and "-" (at most 100, not starting with a dot)`;
  }
  return undefined;
}

/** The class language a model's folder name suggests (`-cn-`, `-zh-` or `-en-`), if any. */
export function languageFromName(name: string): ModelLanguage | undefined {
  const parts = name.toLowerCase().split(/[-_.]/);
  if (parts.includes('cn') || parts.includes('zh')) return 'zh';
  if (parts.includes('en')) return 'en';
  return undefined;
}
