// `class-assistant-backend import <file>`: imports a recorded lecture into the library of the
// student's data folder, in this process (the backend app without its HTTP listener), with the
// progress on one line. Ctrl-C cancels (what was recognised stays; the same command goes on from
// there). Refused while a backend runs on the same data folder: the two would write one library.
import { readFile, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from './app.ts';
import { CliUsageError, DATA_FOLDER_OPTIONS, parseCli } from './cli-options.ts';
import { dataPaths } from './data-folder.ts';
import { errorMessage, isServerError } from './errors.ts';
import type { ImportStatus } from './import/import-service.ts';
import { type Language, localized, type MessageText, textIn } from './language.ts';
import { terminalLanguage } from './quality/eval-errors.ts';

/** Usage of `class-assistant-backend import`. */
const IMPORT_USAGE = `Usage: class-assistant-backend import <file> [--course NAME] [--material FILE]
                                      [--data-dir DIR] [--settings-file FILE]

Recognises a recorded lecture (MP3, M4A/AAC, MP4/MOV, WebM, OGG, FLAC, WAV) as fast as the
recognizer of ASR_MODE goes, into a class of the library, with notes when an LLM is configured.

  --course NAME        the class's course name (default: the file's name without extension)
  --material FILE      a material file from <data folder>/cite/ to go with the class
  --data-dir DIR       the data folder (as the backend's --data-dir)
  --settings-file FILE the settings file (as the backend's --settings-file)

Ctrl-C cancels: the lines recognised so far stay in the class; run the same command again
to go on from there (exit code 130). Exits 0 once the transcript is complete; 1 with the
reason when the import fails. Not while the backend runs on
the same data folder (import from the app, or POST /api/import, instead).`;

/** Where the CLI writes (tests pass their own). */
interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
  environment: Readonly<Record<string, string | undefined>>;
  /** Called with a function that cancels the import (on Ctrl-C). */
  onInterrupt(cancel: () => void): () => void;
}

const processIo = (): CliIo => ({
  stdout: process.stdout,
  stderr: process.stderr,
  environment: process.env,
  onInterrupt(cancel) {
    process.on('SIGINT', cancel);
    process.on('SIGTERM', cancel);
    return () => {
      process.off('SIGINT', cancel);
      process.off('SIGTERM', cancel);
    };
  },
});

/** `12:34` or `1:02:03`. */
function clock(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0
    ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}`
    : `${minutes}:${seconds}`;
}

/** One line of progress: percent, minutes done of the total, time left. */
function progressLine(status: ImportStatus, language: Language): string {
  const percent = `${Math.floor(status.fraction * 100)}%`;
  const minutes = (ms: number) => (ms / 60_000).toFixed(1);
  const done =
    status.duration_ms === null
      ? `${minutes(status.position_ms)} min`
      : `${minutes(status.position_ms)}/${minutes(status.duration_ms)} min`;
  const left =
    status.eta_ms === null
      ? ''
      : language === 'zh'
        ? `，还剩 ${clock(status.eta_ms)}`
        : `, ${clock(status.eta_ms)} left`;
  const lines = language === 'zh' ? `，${status.lines} 行` : `, ${status.lines} lines`;
  return `${percent}  ${done}${left}${lines}`;
}

/** Is a backend running on this data folder? Its URL when it answers, else null. */
async function runningBackend(
  dataDir: string,
  envFile: string,
  environment: CliIo['environment'],
): Promise<string | null> {
  // A backend writes its shutdown token once it listens and removes it when it stops; one killed
  // leaves it behind, so the token alone proves nothing: the backend must answer too.
  const token = await stat(dataPaths(dataDir).shutdownToken).catch(() => null);
  if (!token) return null;
  // Where it listens: the address its log says it is ready on (whatever port it was given),
  // else the port of the environment or the settings.
  const log = await readFile(dataPaths(dataDir).startupLog, 'utf8').catch(() => '');
  const logged = [...log.matchAll(/ready: (http:\/\/[\w.:[\]-]+)/g)].at(-1)?.[1];
  const settings = await readFile(envFile, 'utf8').catch(() => '');
  const port =
    environment.CLASS_ASSISTANT_PORT?.trim() ||
    /^\s*API_PORT\s*=\s*["']?(\d+)/m.exec(settings)?.[1] ||
    '8765';
  for (const url of new Set([...(logged ? [logged] : []), `http://127.0.0.1:${port}`])) {
    try {
      const response = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(3000) });
      const health = (await response.json()) as { data_dir?: string };
      if (typeof health.data_dir === 'string' && resolve(health.data_dir) === resolve(dataDir)) {
        return url;
      }
    } catch {
      // Nothing answers there.
    }
  }
  return null;
}

/**
 * Runs `class-assistant-backend import …`; resolves with the exit code.
 *
 * @example
 * process.exitCode = await runImportCli(['lecture.mp3', '--course', '数据结构']);
 */
