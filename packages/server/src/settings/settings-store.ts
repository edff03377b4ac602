import { type FSWatcher, statSync, watch } from 'node:fs';
import { chmod, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { ServerError } from '../errors.ts';
import { createSerialQueue } from '../files.ts';
import { localized, type MessageText, textIn } from '../language.ts';
import { readPostedValue, shownValue } from '../secret-rules.ts';
import { type FilePrivacyOptions, writePrivateFileAtomic } from '../security/private-file.ts';
import { type EnvDocument, getEnvValue, parseEnv, serializeEnv, setEnvValue } from './env-file.ts';
import { extraLinesOf, mergeExtraLines, serializeLines } from './extra-lines.ts';
import { checkSecretDestinations, secretRequiredError } from './secret-destinations.ts';
import { maskDocument, restoreDocument, unknownMaskError } from './secret-mask.ts';
import {
  readSettingsFile,
  readSettingsFileSync,
  type SettingsFileProblem,
  type SettingsFileRead,
  settingsFileError,
} from './settings-file.ts';
import {
  type ResolvedSettings,
  SETTING_DEFINITIONS,
  type SettingApplies,
  type SettingDefinition,
  settingDefinition,
  settingNames,
} from './settings-schema.ts';

export { maskSecret } from '../secret-rules.ts';

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

/**
 * What a save changed and when each change takes effect: the keys whose value in use changed
 * (and those an environment variable overrides whose line changed), each by the name the file
 * gives it (an original name such as SEED_ASR_APP_KEY, not the main key it stands for).
 */
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
  /**
   * The effective settings (cheap; call it whenever a value is needed). A file changed on disk
   * since it was read (edited by hand) is read again first — checked at most every 250 ms.
   */
  current(): ResolvedSettings;
  /**
   * Follows the file: an edit by hand is picked up within a second (a watch on its folder, with
   * a short debounce), without waiting for a request. `onChange` gets the main keys whose values
   * changed (names only — never values). Stopped by {@link SettingsStore.close}.
   */
  watch(onChange?: (changed: string[]) => void): void;
  /** Stops watching the file. */
  close(): void;
  problems(): SettingProblem[];
  /**
   * Why the settings path cannot be used (a folder, a named pipe, a device, a socket, or a file
   * that cannot be read), or undefined. Such a path is never opened: the settings last read
   * (the defaults at start) stay in use, `view()` and saves are refused with 409
   * SETTINGS_FILE_UNUSABLE, and the backend keeps serving.
   */
  fileProblem(): SettingsFileProblem | undefined;
  /** The file as the settings panel shows it; throws SETTINGS_FILE_UNUSABLE (see fileProblem). */
  view(): SettingsView;
  /** Saves raw file content (the original client's `{content}`); masked secrets keep their value. */
  saveContent(content: string): Promise<SettingsSaveResult>;
  /** Saves main fields and optionally the extra lines; everything else keeps its bytes. */
  saveFields(
    fields: Record<string, string>,
    extraLines?: string | undefined,
  ): Promise<SettingsSaveResult>;
  /**
   * The settings as they would be with these main fields saved, nothing written: checked as
   * `saveFields` checks them (SETTINGS_INVALID, a mask standing for nothing stored), and a
   * stored secret that would go to a new origin must be typed again (SETTINGS_SECRET_REQUIRED).
   */
  preview(fields: Record<string, string>): ResolvedSettings;
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
  /** The file as last read or written (identity, size, mtime): a change means an edit by hand. */
  let identity = '';
  let checkedAt = 0;
  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
  let fileProblem: SettingsFileProblem | undefined;

  const fileIdentity = (): string => {
    try {
      const info = statSync(options.path);
      return `${info.ino}:${info.size}:${info.mtimeMs}`;
    } catch {
      return 'missing';
    }
  };

  const adopt = (read: SettingsFileRead) => {
    if (read.kind === 'unusable') {
      // Nothing to read: the settings in use stay as they are (the defaults at start).
      if (fileProblem?.message.en !== read.problem.message.en) {
        options.logger?.warn({ path: options.path }, read.problem.message.en);
      }
      fileProblem = read.problem;
      return;
    }
    fileProblem = undefined;
    exists = read.kind === 'text';
    document = parseEnv(read.kind === 'text' ? read.text : '');
    resolved = resolveSettings(document, environment);
  };

  async function load(): Promise<void> {
    const seen = fileIdentity();
    adopt(await readSettingsFile(options.path));
    identity = seen;
    checkedAt = Date.now();
  }

  /** Refuses what needs the file while its path holds something else. */
  const requireFile = () => {
    if (fileProblem) throw settingsFileError(fileProblem);
  };

  /** Re-reads the file when it changed on disk; returns the main keys whose values changed. */
  async function refresh(): Promise<string[]> {
    if (fileIdentity() === identity) return [];
    const before = resolved.settings.values;
    await load();
    const after = resolved.settings.values;
    return SETTING_DEFINITIONS.filter(
      (definition) => before[definition.key] !== after[definition.key],
    ).map((definition) => definition.key);
  }

  /** Reads posted main fields: the values to set, the secrets typed in, what was wrong. */
  const readFields = (fields: Record<string, string>) => {
    const failures: Failure[] = [];
    const updates: Array<[SettingDefinition, string]> = [];
    const typed = new Set<string>();
    const unknownMasks: string[] = [];
    for (const [key, value] of Object.entries(fields)) {
      const definition = settingDefinition(key);
      if (!definition) {
        failures.push({
          field: key,
          message: localized(
            `${key} 不是主设置项；请在 extra_lines 中写成 ${key}=value`,
            `${key} is not a main setting; put it in extra_lines as ${key}=value`,
          ),
        });
        continue;
      }
      const stored = storedValue(document, definition) ?? '';
      // The mask posted back (even with a space after it) keeps the stored value.
      const reading = readPostedValue(value, stored, definition.secret);
      if (reading.kind === 'kept') continue;
      if (reading.kind === 'unknown-mask') {
        unknownMasks.push(key);
        continue;
      }
      const next = reading.kind === 'restored' ? reading.value : value;
      if (definition.secret && reading.kind === 'typed' && value !== '') {
        typed.add(definition.key);
      }
      if (next !== '') {
        const check = definition.check(next);
        if (!check.ok) {
          failures.push({ field: key, message: hideValue(check.message, next, definition) });
          continue;
        }
      }
      updates.push([definition, next]);
    }
    return { failures, updates, typed, unknownMasks };
  };

  /**
   * Refuses settings that would send a stored secret to an origin it was not sent to, unless it
   * was typed in this request (SETTINGS_SECRET_REQUIRED, one sentence per key to type again).
   */
  const throwIfSecretsMove = (
    after: ResolvedSettings,
    typed: ReadonlySet<string>,
    nameOf: (key: string) => string = (key) => key,
  ) => {
    const refusals = checkSecretDestinations(resolved.settings, after, typed);
    if (refusals.length > 0) throw secretRequiredError(refusals, nameOf);
  };

  async function write(next: EnvDocument, typed: ReadonlySet<string>): Promise<SettingsSaveResult> {
    const before = resolved.settings.values;
    const unusableBefore = new Set(resolved.problems.map((problem) => problem.key));
    /** A key as the user's file names it (an original name such as SEED_ASR_APP_KEY stays). */
    const nameInFile = (definition: SettingDefinition) =>
      storedName(next, definition) ?? storedName(document, definition) ?? definition.key;
    throwIfSecretsMove(resolveSettings(next, environment).settings, typed, (key) =>
      nameInFile(settingDefinition(key)!),
    );
    const text = serializeEnv(next);
    const changedInFile = SETTING_DEFINITIONS.filter(
      (definition) => storedValue(document, definition) !== storedValue(next, definition),
    ).map((definition) => definition.key);
    if (text !== serializeEnv(document) || !exists) {
      // Replaced since it was read (by a folder, a pipe…): refused, nothing written.
      const info = await stat(options.path).catch(() => undefined);
      if (info && !info.isFile()) {
        adopt(await readSettingsFile(options.path));
        requireFile();
      }
      try {
        // The atomic write keeps the mode of the file it replaces: tighten it first.
        await restrictToOwner(options.path, options.logger, options.privacy);
        await writePrivateFileAtomic(options.path, text, options.privacy, options.logger);
      } catch (error) {
        throw new ServerError(
          'SETTINGS_WRITE_FAILED',
          `Could not write the settings file ${options.path}: ${(error as Error).message}`,
          {},
          { cause: error },
        );
      }
    }
    document = next;
    exists = true;
    resolved = resolveSettings(document, environment);
    identity = fileIdentity();
    const after = resolved.settings.values;
    const unusableAfter = new Set(resolved.problems.map((problem) => problem.key));
    const result: SettingsSaveResult = {
      changed: [],
      appliedNow: [],
      nextClass: [],
      restartRequired: [],
      overriddenByEnvironment: [],
    };
    for (const key of changedInFile) {
      const definition = settingDefinition(key)!;
      const name = nameInFile(definition);
      const overridden = fromEnvironment(environment, definition) !== undefined;
      // A line that changed while what the backend uses did not (emptied to its default, say)
      // is no change the user would notice; a value it could not use that is gone is one.
      const unchanged =
        before[key] === after[key] && unusableBefore.has(key) === unusableAfter.has(key);
      if (!overridden && unchanged) continue;
      result.changed.push(name);
      if (overridden) {
        result.overriddenByEnvironment.push(name);
        continue;
      }
      const bucket: Record<SettingApplies, string[]> = {
        now: result.appliedNow,
        'next-class': result.nextClass,
        restart: result.restartRequired,
      };
      bucket[definition.applies].push(name);
    }
    return result;
  }

  const store: SettingsStore = {
    path: options.path,
    load,
    current() {
      // The fallback when the folder cannot be watched (or the watch is late): a cheap stat.
      const now = Date.now();
      if (now - checkedAt >= 250) {
        checkedAt = now;
        const seen = fileIdentity();
        if (seen !== identity) {
          adopt(readSettingsFileSync(options.path));
          identity = seen;
        }
      }
      return resolved.settings;
    },
    watch(onChange) {
      if (watcher) return;
      const name = basename(options.path);
      const changed = () => {
        clearTimeout(debounce);
        debounce = setTimeout(() => {
          void serial(refresh).then(
            (keys) => {
              if (keys.length > 0) onChange?.(keys);
            },
            (error: unknown) =>
              options.logger?.warn(
                { err: error, path: options.path },
                'could not re-read the settings file',
              ),
          );
        }, 150);
      };
      try {
        watcher = watch(dirname(options.path), (_event, file) => {
          if (file === null || file === name) changed();
        });
        watcher.on('error', () => {
          watcher?.close();
          watcher = undefined;
        });
        watcher.unref();
      } catch (error) {
        // The folder cannot be watched: current() still notices a change on disk.
        options.logger?.warn(
          { err: error, path: options.path },
          'cannot watch the settings folder; hand edits are noticed when settings are next read',
        );
      }
    },
    close() {
      clearTimeout(debounce);
      watcher?.close();
      watcher = undefined;
    },
    problems: () => {
      store.current();
      return resolved.problems;
    },
    fileProblem: () => {
      store.current();
      return fileProblem;
    },
    view() {
      requireFile();
      const fields: Record<string, string> = {};
      for (const definition of SETTING_DEFINITIONS) {
        const value = storedValue(document, definition) ?? '';
        fields[definition.key] = shownValue(value, definition.secret);
      }
      const effective: Record<string, string> = {};
      for (const definition of SETTING_DEFINITIONS) {
        const value = resolved.settings.values[definition.key] ?? '';
        effective[definition.key] = shownValue(value, definition.secret);
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
          (definition) => fromEnvironment(environment, definition) !== undefined,
        ).map((definition) => definition.key),
        problems: resolved.problems,
        invalidLines: invalidLineNumbers(document),
      };
    },
    saveContent: (content) =>
      serial(async () => {
        requireFile();
        const posted = parseEnv(content);
        const { document: next, unknownMasks } = restoreDocument(posted, document);
        if (unknownMasks.length > 0) throw unknownMaskError(unknownMasks);
        const failures: Failure[] = [];
        const typed = new Set<string>();
        for (const definition of SETTING_DEFINITIONS) {
          for (const name of settingNames(definition)) {
            const value = getEnvValue(next, name);
            if (value === undefined || value === '') continue;
            const check = definition.check(value);
            if (!check.ok) {
              failures.push({ field: name, message: hideValue(check.message, value, definition) });
            }
          }
          // A secret is typed when the posted value is not a mask the store filled back in.
          const value = storedValue(next, definition);
          if (definition.secret && value && value === storedValue(posted, definition)) {
            typed.add(definition.key);
          }
        }
        throwIfFailures(failures);
        return write(next, typed);
      }),
    saveFields: (fields, extraLines) =>
      serial(async () => {
        requireFile();
        const { failures, updates, typed, unknownMasks } = readFields(fields);
        let next = document;
        // Masked secrets in comments come back as they are stored.
        const restored =
          extraLines === undefined ? undefined : restoreDocument(parseEnv(extraLines), document);
        unknownMasks.push(...(restored?.unknownMasks ?? []));
        if (unknownMasks.length > 0) throw unknownMaskError(unknownMasks);
        const parsed = restored?.document;
        if (parsed && serializeEnv(parsed) !== serializeLines(extraLinesOf(document))) {
          for (const line of parsed.lines) {
            if (line.kind === 'entry' && settingDefinition(line.key!)) {
              failures.push({
                field: line.key!,
                message: localized(
                  `${line.key} 是主设置项，请通过 fields 设置，不要写在 extra_lines 里`,
                  `${line.key} is a main setting; set it through fields, not extra_lines`,
                ),
              });
            }
          }
          throwIfFailures(failures);
          next = mergeExtraLines(document, parsed);
        }
        throwIfFailures(failures);
        return write(applyUpdates(next, updates), typed);
      }),
    preview(fields) {
      requireFile();
      const { failures, updates, typed, unknownMasks } = readFields(fields);
      if (unknownMasks.length > 0) throw unknownMaskError(unknownMasks);
      throwIfFailures(failures);
      const next = applyUpdates(document, updates);
      const after = resolveSettings(next, environment).settings;
      throwIfSecretsMove(after, typed);
      return after;
    },
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

/** One refused field of a save. */
interface Failure {
  field: string;
  message: MessageText;
}

/** Messages of several fields as one message, in both languages. */
function joinMessages(messages: readonly MessageText[]): MessageText {
  return localized(
    messages.map((message) => textIn(message, 'zh')).join('；'),
    messages.map((message) => textIn(message, 'en')).join('; '),
  );
}

function throwIfFailures(failures: Failure[]): void {
  if (failures.length === 0) return;
  const first = failures[0]!;
  const withField = failures.map((failure) =>
    localized(
      `${failure.field} ${textIn(failure.message, 'zh')}`,
      `${failure.field} ${textIn(failure.message, 'en')}`,
    ),
  );
  throw new ServerError('SETTINGS_INVALID', joinMessages(withField), {
    field: first.field,
    fields: failures,
  });
}

/**
 * The name a key has in the file: the main key when it is there, else the first alias that is
 * (the original's SEED_ASR_APP_KEY), else undefined.
 */
function storedName(document: EnvDocument, definition: SettingDefinition): string | undefined {
  return settingNames(definition).find((name) => getEnvValue(document, name) !== undefined);
}

/** The value of a main key in the file, under its main name or an alias. */
function storedValue(document: EnvDocument, definition: SettingDefinition): string | undefined {
  const name = storedName(document, definition);
  return name === undefined ? undefined : getEnvValue(document, name);
}

/** The document with these main keys set (an absent key left at its default stays absent). */
function applyUpdates(
  document: EnvDocument,
  updates: ReadonlyArray<[SettingDefinition, string]>,
): EnvDocument {
  let next = document;
  for (const [definition, value] of updates) {
    const name = storedName(next, definition);
    // A form posts every field: an absent key left at its default stays absent.
    if (name === undefined && (value === '' || value === definition.defaultValue)) continue;
    // The user's own name of the key stays in the file (SEED_ASR_APP_KEY is not renamed).
    next = setEnvValue(next, name ?? definition.key, value);
  }
  return next;
}

/** The environment's value of a main key (its main name first, then its aliases). */
function fromEnvironment(
  environment: Readonly<Record<string, string | undefined>>,
  definition: SettingDefinition,
): { name: string; value: string } | undefined {
  for (const name of settingNames(definition)) {
    const value = environment[name];
    if (value !== undefined) return { name, value };
  }
  return undefined;
}

function resolveSettings(
  document: EnvDocument,
  environment: Readonly<Record<string, string | undefined>>,
): { settings: ResolvedSettings; problems: SettingProblem[] } {
  const values: Record<string, string> = {};
  const problems: SettingProblem[] = [];
  for (const definition of SETTING_DEFINITIONS as readonly SettingDefinition[]) {
    const overridden = fromEnvironment(environment, definition);
    const source = overridden !== undefined ? 'environment' : 'file';
    const name = overridden?.name ?? storedName(document, definition) ?? definition.key;
    const raw = (overridden?.value ?? storedValue(document, definition) ?? '').trim();
    let value = raw === '' ? definition.defaultValue : raw;
    if (raw !== '') {
      const check = definition.check(raw);
      if (!check.ok) {
        problems.push({
          key: definition.key,
          source,
          message: `${name} ${textIn(hideValue(check.message, raw, definition), 'en')}`,
        });
        value = definition.defaultValue;
      }
    }
    values[definition.key] = value;
  }
  const settings: Record<string, unknown> = { values };
  for (const definition of SETTING_DEFINITIONS as readonly SettingDefinition[]) {
    const own = values[definition.key]!;
    const effective = own === '' && definition.fallback ? values[definition.fallback]! : own;
    settings[definition.field] = definition.parse(effective, values);
  }
  return { settings: settings as ResolvedSettings, problems };
}

/**
 * A check's message with the value it quotes shown as the settings show it (a secret masked, an
 * address's password hidden): messages reach the answer, the health report and the log.
 */
function hideValue(
  message: MessageText,
  value: string,
  definition: SettingDefinition,
): MessageText {
  const shown = shownValue(value, definition.secret);
  if (shown === value) return message;
  const hide = (text: string) => text.replaceAll(value, shown);
  return localized(hide(textIn(message, 'zh')), hide(textIn(message, 'en')));
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
