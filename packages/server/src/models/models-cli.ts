/**
 * `class-assistant-backend models …`: list, fetch and remove offline recognition models from a
 * terminal, on the same data folder and settings file as the server. A progress bar on a
 * terminal, plain progress lines otherwise (logs, CI). Exit codes say what failed.
 */
import { parseArgs } from 'node:util';
import { CliUsageError, DATA_FOLDER_OPTIONS, parseCli } from '../cli-options.ts';
import { isServerError } from '../errors.ts';
import { maskSecretsInText } from '../secret-rules.ts';
import { createSettingsStore } from '../settings/settings-store.ts';
import { createModelManager, type ModelRequest } from './model-manager.ts';

/** Usage text of `class-assistant-backend models --help`. */
const MODELS_USAGE = `class-assistant-backend models — offline recognition models

Usage:
  class-assistant-backend models list [--json]          the catalogue (files, sizes, checksums, sources)
  class-assistant-backend models pull <id> [--source <id>] [--allow-unchecked]
                                                         a model of the catalogue (see list)
  class-assistant-backend models pull --url <url> --sha256 <hex> --name <folder> [--language zh|en]
                                                         any model archive (ZIP), checked
  class-assistant-backend models remove <name>          an installed model (folder name or id)

Options:
  --data-dir <dir>         the data folder (models go to <dir>/models), as for the server
  --settings-file <file>   the settings file (MODELS_BASE_URL), as for the server; also --env-file
  --json                   list: one JSON object, as GET /api/models answers (no network)
  --source <id>            pull: this source first (see list: mirror, official, huggingface,
                           hf-mirror, modelscope); the others stay behind it
  --allow-unchecked        pull: accept files that have no published SHA-256
  -h, --help               show this help

Downloads resume where they stopped; a source that fails hands over to the next one (MODELS_BASE_URL,
your own mirror, first); nothing is installed unless each file's size and SHA-256 match.
Exit codes: 0 done, 1 failed, 2 usage, 3 network, 4 checksum, 5 disk space, 6 archive.`;

/** Exit code and what to call a failure, by error code. */
const FAILURES: Record<string, { exit: number; what: string }> = {
  MODEL_NETWORK_FAILED: { exit: 3, what: 'network' },
  MODEL_CHECKSUM_MISMATCH: { exit: 4, what: 'checksum' },
  MODEL_DISK_SPACE: { exit: 5, what: 'disk space' },
  MODEL_ARCHIVE_INVALID: { exit: 6, what: 'archive' },
  MODEL_DOWNLOAD_CANCELLED: { exit: 130, what: 'cancelled' },
  MODEL_UNCHECKED: { exit: 4, what: 'checksum' },
};

const megabytes = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);

/** What the CLI writes to: text, and whether it is a terminal (for the progress bar). */
interface CliStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Where the CLI writes (the process streams, replaced in tests). */
export interface ModelsCliStreams {
  stdout: CliStream;
  stderr: CliStream;
}

/**
 * Progress as a bar redrawn in place on a terminal, or as a line every 10 % otherwise.
 * Returns the progress callback and `end()` (which finishes the bar's line).
 */