export async function runImportCli(
  args: readonly string[],
  io: CliIo = processIo(),
): Promise<number> {
  const language = terminalLanguage(io.environment);
  const say = (text: MessageText) => textIn(text, language);
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...args],
      options: {
        course: { type: 'string' },
        material: { type: 'string' },
        ...DATA_FOLDER_OPTIONS,
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: true,
    }));
  } catch (error) {
    io.stderr.write(
      `class-assistant-backend import: ${(error as Error).message}\n${IMPORT_USAGE}\n`,
    );
    return 2;
  }
  if (values.help) {
    io.stdout.write(`${IMPORT_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) {
    io.stderr.write(
      `class-assistant-backend import: ${say(localized('请给出一个录音文件。', 'Give one recording file.'))}\n${IMPORT_USAGE}\n`,
    );
    return 2;
  }
  let dataDir: string;
  let envFile: string;
  try {
    const flags = ['data-dir', 'env-file', 'settings-file'].flatMap((flag) =>
      typeof values[flag] === 'string' ? [`--${flag}`, values[flag] as string] : [],
    );
    const parsed = parseCli(flags, io.environment);
    if (parsed.kind !== 'run') throw new CliUsageError('Give a data folder with --data-dir.');
    ({ dataDir, envFile } = parsed.options);
  } catch (error) {
    io.stderr.write(`class-assistant-backend import: ${(error as Error).message}\n`);
    return 2;
  }
  const path = resolve(positionals[0]!);
  const fail = (text: MessageText) => {
    io.stderr.write(`class-assistant-backend import: ${say(text)}\n`);
    return 1;
  };
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) {
    return fail(localized(`找不到录音文件 ${path}。`, `There is no recording file ${path}.`));
  }
  const running = await runningBackend(dataDir, envFile, io.environment);
  if (running) {
    return fail(
      localized(
        `后端正在使用这个数据文件夹（${running}）：请在应用里导入录音（或 POST ${running}/api/import），或先关闭它。`,
        `A backend is running on this data folder (${running}): import the recording in the app (or POST ${running}/api/import), or stop it first.`,
      ),
    );
  }

  const app = await buildApp({
    dataDir,
    envFile,
    environment: { ...io.environment },
    logger: false,
  });
  const { imports } = app.classAssistant;
  const tty = io.stdout.isTTY === true;
  let lastLine = '';
  let lastPlainPercent = -1;
  const unsubscribe = app.classAssistant.hub.subscribe((event) => {
    if (event.name !== 'import.changed' || event.data.state !== 'running') return;
    const line = progressLine(event.data, language);
    if (tty) {
      io.stdout.write(`\r${line.padEnd(lastLine.length)}`);
      lastLine = line;
      return;
    }
    // Plain lines for a log or a pipe: one per tenth.
    const tenth = Math.floor(event.data.fraction * 10);
    if (tenth > lastPlainPercent) {
      lastPlainPercent = tenth;
      io.stdout.write(`${line}\n`);
    }
  });
  let cancelled = false;
  const stopListening = io.onInterrupt(() => {
    if (cancelled) return;
    cancelled = true;
    void imports.cancel().catch(() => undefined);
  });
  try {
    const latest = imports.current();
    let status: ImportStatus;
    let resuming = false;
    try {
      // The same recording as the import that stopped: it goes on from there.
      const known = latest && (await sameRecording(app.classAssistant.dataDir, latest.id, path));
      resuming = Boolean(known && latest.resumable && latest.state !== 'running');
      status =
        resuming && latest
          ? await imports.resume(latest.id)
          : await imports.begin({
              path,
              fileName: basename(path),
              owned: false,
              ...(typeof values.course === 'string' ? { courseName: values.course } : {}),
              ...(typeof values.material === 'string' ? { citeFilename: values.material } : {}),
            });
    } catch (error) {
      if (tty && lastLine) io.stdout.write('\n');
      return fail(isServerError(error) ? (error.localized ?? error.message) : String(error));
    }
    if (resuming && status.position_ms > 0) {
      io.stdout.write(
        `${say(localized(`从 ${clock(status.position_ms)} 处接着识别。`, `Going on from ${clock(status.position_ms)}.`))}\n`,
      );
    }
    const final = (await imports.settled()) ?? status;
    if (tty && lastLine) io.stdout.write('\n');
    if (final.state === 'done') {
      io.stdout.write(`${progressLine(final, language)}\n`);
      io.stdout.write(
        `${say(
          localized(
            `已导入“${final.course_name}”：${final.lines} 行，课堂 ${final.class_id}。`,
            `Imported "${final.course_name}": ${final.lines} lines, class ${final.class_id}.`,
          ),
        )}\n`,
      );
      if (final.warning) io.stderr.write(`${say(final.warning)}\n`);
      return 0;
    }
    if (final.state === 'cancelled') {
      fail(
        localized(
          `已取消：识别到 ${clock(final.position_ms)} 的 ${final.lines} 行保留在课堂里。再运行同一条命令即可接着识别。`,
          `Cancelled: the ${final.lines} lines up to ${clock(final.position_ms)} are kept in the class. Run the same command again to go on from there.`,
        ),
      );
      return 130;
    }
    const reason = final.error ? final.error[language] : '';
    return fail(
      final.resumable
        ? localized(
            `导入失败：${final.error?.zh ?? ''} 已识别的内容保留在课堂里，再运行同一条命令即可接着识别。`,
            `The import failed: ${final.error?.en ?? ''} What was recognised is kept in the class; run the same command again to go on.`,
          )
        : localized(`导入失败：${reason}`, `The import failed: ${reason}`),
    );
  } catch (error) {
    return fail(isServerError(error) ? errorMessage(error, language) : String(error));
  } finally {
    stopListening();
    unsubscribe();
    await app.close();
  }
}

/** True when the import `id` read the recording at `path` (the CLI's imports use it in place). */
async function sameRecording(dataDir: string, id: string, path: string): Promise<boolean> {
  try {
    const record = JSON.parse(
      await readFile(resolve(dataPaths(dataDir).imports, id, 'import.json'), 'utf8'),
    ) as { recording_path?: string };
    return record.recording_path === path;
  } catch {
    return false;
  }
}
