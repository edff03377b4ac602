/**
 * `class-assistant-backend eval <folder>`: how well an offline engine recognises the student's
 * own recordings, alone and through the live pipeline of a class. Progress goes to stderr; the
 * table, or with --json one JSON object, to stdout. Exit codes say what failed.
 */
import { parseArgs } from 'node:util';
import { CliUsageError, DATA_FOLDER_OPTIONS, parseCli } from '../cli-options.ts';
import { errorMessage, isServerError } from '../errors.ts';
import { localized, type MessageText, textIn } from '../language.ts';
import { createSettingsStore } from '../settings/settings-store.ts';
import { chooseEvalEngine, evalEngineNames } from './eval-engine.ts';
import { isEvalInputError, isEvalRunError, terminalLanguage } from './eval-errors.ts';
import { readEvalSet } from './eval-set.ts';
import { type EvalReport, runEval } from './run-eval.ts';

/** Usage text of `class-assistant-backend eval --help`. */
const EVAL_USAGE = `class-assistant-backend eval — measure offline recognition on your own recordings

Usage: class-assistant-backend eval <folder> [--engine auto|vosk|pocketsphinx|sherpa]
           [--model <folder>] [--language zh|en] [--json]

<folder> holds pairs: name.wav (16-bit PCM, mono or stereo, any sample rate) and name.txt
(what is said in it). Each file is recognised twice: by the engine alone (the whole file at
once) and through the live pipeline of a class (speech detection, a phrase at a time, merging
and cleaning), in a temporary data folder that is removed afterwards.

Options:
  --engine <name>          auto (default): the engine and model a class would use with your
                           settings and installed models; or one engine by name
  --model <folder>         the model folder (default: the engine's setting, e.g.
                           VOSK_MODEL_PATH, else an installed model of the language)
  --language zh|en         zh scores the character error rate (CER), en the word error rate
                           (WER); default LOCAL_ASR_LANGUAGE (en for PocketSphinx)
  --json                   print one JSON object (files, overall) instead of the table
  --data-dir <dir>         your data folder (only read: installed models), as for the server
  --settings-file <file>   your settings file (only read: model paths, VAD_* speech
                           detection), as for the server; also --env-file
  -h, --help               show this help

Error rates compare normalised text: case, punctuation, full-width forms and the spaces
between Chinese characters do not count. pipeline/engine is the pipeline's error rate over
the engine's (1 = the class loses nothing to speech detection and merging; 0/0 counts as 1,
an error-free engine against a pipeline with errors has no ratio). RTF is decoding time over
audio time (below 1: faster than real time).

Exit codes: 0 done, 1 the engine or the pipeline failed, 2 usage, 3 the folder (missing,
empty, a .wav without its .txt or the reverse, unreadable audio, an empty reference), 130
interrupted (Ctrl-C; the temporary folder is removed).`;

/** Where the CLI writes. */
export interface EvalCliStreams {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;
const ratio = (value: number | null) => (value === null ? 'none' : value.toFixed(2));

/** The report as a table, for a terminal. */
function formatEvalReport(report: EvalReport): string {
  const metric = report.metric.toUpperCase();
  const rows: string[][] = [
    [
      'file',
      'seconds',
      `engine ${metric}`,
      `pipeline ${metric}`,
      'pipeline/engine',
      'engine RTF',
      'pipeline RTF',
    ],
  ];
  for (const file of report.files) {
    rows.push([
      file.name,
      file.duration_s.toFixed(1),
      percent(file.engine.error_rate),
      percent(file.pipeline.error_rate),
      ratio(file.pipeline_to_engine),
      file.engine.rtf.toFixed(3),
      file.pipeline.rtf.toFixed(3),
    ]);
  }
  const overall = report.overall;
  rows.push([
    'overall',
    overall.duration_s.toFixed(1),
    percent(overall.engine_error_rate),
    percent(overall.pipeline_error_rate),
    ratio(overall.pipeline_to_engine),
    overall.rtf.toFixed(3),
    overall.pipeline_rtf.toFixed(3),
  ]);
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[column]!),
      )
      .join('  '),
  );
  const name = metric === 'CER' ? 'character error rate' : 'word error rate';
  return [
    `${report.engine} (${report.model}), language ${report.language}: ${metric} = ${name}, lower is better`,
    '',
    ...lines,
    '',
    `${overall.reference_tokens} reference ${metric === 'CER' ? 'characters and words' : 'words'} in ${report.files.length} file(s).`,
  ].join('\n');
}

