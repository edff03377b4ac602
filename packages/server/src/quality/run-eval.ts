/**
 * Measures recognition on a folder of recordings (see eval-set.ts), twice per file:
 *
 * - the engine alone: the whole file, 16 kHz mono, in one `transcribe` call;
 * - the live pipeline, as a class hears it: the backend app (buildApp) in a temporary data
 *   folder plays the file (AUDIO_INPUT=file:, AUDIO_FILE_PACE=fast) through speech detection,
 *   the engine per phrase, merging and cleaning; the class is started, runs until the file
 *   ends and is stopped, and its transcript's lines are what is scored.
 *
 * The student's data folder and settings file are only read; everything a class writes goes to
 * the temporary folder, removed at the end.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import { appFolderPaths } from '../data-folder.ts';
import type { LiveEvent } from '../events/event-hub.ts';
import { type Language, localized } from '../language.ts';
import { releaseCachedOfflineEngine } from '../recognizers/local-recognizer.ts';
import { parseEnv, serializeEnv, setEnvValue } from '../settings/env-file.ts';
import { createSettingsStore, type ResolvedSettings } from '../settings/settings-store.ts';
import {
  combinedRate,
  type ErrorMetric,
  type ErrorRate,
  errorRate,
  metricOf,
  pipelineToEngine,
} from './error-rate.ts';
import type { EvalEngineChoice } from './eval-engine.ts';
import { EvalRunError } from './eval-errors.ts';
import { type EvalItem, recognizerSamples } from './eval-set.ts';

/** One way of recognising a file, scored. */
interface EvalRun {
  text: string;
  error_rate: number;
  /** Decoding time / audio duration. */
  rtf: number;
  substitutions: number;
  deletions: number;
  insertions: number;
}

/** One file of the report. */
interface EvalFileReport {
  name: string;
  duration_s: number;
  reference: string;
  reference_tokens: number;
  engine: EvalRun;
  pipeline: EvalRun;
  /** pipeline error rate / engine error rate (0/0 = 1; x/0 = null). */
  pipeline_to_engine: number | null;
}

/** What `eval --json` prints. */
export interface EvalReport {
  engine: string;
  /** The model folder (or what the engine loaded). */
  model: string;
  language: 'zh' | 'en';
  metric: ErrorMetric;
  files: EvalFileReport[];
  overall: {
    metric: ErrorMetric;
    /** Total edits / total reference tokens, engine alone. */
    engine_error_rate: number;
    /** The same through the live pipeline. */
    pipeline_error_rate: number;
    pipeline_to_engine: number | null;
    /** The engine's real-time factor: total decoding time / total audio. */
    rtf: number;
    /** The pipeline's: total time from a class's start to the end of its file / total audio. */
    pipeline_rtf: number;
    duration_s: number;
    reference_tokens: number;
  };
}

/** Options of {@link runEval}. */
export interface RunEvalOptions {
  items: readonly EvalItem[];
  choice: EvalEngineChoice;
  /** The student's effective settings: their speech detection values (VAD_*) are used. */
  settings: ResolvedSettings;
  /** The language of the class's own messages quoted in errors (default English). */
  messageLanguage?: Language;
  /** Progress lines (never the report). */
  onProgress?: (line: string) => void;
}

/** The student's settings a class of the pipeline run keeps: how phrases are detected. */
const KEPT_SETTINGS = [
  'VAD_ENERGY_THRESHOLD',
  'VAD_DYNAMIC_ENERGY',
  'VAD_PAUSE_THRESHOLD',
  'VAD_PHRASE_TIME_LIMIT',
  'VAD_CALIBRATION_SECONDS',
  'LOCAL_ASR_THREADS',
];

function scored(text: string, rate: ErrorRate, seconds: number, duration: number): EvalRun {
  return {
    text,
    error_rate: rate.rate,
    rtf: seconds / Math.max(duration, 1e-9),
    substitutions: rate.substitutions,
    deletions: rate.deletions,
    insertions: rate.insertions,
  };
}

