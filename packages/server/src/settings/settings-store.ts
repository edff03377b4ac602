import { chmod, stat } from 'node:fs/promises';
import { ServerError } from '../errors.ts';
import { createSerialQueue, readTextIfExists } from '../files.ts';
import { type FilePrivacyOptions, writePrivateFileAtomic } from '../security/private-file.ts';
import {
  detectNewline,
  type EnvDocument,
  type EnvLine,
  encodeEnvValue,
  getEnvValue,
  parseEnv,
  serializeEnv,
  setEnvValue,
} from './env-file.ts';
import {
  SETTING_DEFINITIONS,
  type SettingApplies,
  type SettingDefinition,
  settingDefinition,
  splitList,
} from './settings-schema.ts';

/** The settings the server runs with: file values over defaults, environment over both. */
export interface ResolvedSettings {
  asrMode: string;
  streamAsrUrl: string;
  streamAsrEndpoint: string;
  streamAsrAppKey: string;
  streamAsrAccessKey: string;
  streamAsrResourceId: string;
  streamAsrHotwords: boolean;
  cloudAsrBaseUrl: string;
  cloudAsrApiKey: string;
  cloudAsrModel: string;
  cloudAsrLanguage: string;
  llmBaseUrl: string;
  llmApiKey: string;
  llmModel: string;
  llmTimeoutMs: number;
  audioSampleRate: number;
  audioChannels: number;
  audioChunkSize: number;
  audioInput: string;
  audioFilePace: 'realtime' | 'fast';
  vadEnergyThreshold: number;
  vadDynamicEnergy: boolean;
  vadPauseThreshold: number;
  vadPhraseTimeLimit: number;
  vadCalibrationSeconds: number;
  localAsrEngine: 'vosk' | 'pocketsphinx';
  voskModelPath: string;
  pocketsphinxModelPath: string;
  mockScript: string;
  mockIntervalMs: number;
  mockLoop: boolean;
  keywordHomophones: 'off' | 'pinyin' | 'fuzzy-pinyin';
  corsOrigins: string[];
  uploadMaxBytes: number;
  historyFoldEntries: number;
  logLevel: string;
  /** Every main key's effective string value. */
  values: Readonly<Record<string, string>>;
}

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

const MASK = '••••••••';

