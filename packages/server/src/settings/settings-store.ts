import { chmod, stat } from 'node:fs/promises';
import { ServerError } from '../errors.ts';
import { createSerialQueue, readTextIfExists } from '../files.ts';
import { type FilePrivacyOptions, writePrivateFileAtomic } from '../security/private-file.ts';
import { type EnvDocument, getEnvValue, parseEnv, serializeEnv, setEnvValue } from './env-file.ts';
import { extraLinesOf, mergeExtraLines, serializeLines } from './extra-lines.ts';
import { maskDocument, maskSecret, unmaskDocument } from './secret-mask.ts';
import {
  type ResolvedSettings,
  SETTING_DEFINITIONS,
  type SettingApplies,
  type SettingDefinition,
  settingDefinition,
} from './settings-schema.ts';

export { maskSecret } from './secret-mask.ts';

export type { ResolvedSettings } from './settings-schema.ts';

/** A main key whose stored value could not be used (the default is used instead). */
export interface SettingProblem {
  key: string;
  source: 'file' | 'environment';
  message: string;
}

/** What GET /api/settings shows. */
export interface SettingsView {
  /** The whole file with secret values masked. */
  content: string;
  path: string;
  exists: boolean;
  /** Main keys as stored in the file (absent keys: empty), secrets masked. */
  fields: Record<string, string>;
  /** Every line that is not a main key: comments, blank lines, other keys, in order. */
  extraLines: string;
  /** Effective values (file, environment, defaults), secrets masked. */
  effective: Record<string, string>;
  /** Keys whose value comes from the process environment and wins over the file. */
  environmentOverrides: string[];
  problems: SettingProblem[];
  /** 1-based numbers of lines that are neither comments nor KEY=value (kept as they are). */
  invalidLines: number[];
}

/** What a save changed and when each change takes effect. */
export interface SettingsSaveResult {
  changed: string[];
  appliedNow: string[];
  nextClass: string[];
  restartRequired: string[];
  /** Changed keys that an environment variable overrides (the file change shows after it is unset). */
  overriddenByEnvironment: string[];
}