/** The temporary settings file of the pipeline run. */
function evalSettingsFile(options: RunEvalOptions, firstWav: string): string {
  const { choice, settings } = options;
  let document = parseEnv('');
  const set = (key: string, value: string) => {
    document = setEnvValue(document, key, value);
  };
  set('ASR_MODE', 'local');
  set('LOCAL_ASR_ENGINE', choice.name);
  set('LOCAL_ASR_LANGUAGE', choice.language);
  if (choice.model !== undefined) set(choice.entry.modelSetting, choice.model);
  set('AUDIO_INPUT', `file:${firstWav}`);
  set('AUDIO_FILE_PACE', 'fast');
  // Every line stays in the transcript (folding needs an LLM and only moves lines).
  set('HISTORY_FOLD_ENTRIES', '0');
  for (const key of KEPT_SETTINGS) {
    const value = settings.values[key];
    if (value !== undefined) set(key, value);
  }
  return serializeEnv(document);
}

/**
 * Runs the engine alone on every file, each on a freshly loaded engine (the load is not timed):
 * PocketSphinx adapts to the audio it decoded before, and a file's numbers must not depend on
 * which files came before it in the folder.
 */
async function engineRuns(
  options: RunEvalOptions,
  settings: ResolvedSettings,
): Promise<{ detail: string; runs: Array<{ text: string; seconds: number }> }> {
  const { choice, items } = options;
  const availability = await choice.entry.definition.availability(settings, choice.model);
  if (!availability.available) throw new EvalRunError(availability.message);
  const runs: Array<{ text: string; seconds: number }> = [];
  let detail = choice.model ?? choice.name;
  for (const item of items) {
    const samples = await recognizerSamples(item);
    const engine = await choice.entry.definition.load(settings, choice.model);
    try {
      detail = engine.detail;
      const started = performance.now();
      const text = await engine.transcribe(samples);
      const seconds = (performance.now() - started) / 1000;
      options.onProgress?.(`engine   ${item.name}: ${text}`);
      runs.push({ text, seconds });
    } finally {
      engine.close();
    }
  }
  return { detail, runs };
}

/** Plays one file through a class of `app` and returns its transcript and how long it took. */
async function pipelineRun(
  app: FastifyInstance,
  item: EvalItem,
  timeoutMs: number,
  language: Language,
): Promise<{ text: string; seconds: number }> {
  const request = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    const response = await app.inject({
      method,
      url,
      headers: { host: `127.0.0.1:${app.classAssistant.port()}`, 'accept-language': language },
      ...(payload ? { payload } : {}),
    });
    return { status: response.statusCode, body: response.json() as Record<string, unknown> };
  };
  const saved = await request('POST', '/api/settings', {
    fields: { AUDIO_INPUT: `file:${item.wavPath}` },
  });
  if (saved.status !== 200) {
    const reason = String(saved.body.message);
    throw new EvalRunError(
      localized(
        `${item.wavPath}：设置未被接受：${reason}`,
        `${item.wavPath}: the settings were refused: ${reason}`,
      ),
    );
  }
  let settle: (event: LiveEvent) => void = () => undefined;
  const finished = new Promise<LiveEvent>((resolve) => {
    settle = resolve;
  });
  const errors: string[] = [];
  const unsubscribe = app.classAssistant.hub.subscribe((event) => {
    if (event.name === 'error.raised') errors.push(event.data.message);
    if (
      event.name === 'monitor.changed' &&
      (event.data.recognizer_state === 'ended' || event.data.recognizer_state === 'failed')
    ) {
      settle(event);
    }
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    // Timed from the start request: fast-paced audio flows (and may be decoded whole) before the
    // answer comes back, so the pipeline's time includes starting the class (loading the model).
    const begin = performance.now();
    const started = await request('POST', '/api/start_monitor', {
      course_name: `eval ${item.name}`,
    });
    if (started.status !== 200 || started.body.status !== 'started') {
      const reason = String(started.body.message ?? started.body.status);
      throw new EvalRunError(
        localized(
          `${item.wavPath}：课堂没有开始：${reason}`,
          `${item.wavPath}: the class did not start: ${reason}`,
        ),
      );
    }
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const outcome = await Promise.race([finished, timedOut]);
    const seconds = (performance.now() - begin) / 1000;
    await request('POST', '/api/stop_monitor?with_summary=false');
    if (outcome === 'timeout') {
      const limit = Math.round(timeoutMs / 1000);
      throw new EvalRunError(
        localized(
          `${item.wavPath}：${limit} 秒后课堂仍未放完这个文件。`,
          `${item.wavPath}: the class had not finished the file after ${limit} s.`,
        ),
      );
    }
    if (outcome.name === 'monitor.changed' && outcome.data.recognizer_state === 'failed') {
      throw new EvalRunError(
        localized(
          `${item.wavPath}：课堂中识别失败：${errors.join('；')}`,
          `${item.wavPath}: recognition failed in the class: ${errors.join('; ')}`,
        ),
      );
    }
    const transcript = await request('GET', '/api/transcript?limit=10000');
    const entries = (transcript.body.entries ?? []) as Array<{ text: string }>;
    return { text: entries.map((entry) => entry.text).join(' '), seconds };
  } finally {
    clearTimeout(timer);
    unsubscribe();
  }
}