/** Masks a secret for display: bullets plus the last 4 characters of a long secret. */
export function maskSecret(value: string): string {
  if (value === '') return '';
  return value.length >= 12 ? `${MASK}${value.slice(-4)}` : MASK;
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
  let resolved: { settings: ResolvedSettings; problems: SettingProblem[] } = resolve(
    document,
    environment,
  );

  async function load(): Promise<void> {
    const text = await readTextIfExists(options.path);
    exists = text !== undefined;
    document = parseEnv(text ?? '');
    resolved = resolve(document, environment);
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
    resolved = resolve(document, environment);
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

function resolve(
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
  const number = (key: string) => Number(values[key]);
  const settings: ResolvedSettings = {
    asrMode: values.ASR_MODE!,
    streamAsrUrl: values.STREAM_ASR_URL!,
    streamAsrEndpoint: values.STREAM_ASR_ENDPOINT!,
    streamAsrAppKey: values.STREAM_ASR_APP_KEY!,
    streamAsrAccessKey: values.STREAM_ASR_ACCESS_KEY!,
    streamAsrResourceId: values.STREAM_ASR_RESOURCE_ID!,
    streamAsrHotwords: values.STREAM_ASR_HOTWORDS === 'true',
    cloudAsrBaseUrl: values.CLOUD_ASR_BASE_URL! || values.LLM_BASE_URL!,
    cloudAsrApiKey: values.CLOUD_ASR_API_KEY! || values.LLM_API_KEY!,
    cloudAsrModel: values.CLOUD_ASR_MODEL!,
    cloudAsrLanguage: values.CLOUD_ASR_LANGUAGE!,
    llmBaseUrl: values.LLM_BASE_URL!,
    llmApiKey: values.LLM_API_KEY!,
    llmModel: values.LLM_MODEL!,
    llmTimeoutMs: Math.round(number('LLM_TIMEOUT') * 1000),
    audioSampleRate: number('AUDIO_SAMPLE_RATE'),
    audioChannels: number('AUDIO_CHANNELS'),
    audioChunkSize: number('AUDIO_CHUNK_SIZE'),
    audioInput: values.AUDIO_INPUT!,
    audioFilePace: values.AUDIO_FILE_PACE as ResolvedSettings['audioFilePace'],
    vadEnergyThreshold: number('VAD_ENERGY_THRESHOLD'),
    vadDynamicEnergy: values.VAD_DYNAMIC_ENERGY === 'true',
    vadPauseThreshold: number('VAD_PAUSE_THRESHOLD'),
    vadPhraseTimeLimit: number('VAD_PHRASE_TIME_LIMIT'),
    vadCalibrationSeconds: number('VAD_CALIBRATION_SECONDS'),
    localAsrEngine: values.LOCAL_ASR_ENGINE as ResolvedSettings['localAsrEngine'],
    voskModelPath: values.VOSK_MODEL_PATH!,
    pocketsphinxModelPath: values.POCKETSPHINX_MODEL_PATH!,
    mockScript: values.MOCK_SCRIPT!,
    mockIntervalMs: number('MOCK_INTERVAL_MS'),
    mockLoop: values.MOCK_LOOP === 'true',
    keywordHomophones: values.KEYWORD_HOMOPHONES as ResolvedSettings['keywordHomophones'],
    corsOrigins: splitList(values.CORS_ORIGINS!).map((origin) => origin.replace(/\/$/, '')),
    uploadMaxBytes: number('UPLOAD_MAX_MB') * 1024 * 1024,
    historyFoldEntries: number('HISTORY_FOLD_ENTRIES'),
    logLevel: values.LOG_LEVEL!,
    values,
  };
  return { settings, problems };
}

function isMainEntry(line: EnvLine): boolean {
  return line.kind === 'entry' && settingDefinition(line.key!) !== undefined;
}

function extraLinesOf(document: EnvDocument): EnvLine[] {
  return document.lines.filter((line) => !isMainEntry(line));
}

function serializeLines(lines: EnvLine[]): string {
  return serializeEnv({ lines });
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

/**
 * One secret value written in a line: the value of an assignment of a secret key, or `KEY=value`
 * text of a secret key inside a comment (a key commented out, a note after an entry) or an
 * otherwise invalid line. `start`/`end` delimit the value token (quotes included) in the raw line.
 */
interface SecretToken {
  key: string;
  value: string;
  start: number;
  end: number;
  quote: '"' | "'" | '`' | '';
  /** True for the value of a real assignment (the line's own entry). */
  assignment: boolean;
}

const SECRET_KEYS = SETTING_DEFINITIONS.filter((definition) => definition.secret).map(
  (definition) => definition.key,
);

/** `KEY =` of a secret key not preceded by a key character (so `MY_LLM_API_KEY=` is not one). */
const SECRET_IN_TEXT = `(?<![A-Za-z0-9_.-])(?:${SECRET_KEYS.join('|')})\\s*=`;

/**
 * Every secret value of a line, left to right: the entry's own value when its key is a secret,
 * then each `KEY=value` of a secret key in its comment part (the whole line for comments and
 * invalid lines, the text after the value for entries). A commented value is read with the rules
 * of a real assignment (quotes, `export`, a value ending at ` #`), so it is exactly the value the
 * line would set if it were uncommented.
 */
function secretTokens(line: EnvLine): SecretToken[] {
  const tokens: SecretToken[] = [];
  let from = 0;
  if (line.kind === 'entry') {
    if (line.value && settingDefinition(line.key!)?.secret) {
      tokens.push({
        key: line.key!,
        value: line.value,
        start: line.valueStart!,
        end: line.valueEnd!,
        quote: line.quote ?? '',
        assignment: true,
      });
    }
    from = line.valueEnd!;
  } else if (line.kind === 'blank') {
    return tokens;
  }
  const pattern = new RegExp(SECRET_IN_TEXT, 'g');
  pattern.lastIndex = from;
  for (let match = pattern.exec(line.raw); match; match = pattern.exec(line.raw)) {
    const entry = parseEnv(line.raw.slice(match.index)).lines[0];
    if (entry?.kind !== 'entry') continue;
    const start = match.index + entry.valueStart!;
    const end = match.index + entry.valueEnd!;
    if (entry.value) {
      tokens.push({
        key: entry.key!,
        value: entry.value,
        start,
        end,
        quote: entry.quote ?? '',
        assignment: false,
      });
    }
    pattern.lastIndex = Math.max(end, match.index + match[0].length);
  }
  return tokens;
}

/** A copy of `line` whose value tokens are replaced (`replacements` left to right, not overlapping). */
function replaceTokens(
  line: EnvLine,
  replacements: Array<{
    token: SecretToken;
    text: string;
    value: string;
    quote: SecretToken['quote'];
  }>,
): EnvLine {
  let next = line;
  for (const { token, text, value, quote } of [...replacements].reverse()) {
    const raw = next.raw.slice(0, token.start) + text + next.raw.slice(token.end);
    next = token.assignment
      ? { ...next, raw, value, valueEnd: token.start + text.length, quote }
      : { ...next, raw };
  }
  return next;
}

/**
 * Masks every secret value of the document: each assignment of a secret key (a key set twice is
 * masked on both lines, not only on the one that wins) and each `KEY=value` of a secret key in a
 * comment or an invalid line (an old key commented out is still a key).
 */
function maskDocument(document: EnvDocument): EnvDocument {
  return {
    lines: document.lines.map((line) => {
      const tokens = secretTokens(line);
      if (tokens.length === 0) return line;
      return replaceTokens(
        line,
        tokens.map((token) => {
          const masked = encodeEnvValue(maskSecret(token.value), token.quote);
          return { token, text: masked.text, value: maskSecret(token.value), quote: masked.quote };
        }),
      );
    }),
  };
}

/**
 * A posted secret equal to the mask of a stored one means "keep the stored secret", token by
 * token (assignments and commented values alike): the n-th secret of a key takes the n-th stored
 * one back when its mask matches (so a key set twice keeps both values), else the first stored
 * secret of that key with that mask (lines moved around, a key commented out or uncommented).
 * The stored token comes back byte for byte when the quoting is the same; any other value is
 * taken as typed.
 */
function unmaskDocument(posted: EnvDocument, stored: EnvDocument): EnvDocument {
  const storedByKey = new Map<string, Array<{ token: SecretToken; text: string }>>();
  for (const line of stored.lines) {
    for (const token of secretTokens(line)) {
      const text = line.raw.slice(token.start, token.end);
      storedByKey.set(token.key, [...(storedByKey.get(token.key) ?? []), { token, text }]);
    }
  }
  const seen = new Map<string, number>();
  return {
    lines: posted.lines.map((line) => {
      const replacements: Parameters<typeof replaceTokens>[1] = [];
      for (const token of secretTokens(line)) {
        const occurrence = seen.get(token.key) ?? 0;
        seen.set(token.key, occurrence + 1);
        const candidates = storedByKey.get(token.key) ?? [];
        const masks = (candidate: { token: SecretToken }) =>
          maskSecret(candidate.token.value) === token.value;
        const original =
          candidates[occurrence] && masks(candidates[occurrence])
            ? candidates[occurrence]
            : candidates.find(masks);
        if (!original) continue;
        const restored =
          original.token.quote === token.quote
            ? { text: original.text, quote: token.quote }
            : encodeEnvValue(original.token.value, token.quote);
        replacements.push({
          token,
          text: restored.text,
          value: original.token.value,
          quote: restored.quote,
        });
      }
      return replacements.length === 0 ? line : replaceTokens(line, replacements);
    }),
  };
}

/**
 * Replaces the extra (non-main) lines of a document with new ones, keeping each main-key line
 * next to the extra line it followed when that line survived the edit (a line diff, LCS).
 */
function mergeExtraLines(document: EnvDocument, extra: EnvDocument): EnvDocument {
  const oldExtra: EnvLine[] = [];
  // For each old extra line, the main lines that follow it; index -1 holds those at the top.
  const following = new Map<number, EnvLine[]>();
  for (const line of document.lines) {
    if (isMainEntry(line)) {
      const anchor = oldExtra.length - 1;
      following.set(anchor, [...(following.get(anchor) ?? []), line]);
    } else {
      oldExtra.push(line);
    }
  }
  const newExtra = extra.lines;
  const match = pairEditedLines(
    longestCommonSubsequence(
      oldExtra.map((line) => line.raw),
      newExtra.map((line) => line.raw),
    ),
    oldExtra.length,
    newExtra.length,
  );
  // Old anchor -> the new index after which its main lines go (the nearest surviving line above).
  const placed = new Map<number, EnvLine[]>();
  for (const [anchor, mains] of following) {
    let target = -1;
    for (let old = anchor; old >= 0; old--) {
      const mapped = match.get(old);
      if (mapped !== undefined) {
        target = mapped;
        break;
      }
    }
    placed.set(target, [...(placed.get(target) ?? []), ...mains]);
  }
  const newline = detectNewline(document);
  const lines: EnvLine[] = [...(placed.get(-1) ?? [])];
  newExtra.forEach((line, index) => {
    lines.push(line);
    lines.push(...(placed.get(index) ?? []));
  });
  // Every line but the last needs a terminator once lines moved around.
  for (let index = 0; index < lines.length - 1; index++) {
    if (lines[index]!.eol === '') lines[index] = { ...lines[index]!, eol: newline };
  }
  return { lines };
}

/**
 * Between two unchanged lines, the k-th removed line and the k-th added line are one line
 * edited in place: pair them, so main keys that followed it stay after it.
 */
function pairEditedLines(
  match: Map<number, number>,
  oldLength: number,
  newLength: number,
): Map<number, number> {
  const paired = new Map(match);
  const anchors = [
    [-1, -1],
    ...[...match.entries()].sort((a, b) => a[0] - b[0]),
    [oldLength, newLength],
  ];
  for (let index = 0; index + 1 < anchors.length; index++) {
    const [oldStart, newStart] = anchors[index]!;
    const [oldEnd, newEnd] = anchors[index + 1]!;
    for (
      let old = oldStart! + 1, next = newStart! + 1;
      old < oldEnd! && next < newEnd!;
      old++, next++
    ) {
      paired.set(old, next);
    }
  }
  return paired;
}

/** Maps indexes of `a` to indexes of `b` along one longest common subsequence. */
function longestCommonSubsequence(a: string[], b: string[]): Map<number, number> {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const table = new Uint32Array(rows * columns);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * columns + j] =
        a[i] === b[j]
          ? table[(i + 1) * columns + j + 1]! + 1
          : Math.max(table[(i + 1) * columns + j]!, table[i * columns + j + 1]!);
    }
  }
  const match = new Map<number, number>();
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      match.set(i, j);
      i++;
      j++;
    } else if (table[(i + 1) * columns + j]! >= table[i * columns + j + 1]!) {
      i++;
    } else {
      j++;
    }
  }
  return match;
}