/**
 * Runs `eval` and returns the exit code.
 *
 * @example
 * process.exitCode = await runEvalCli(['lectures/', '--engine', 'pocketsphinx', '--json']);
 */
export async function runEvalCli(
  argv: readonly string[],
  environment: Readonly<Record<string, string | undefined>> = process.env,
  streams: EvalCliStreams = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const language = terminalLanguage(environment);
  const fail = (message: MessageText, code: number) => {
    streams.stderr.write(`class-assistant-backend eval: ${textIn(message, language)}\n`);
    return code;
  };
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv.filter((argument) => argument !== '--'),
      options: {
        ...DATA_FOLDER_OPTIONS,
        engine: { type: 'string' },
        model: { type: 'string' },
        language: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: true,
    }));
  } catch (error) {
    return fail(`${(error as Error).message}\n\n${EVAL_USAGE}`, 2);
  }
  if (values.help) {
    streams.stdout.write(`${EVAL_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) {
    return fail(
      positionals.length === 0
        ? localized(
            `请给出录音文件夹（name.wav + name.txt 成对）\n\n${EVAL_USAGE}`,
            `give the folder of recordings (name.wav + name.txt pairs)\n\n${EVAL_USAGE}`,
          )
        : localized(
            `只能给一个文件夹，收到 ${positionals.length} 个：${positionals.join(' ')}`,
            `give one folder, got ${positionals.length}: ${positionals.join(' ')}`,
          ),
      2,
    );
  }
  const engineName = typeof values.engine === 'string' ? values.engine : 'auto';
  const allowed = [...evalEngineNames(), 'sherpa'];
  if (!allowed.includes(engineName)) {
    const names = [...new Set(allowed)].join(', ');
    return fail(
      localized(
        `--engine 应为 ${names} 之一，收到 "${engineName}"`,
        `--engine must be one of ${names}, got "${engineName}"`,
      ),
      2,
    );
  }
  const classLanguage = values.language;
  if (classLanguage !== undefined && classLanguage !== 'zh' && classLanguage !== 'en') {
    return fail(
      localized(
        `--language 应为 zh 或 en，收到 "${String(classLanguage)}"`,
        `--language must be zh or en, got "${String(classLanguage)}"`,
      ),
      2,
    );
  }
  let folders: { dataDir: string; envFile: string };
  try {
    const flags = ['data-dir', 'env-file', 'settings-file'].flatMap((flag) =>
      typeof values[flag] === 'string' ? [`--${flag}`, values[flag] as string] : [],
    );
    const parsed = parseCli(flags, environment);
    if (parsed.kind !== 'run') return fail(localized('选项有误', 'unexpected options'), 2);
    folders = parsed.options;
  } catch (error) {
    if (error instanceof CliUsageError) return fail(error.message, 2);
    throw error;
  }
  const progress = (line: string) => streams.stderr.write(`${line}\n`);
  // Ctrl-C ends the run at once, through process exit handlers (the temporary folder goes).
  const interrupt = () => process.exit(130);
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    const items = await readEvalSet(positionals[0]!);
    const settings = (await createSettingsStore({ path: folders.envFile, environment })).current();
    const choice = await chooseEvalEngine(
      {
        engine: engineName,
        model: typeof values.model === 'string' ? values.model : undefined,
        language: classLanguage,
      },
      settings,
      folders.dataDir,
    );
    progress(
      `${items.length} file(s), ${items.reduce((sum, item) => sum + item.durationS, 0).toFixed(1)} s of audio; engine ${choice.name}${choice.model ? ` with ${choice.model}` : ''}, language ${choice.language}`,
    );
    const report = await runEval({
      items,
      choice,
      settings,
      messageLanguage: language,
      onProgress: progress,
    });
    streams.stdout.write(
      values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatEvalReport(report)}\n`,
    );
    return 0;
  } catch (error) {
    if (isEvalInputError(error)) return fail(error.text, error.option ? 2 : 3);
    if (isEvalRunError(error)) return fail(error.text, 1);
    if (isServerError(error)) return fail(errorMessage(error, language), 1);
    throw error;
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}