export function progressReporter(
  label: string,
  stream: ModelsCliStreams['stderr'],
): { update(received: number, total: number | undefined): void; end(): void } {
  const started = Date.now();
  let lastDecile = -1;
  let lastDraw = 0;
  let drawn = false;
  return {
    update(received, total) {
      if (stream.isTTY) {
        const now = Date.now();
        if (now - lastDraw < 100 && received !== total) return;
        lastDraw = now;
        const seconds = Math.max(0.001, (now - started) / 1000);
        const rate = `${megabytes(received / seconds)} MB/s`;
        if (total) {
          const fraction = Math.min(1, received / total);
          const width = 30;
          const filled = Math.round(fraction * width);
          stream.write(
            `\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}% ${megabytes(received)}/${megabytes(total)} MB ${rate}  `,
          );
        } else {
          stream.write(`\r${label} ${megabytes(received)} MB ${rate}  `);
        }
        drawn = true;
        return;
      }
      if (!total) return;
      const decile = Math.floor((received / total) * 10);
      if (decile === lastDecile) return;
      lastDecile = decile;
      stream.write(
        `${label}: ${decile * 10}% (${megabytes(received)} of ${megabytes(total)} MB)\n`,
      );
    },
    end() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}

/** Writes text to `stream` with its secrets masked; a terminal stays a terminal. */
function masked(stream: CliStream): CliStream {
  return {
    write: (text) => stream.write(maskSecretsInText(text)),
    ...(stream.isTTY === undefined ? {} : { isTTY: stream.isTTY }),
  };
}

/**
 * Runs `models <command>` and returns the exit code.
 *
 * @example
 * process.exitCode = await runModelsCli(['pull', 'vosk-small-cn'], process.env);
 */
export async function runModelsCli(
  argv: readonly string[],
  environment: Readonly<Record<string, string | undefined>> = process.env,
  streams: ModelsCliStreams = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  // MODELS_BASE_URL or a --url may carry a password (`https://user:pw@mirror/…`): whatever is
  // printed goes through the settings' secret rules.
  streams = { stdout: masked(streams.stdout), stderr: masked(streams.stderr) };
  const fail = (message: string, code = 1) => {
    streams.stderr.write(`class-assistant-backend models: ${message}\n`);
    return code;
  };
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv.filter((argument) => argument !== '--'),
      options: {
        ...DATA_FOLDER_OPTIONS,
        url: { type: 'string' },
        sha256: { type: 'string' },
        name: { type: 'string' },
        language: { type: 'string' },
        json: { type: 'boolean' },
        source: { type: 'string' },
        'allow-unchecked': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: true,
    }));
  } catch (error) {
    return fail(`${(error as Error).message}\n\n${MODELS_USAGE}`, 2);
  }
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') {
    streams.stdout.write(`${MODELS_USAGE}\n`);
    return values.help || command === 'help' ? 0 : 2;
  }
  let folders: { dataDir: string; envFile: string };
  try {
    const flags = ['data-dir', 'env-file', 'settings-file'].flatMap((flag) =>
      typeof values[flag] === 'string' ? [`--${flag}`, values[flag] as string] : [],
    );
    const parsed = parseCli(flags, environment);
    if (parsed.kind !== 'run') return fail('unexpected options', 2);
    folders = parsed.options;
  } catch (error) {
    if (error instanceof CliUsageError) return fail(error.message, 2);
    throw error;
  }
  const settings = await createSettingsStore({ path: folders.envFile, environment });
  const manager = createModelManager({
    dataDir: folders.dataDir,
    baseUrl: () => settings.current().modelsBaseUrl,
  });
  await manager.prepare();

  if (command === 'list') {
    if (rest.length > 0) return fail(`list takes no arguments, got "${rest.join(' ')}"`, 2);
    const items = await manager.list();
    const mirror = settings.current().modelsBaseUrl;
    if (values.json) {
      streams.stdout.write(
        `${JSON.stringify({ models_dir: manager.folder, base_url: mirror, items }, null, 2)}\n`,
      );
      return 0;
    }
    streams.stdout.write(
      `Models in ${manager.folder}${mirror ? ` (your mirror, tried first: ${mirror})` : ''}:\n`,
    );
    for (const item of items) {
      const marks = `${item.role === 'punctuation' ? 'punctuation (not a recognizer), ' : ''}${item.recommended ? 'recommended, ' : ''}${item.streaming ? 'streaming, ' : ''}${item.unchecked ? 'UNCHECKED, ' : ''}`;
      const sources = item.sources.map((source) => source.id).join(' > ');
      streams.stdout.write(
        `  ${item.installed ? '*' : ' '} ${item.id.padEnd(26)} ${(item.language ?? '?').padEnd(3)} ${`${megabytes(item.size_bytes)} MB`.padStart(9)}  ${item.installed ? (item.path ?? '') : `${marks}${item.description}${sources ? ` [${sources}]` : ''}`}\n`,
      );
    }
    streams.stdout.write('  (* installed; sources in the order they are tried)\n');
    return 0;
  }

  if (command === 'remove') {
    const name = rest[0];
    if (!name || rest.length > 1) return fail('remove takes one model name or id', 2);
    try {
      const result = await manager.remove(name);
      if (!result.removed) return fail(`no model "${name}" is installed in ${manager.folder}`);
      streams.stdout.write(`removed ${name}\n`);
      return 0;
    } catch (error) {
      if (isServerError(error)) return fail(error.message);
      throw error;
    }
  }

  if (command === 'pull') {
    let request: ModelRequest;
    const byUrl =
      values.url !== undefined || values.sha256 !== undefined || values.name !== undefined;
    if (byUrl) {
      if (rest.length > 0) return fail('give either a catalogue id or --url/--sha256/--name', 2);
      if (
        typeof values.url !== 'string' ||
        typeof values.sha256 !== 'string' ||
        typeof values.name !== 'string'
      ) {
        return fail('pull --url needs --sha256 <hex> and --name <folder> too', 2);
      }
      const language = values.language;
      if (language !== undefined && language !== 'zh' && language !== 'en') {
        return fail(`--language must be zh or en, got "${String(language)}"`, 2);
      }
      request = {
        url: values.url,
        sha256: values.sha256,
        name: values.name,
        ...(language ? { language } : {}),
      };
    } else {
      const id = rest[0];
      if (!id || rest.length > 1) return fail('pull takes one catalogue id (see `models list`)', 2);
      request = {
        id,
        ...(typeof values.source === 'string' ? { source: values.source } : {}),
        ...(values['allow-unchecked'] ? { allowUnchecked: true } : {}),
      };
    }
    const label = 'id' in request ? request.id : request.name;
    const controller = new AbortController();
    const interrupt = () => controller.abort();
    process.once('SIGINT', interrupt);
    const progress = progressReporter(label, streams.stderr);
    try {
      const model = await manager.pull(request, {
        signal: controller.signal,
        onProgress: progress.update,
        onSource(source, notice) {
          progress.end();
          streams.stderr.write(
            notice ? `${label}: ${notice.en}\n` : `${label}: from ${source.label.en}\n`,
          );
        },
        onStage(stage) {
          if (stage === 'downloading') return;
          progress.end();
          streams.stderr.write(
            stage === 'verifying' ? `${label}: checking the checksum\n` : `${label}: unpacking\n`,
          );
        },
      });
      progress.end();
      streams.stdout.write(`installed ${model.name} (${model.engine}) at ${model.path}\n`);
      return 0;
    } catch (error) {
      progress.end();
      if (isServerError(error)) {
        const failure = FAILURES[error.code];
        return fail(
          failure ? `${failure.what} failed: ${error.message}` : error.message,
          failure?.exit ?? 1,
        );
      }
      throw error;
    } finally {
      process.off('SIGINT', interrupt);
    }
  }
  return fail(`unknown command "${command}"\n\n${MODELS_USAGE}`, 2);
}