/** Options of {@link createSettingsStore}. */
export interface SettingsStoreOptions {
  /** The `.env` file. */
  path: string;
  /** Process environment whose main keys override the file (default: none). */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Where the store says what it did on its own (tightening the file's permissions). */
  logger?: { warn(details: object, message?: string): void };
  /** How the file is kept private on Windows (the platform and the command runner, for tests). */
  privacy?: FilePrivacyOptions;
}

/** Reads, validates, masks and atomically writes the settings file. */
export interface SettingsStore {
  readonly path: string;
  /** Re-reads the file. */
  load(): Promise<void>;
  /** The effective settings (cheap; call it whenever a value is needed). */
  current(): ResolvedSettings;
  problems(): SettingProblem[];
  view(): SettingsView;
  /** Saves raw file content (the original client's `{content}`); masked secrets keep their value. */
  saveContent(content: string): Promise<SettingsSaveResult>;
  /** Saves main fields and optionally the extra lines; everything else keeps its bytes. */
  saveFields(
    fields: Record<string, string>,
    extraLines?: string | undefined,
  ): Promise<SettingsSaveResult>;
}

/**
 * Creates the settings store of one `.env` file and loads it.
 *
 * @example
 * const settings = await createSettingsStore({ path: '/app/.env', environment: process.env });
 * settings.current().llmModel; // 'deepseek-chat' unless set
 * await settings.saveFields({ LLM_MODEL: 'gpt-4o-mini' });
 */
export async function createSettingsStore(options: SettingsStoreOptions): Promise<SettingsStore> {
  const environment = options.environment ?? {};
  const serial = createSerialQueue();
  let document: EnvDocument = { lines: [] };
  let exists = false;
  let resolved: { settings: ResolvedSettings; problems: SettingProblem[] } = resolveSettings(
    document,
    environment,
  );

  async function load(): Promise<void> {
    const text = await readTextIfExists(options.path);
    exists = text !== undefined;
    document = parseEnv(text ?? '');
    resolved = resolveSettings(document, environment);
  }

  async function write(next: EnvDocument): Promise<SettingsSaveResult> {
    const before = resolved.settings.values;
    const text = serializeEnv(next);
    const changedInFile = SETTING_DEFINITIONS.filter(
      (definition) => getEnvValue(document, definition.key) !== getEnvValue(next, definition.key),
    ).map((definition) => definition.key);
    if (text !== serializeEnv(document) || !exists) {
      try {
        // The atomic write keeps the mode of the file it replaces: tighten it first.
        await restrictToOwner(options.path, options.logger, options.privacy);
        await writePrivateFileAtomic(options.path, text, options.privacy, options.logger);
      } catch (error) {
        throw new ServerError(
          'SETTINGS_WRITE_FAILED',
          500,
          `Could not write the settings file ${options.path}: ${(error as Error).message}`,
          {},
          { cause: error },
        );
      }
    }
    document = next;
    exists = true;
    resolved = resolveSettings(document, environment);
    const after = resolved.settings.values;
    const result: SettingsSaveResult = {
      changed: [],
      appliedNow: [],
      nextClass: [],
      restartRequired: [],
      overriddenByEnvironment: [],
    };
    for (const key of changedInFile) {
      const definition = settingDefinition(key)!;
      result.changed.push(key);
      if (environment[key] !== undefined) {
        result.overriddenByEnvironment.push(key);
        continue;
      }
      if (before[key] === after[key]) continue;
      const bucket: Record<SettingApplies, string[]> = {
        now: result.appliedNow,
        'next-class': result.nextClass,
        restart: result.restartRequired,
      };
      bucket[definition.applies].push(key);
    }
    return result;
  }

  const store: SettingsStore = {
    path: options.path,
    load,
    current: () => resolved.settings,
    problems: () => resolved.problems,
    view() {
      const fields: Record<string, string> = {};
      for (const definition of SETTING_DEFINITIONS) {
        const value = getEnvValue(document, definition.key) ?? '';
        fields[definition.key] = definition.secret ? maskSecret(value) : value;
      }
      const effective: Record<string, string> = {};
      for (const definition of SETTING_DEFINITIONS) {
        const value = resolved.settings.values[definition.key] ?? '';
        effective[definition.key] = definition.secret ? maskSecret(value) : value;
      }
      const masked = maskDocument(document);
      return {
        content: serializeEnv(masked),
        path: options.path,
        exists,
        fields,
        extraLines: serializeLines(extraLinesOf(masked)),
        effective,
        environmentOverrides: SETTING_DEFINITIONS.filter(
          (definition) => environment[definition.key] !== undefined,
        ).map((definition) => definition.key),
        problems: resolved.problems,
        invalidLines: invalidLineNumbers(document),
      };
    },
    saveContent: (content) =>
      serial(async () => {
        let next = parseEnv(content);
        next = unmaskDocument(next, document);
        const failures: Array<{ field: string; message: string }> = [];
        for (const definition of SETTING_DEFINITIONS) {
          const value = getEnvValue(next, definition.key);
          if (value === undefined || value === '') continue;
          const check = definition.check(value);
          if (!check.ok) failures.push({ field: definition.key, message: check.message });
        }
        throwIfFailures(failures);
        return write(next);
      }),
    saveFields: (fields, extraLines) =>
      serial(async () => {
        const failures: Array<{ field: string; message: string }> = [];
        const updates: Array<[SettingDefinition, string]> = [];
        for (const [key, value] of Object.entries(fields)) {
          const definition = settingDefinition(key);
          if (!definition) {
            failures.push({
              field: key,
              message: `${key} is not a main setting; put it in extra_lines as ${key}=value`,
            });
            continue;
          }
          const stored = getEnvValue(document, key) ?? '';
          if (definition.secret && value !== '' && value === maskSecret(stored)) continue;
          if (value !== '') {
            const check = definition.check(value);
            if (!check.ok) {
              failures.push({ field: key, message: check.message });
              continue;
            }
          }
          updates.push([definition, value]);
        }
        let next = document;
        // Masked secrets in comments come back as they are stored.
        const parsed =
          extraLines === undefined ? undefined : unmaskDocument(parseEnv(extraLines), document);
        if (parsed && serializeEnv(parsed) !== serializeLines(extraLinesOf(document))) {
          for (const line of parsed.lines) {
            if (line.kind === 'entry' && settingDefinition(line.key!)) {
              failures.push({
                field: line.key!,
                message: `${line.key} is a main setting; set it through fields, not extra_lines`,
              });
            }
          }
          throwIfFailures(failures);
          next = mergeExtraLines(document, parsed);
        }
        throwIfFailures(failures);
        for (const [definition, value] of updates) {
          const stored = getEnvValue(next, definition.key);
          // A form posts every field: an absent key left at its default stays absent.
          if (stored === undefined && (value === '' || value === definition.defaultValue)) continue;
          next = setEnvValue(next, definition.key, value);
        }
        return write(next);
      }),
  };
  await load();
  return store;
}

/**
 * The settings file holds API keys: a file that other users may read (created by hand, copied,
 * or from an older version) is made owner-only (0600) before it is rewritten, with a log line.
 * Windows has no such mode bits: there each rewrite is a new file restricted to the current
 * user before the keys go in (`writePrivateFileAtomic`).
 */
async function restrictToOwner(
  path: string,
  logger: SettingsStoreOptions['logger'],
  privacy: FilePrivacyOptions | undefined,
): Promise<void> {
  if ((privacy?.platform ?? process.platform) === 'win32') return;
  let mode: number;
  try {
    mode = (await stat(path)).mode & 0o777;
  } catch {
    return; // A new file is created with 0600.
  }
  if ((mode & 0o077) === 0) return;
  await chmod(path, mode & 0o700);
  const octal = (value: number) => value.toString(8);
  logger?.warn(
    { path, mode: octal(mode) },
    `${path} could be read by other users of this computer (mode ${octal(mode)}); it holds API keys, so it is now readable by its owner only (${octal(mode & 0o700)}).`,
  );
}

function throwIfFailures(failures: Array<{ field: string; message: string }>): void {
  if (failures.length === 0) return;
  const first = failures[0]!;
  throw new ServerError(
    'SETTINGS_INVALID',
    400,
    failures.map((failure) => `${failure.field} ${failure.message}`).join('; '),
    { field: first.field, fields: failures },
  );
}

function resolveSettings(
  document: EnvDocument,
  environment: Readonly<Record<string, string | undefined>>,
): { settings: ResolvedSettings; problems: SettingProblem[] } {
  const values: Record<string, string> = {};
  const problems: SettingProblem[] = [];
  for (const definition of SETTING_DEFINITIONS) {
    const fromEnvironment = environment[definition.key];
    const source = fromEnvironment !== undefined ? 'environment' : 'file';
    const raw = (fromEnvironment ?? getEnvValue(document, definition.key) ?? '').trim();
    let value = raw === '' ? definition.defaultValue : raw;
    if (raw !== '') {
      const check = definition.check(raw);
      if (!check.ok) {
        problems.push({
          key: definition.key,
          source,
          message: `${definition.key} ${check.message}`,
        });
        value = definition.defaultValue;
      }
    }
    values[definition.key] = value;
  }
  const settings: Record<string, unknown> = { values };
  for (const definition of SETTING_DEFINITIONS) {
    settings[definition.field] = definition.parse(values[definition.key]!, values);
  }
  return { settings: settings as ResolvedSettings, problems };
}

function invalidLineNumbers(document: EnvDocument): number[] {
  const numbers: number[] = [];
  let physical = 1;
  for (const line of document.lines) {
    if (line.kind === 'invalid') numbers.push(physical);
    physical += (line.raw.match(/\r\n|\r|\n/g)?.length ?? 0) + 1;
  }
  return numbers;
}