/**
 * Runs both measurements over every file and scores them.
 *
 * @example
 * const report = await runEval({ items: await readEvalSet(folder), choice, settings });
 */
export async function runEval(options: RunEvalOptions): Promise<EvalReport> {
  const { items, choice } = options;
  if (items.length === 0)
    throw new EvalRunError(localized('没有要评测的文件。', 'No files to evaluate.'));
  const metric = metricOf(choice.language);
  const root = await mkdtemp(join(tmpdir(), 'class-assistant-eval-'));
  // A process that exits meanwhile (Ctrl-C: the command exits with 130) leaves no folder behind.
  const removeOnExit = () => rmSync(root, { recursive: true, force: true });
  process.once('exit', removeOnExit);
  try {
    const { settingsFile: envFile, dataDir } = appFolderPaths(root);
    await writeFile(envFile, evalSettingsFile(options, items[0]!.wavPath), { mode: 0o600 });
    const settings = (await createSettingsStore({ path: envFile })).current();

    options.onProgress?.(`${choice.name}: the engine alone on ${items.length} file(s)`);
    const engine = await engineRuns(options, settings);

    options.onProgress?.(`${choice.name}: the live pipeline (a class per file)`);
    const app = await buildApp({ dataDir, envFile, logger: false });
    const pipeline: Array<{ text: string; seconds: number }> = [];
    try {
      await app.ready();
      for (const item of items) {
        // A generous bound: a class that never ends its file must not hang the command.
        const timeoutMs = 120_000 + item.durationS * 20_000;
        const run = await pipelineRun(app, item, timeoutMs, options.messageLanguage ?? 'en');
        // Each class starts on a freshly loaded engine too, like a class after a restart.
        releaseCachedOfflineEngine();
        options.onProgress?.(`pipeline ${item.name}: ${run.text}`);
        pipeline.push(run);
      }
    } finally {
      await app.close();
      releaseCachedOfflineEngine();
    }

    const files: EvalFileReport[] = [];
    const engineRates: ErrorRate[] = [];
    const pipelineRates: ErrorRate[] = [];
    items.forEach((item, index) => {
      const alone = engine.runs[index]!;
      const live = pipeline[index]!;
      const engineRate = errorRate(item.reference, alone.text);
      const pipelineRate = errorRate(item.reference, live.text);
      engineRates.push(engineRate);
      pipelineRates.push(pipelineRate);
      files.push({
        name: item.name,
        duration_s: item.durationS,
        reference: item.reference,
        reference_tokens: engineRate.referenceTokens,
        engine: scored(alone.text, engineRate, alone.seconds, item.durationS),
        pipeline: scored(live.text, pipelineRate, live.seconds, item.durationS),
        pipeline_to_engine: pipelineToEngine(pipelineRate.rate, engineRate.rate),
      });
    });
    const duration = items.reduce((sum, item) => sum + item.durationS, 0);
    const engineErrorRate = combinedRate(engineRates);
    const pipelineErrorRate = combinedRate(pipelineRates);
    return {
      engine: choice.name,
      model: choice.model ?? engine.detail,
      language: choice.language,
      metric,
      files,
      overall: {
        metric,
        engine_error_rate: engineErrorRate,
        pipeline_error_rate: pipelineErrorRate,
        pipeline_to_engine: pipelineToEngine(pipelineErrorRate, engineErrorRate),
        rtf: engine.runs.reduce((sum, run) => sum + run.seconds, 0) / Math.max(duration, 1e-9),
        pipeline_rtf:
          pipeline.reduce((sum, run) => sum + run.seconds, 0) / Math.max(duration, 1e-9),
        duration_s: duration,
        reference_tokens: engineRates.reduce((sum, rate) => sum + rate.referenceTokens, 0),
      },
    };
  } finally {
    process.off('exit', removeOnExit);
    await rm(root, { recursive: true, force: true });
  }
}
