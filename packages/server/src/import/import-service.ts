// A recorded lecture becomes a class of the library: the recording runs through the monitor as
// a class of its own (the same recognizer, pipeline, library and notes as a live class), as fast
// as the recognizer takes it. One import at a time; none while a live class runs, and no live
// class while one runs. Its state is kept in `imports/<id>/import.json` (written atomically on
// every change and at most twice a second while it runs), so a restart still shows it and a
// failed, cancelled or interrupted import goes on with the same class from where it stopped.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '@class-assistant/transcript-core';
import type { z } from 'zod';
import { dataPaths } from '../data-folder.ts';
import { errorMessage, isServerError, ServerError } from '../errors.ts';
import type { EventHub } from '../events/event-hub.ts';
import type { ErrorRaisedPayload, ImportStatusSchema } from '../events/live-events.ts';
import { localized } from '../language.ts';
import type { ClassRecord } from '../monitor/class-record.ts';
import type { Monitor, RecordingStatus } from '../monitor/monitor.ts';
import { maskSecretsInText } from '../secret-rules.ts';

/** An import's state: GET /api/import and the `import.changed` event. */
export type ImportStatus = z.infer<typeof ImportStatusSchema>;

/** What `imports/<id>/import.json` holds. */
interface ImportRecord {
  status: ImportStatus;
  /** The recording: in the import's folder (an upload) or where the student keeps it (the CLI). */
  recording_path: string;
  /** True when the recording is the import's own copy, removed once it cannot resume. */
  owned: boolean;
  cite_filename: string | null;
  /** Where a resumed import begins, ms into the recording. */
  resume_at_ms: number;
}

/** What an import needs of the class library. */
interface ImportLibrary {
  liveClassId(): string | null;
}

/** Options of {@link createImportService}. */
export interface ImportServiceOptions {
  dataDir: string;
  monitor: Monitor;
  library: ImportLibrary;
  hub: EventHub;
  record: ClassRecord;
  /** Whether an LLM is configured (notes are written), read when the recording is over. */
  llmConfigured(): boolean;
  logger: {
    info(object: object, message?: string): void;
    warn(object: object, message?: string): void;
    error(object: object, message?: string): void;
  };
  now?: () => Date;
  /** Milliseconds between progress events (default 500: at most twice a second). */
  progressIntervalMs?: number;
}

/** What starts an import. */
interface ImportRequest {
  /** The import's id (from {@link ImportService.prepareUpload}); a new one when absent. */
  id?: string;
  /** The recording on disk. */
  path: string;
  /** Its name as the student gave it. */
  fileName: string;
  /** True when `path` is the import's own copy (removed when done). */
  owned: boolean;
  /** The class's course name (default: the file's name without its extension). */
  courseName?: string;
  /** The material file (a name from /api/cite_files) the class goes with. */
  citeFilename?: string | null;
}

/** The import service (see the module comment). */
export interface ImportService {
  /** The running import, else the latest (null when there has been none). */
  current(): ImportStatus | null;
  /**
   * The class of an import the previous run of the backend died in: it is kept ended (the import
   * resumes it), never continued with the microphone.
   */
  interruptedClassId(): string | null;
  /** 409 IMPORT_BUSY when an import or a class runs: checked before an upload is stored. */
  checkFree(): void;
  /** A new import's id and the folder its upload goes to. */
  prepareUpload(): Promise<{ id: string; folder: string }>;
  /** Starts an import; rejects (and records it failed) when its class cannot start. */
  begin(request: ImportRequest): Promise<ImportStatus>;
  /** Cancels the running import: its lines so far stay in the class; it can resume. */
  cancel(): Promise<ImportStatus>;
  /** Goes on with a failed or cancelled import, in the same class, from where it stopped. */
  resume(id: string): Promise<ImportStatus>;
  /** Resolves with the import's state once the running import is over (at once when none runs). */
  settled(): Promise<ImportStatus | null>;
  /** Stops the timers (the monitor's close stops the class). */
  close(): void;
}

/** The file name without its extension, for a course name. */
function baseName(fileName: string): string {
  const name = fileName.replace(/^.*[\\/]/, '');
  const dot = name.lastIndexOf('.');
  return (dot > 0 ? name.slice(0, dot) : name).trim() || name;
}

function newImportId(now: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  const stamp = `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

const IMPORT_ID = /^\d{8}-\d{6}-[0-9a-f]{6}$/;

/** What one run of an import (its start or a resume) keeps while the recording is recognised. */
interface Active {
  record: ImportRecord;
  startedAtMs: number;
  startPositionMs: number;
  fatal: ErrorRaisedPayload | null;
  /** Set once the import's own code stops the class (its end, a failure, a cancel). */
  stopping: boolean;
  finished: Promise<void> | null;
  unsubscribe: () => void;
  /** The progress events, once the class runs. */
  timer: NodeJS.Timeout | undefined;
}

/**
 * Creates the import service of a data folder, reading the latest import's state. An import
 * that was running when the backend died is `failed` and resumable from then on.
 *
 * @example
 * const imports = await createImportService({ dataDir, monitor, library, hub, record, llmConfigured, logger });
 * await imports.begin({ path: '/lectures/week3.mp3', fileName: 'week3.mp3', owned: false });
 */
export async function createImportService(options: ImportServiceOptions): Promise<ImportService> {
  const now = options.now ?? (() => new Date());
  const folder = dataPaths(options.dataDir).imports;
  const folderOf = (id: string) => join(folder, id);
  const fileOf = (id: string) => join(folderOf(id), 'import.json');
  let latest: ImportRecord | null = null;
  let active: Active | null = null;
  let interruptedClass: string | null = null;
  let settledWaiters: Array<(status: ImportStatus | null) => void> = [];
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = chain.then(task, task);
    chain = run.catch(() => undefined);
    return run;
  };

  const save = async (record: ImportRecord) => {
    await writeFileAtomic(fileOf(record.status.id), `${JSON.stringify(record, null, 2)}\n`);
  };

  const publish = (record: ImportRecord) => {
    options.hub.publish('import.changed', { ...record.status });
  };

  /** Changes the import's status, saves it and tells the UI. */
  const update = async (record: ImportRecord, change: Partial<ImportStatus>) => {
    record.status = { ...record.status, ...change, updated_at: now().toISOString() };
    latest = record;
    try {
      await save(record);
    } catch (error) {
      options.logger.error(
        { err: error, importId: record.status.id },
        'import: saving its state failed',
      );
    }
    publish(record);
  };

  const settle = () => {
    const waiters = settledWaiters;
    settledWaiters = [];
    for (const resolve of waiters) resolve(latest ? { ...latest.status } : null);
  };

  const removeRecording = async (record: ImportRecord) => {
    if (!record.owned) return;
    await rm(record.recording_path, { force: true }).catch((error: unknown) =>
      options.logger.warn({ err: error }, 'import: could not remove the uploaded recording'),
    );
  };

  // ------------------------------------------------------------------ the latest import at start
  await mkdir(folder, { recursive: true });
  const records: ImportRecord[] = [];
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    if (!IMPORT_ID.test(name)) continue;
    try {
      records.push(JSON.parse(await readFile(fileOf(name), 'utf8')) as ImportRecord);
    } catch {
      // A folder without a readable state (killed while it was created) is left alone.
    }
  }
  records.sort((a, b) => a.status.started_at.localeCompare(b.status.started_at));
  latest = records.at(-1) ?? null;
  if (latest?.status.state === 'running') {
    const exists = await stat(latest.recording_path).then(
      (info) => info.isFile(),
      () => false,
    );
    interruptedClass = latest.status.class_id;
    await update(latest, {
      state: 'failed',
      eta_ms: null,
      resumable: exists,
      error: {
        code: 'IMPORT_INTERRUPTED',
        zh: '导入时后端意外停止了，已识别的内容都保留在课堂里。',
        en: 'The backend stopped unexpectedly during the import; every line recognised so far is kept in the class.',
        technical: null,
      },
    });
    options.logger.warn(
      { importId: latest.status.id, classId: interruptedClass },
      'import: the backend stopped during an import; it can resume',
    );
  }

  // ------------------------------------------------------------------ one run of an import
  const progressOf = (run: Active, recording: RecordingStatus | undefined) => {
    const positionMs = Math.round(recording?.positionMs ?? run.startPositionMs);
    const durationMs =
      recording?.durationMs === null || recording?.durationMs === undefined
        ? run.record.status.duration_ms
        : Math.round(recording.durationMs);
    const elapsed = performance.now() - run.startedAtMs;
    const rate = elapsed > 0 ? (positionMs - run.startPositionMs) / elapsed : 0;
    const eta =
      durationMs !== null && rate > 0
        ? Math.max(0, Math.round((durationMs - positionMs) / rate))
        : null;
    return {
      fraction: Math.min(1, Math.max(0, recording?.fraction ?? run.record.status.fraction)),
      position_ms: positionMs,
      duration_ms: durationMs,
      eta_ms: eta,
    };
  };

  /** The class is stopped; the import ends as `outcome` says. */
  const finish = (run: Active, outcome: 'ended' | 'failed' | 'cancelled' | 'stopped') => {
    run.finished ??= (async () => {
      run.stopping = true;
      clearInterval(run.timer);
      try {
        await options.monitor.stop();
      } catch (error) {
        options.logger.error({ err: error }, 'import: stopping the class failed');
      }
      run.unsubscribe();
      const recording = options.monitor.recording();
      const { record } = run;
      const progress = progressOf(run, recording);
      // Free for the next import (or class) before the student hears this one is over.
      const release = () => {
        if (active === run) active = null;
      };
      if (outcome === 'ended') {
        await update(record, {
          ...progress,
          fraction: 1,
          position_ms: progress.duration_ms ?? progress.position_ms,
          eta_ms: 0,
        });
        await writeNotes(record);
        await removeRecording(record);
        release();
        await update(record, { state: 'done', resumable: false });
      } else if (outcome === 'failed') {
        const fatal = run.fatal;
        const message = fatal?.messages ?? { zh: fatal?.message ?? '', en: fatal?.message ?? '' };
        // Lines end where their speech ends: what follows the last one is recognised again.
        record.resume_at_ms = Math.round(recording?.lastLineEndMs ?? run.startPositionMs);
        release();
        await update(record, {
          ...progress,
          position_ms: record.resume_at_ms,
          eta_ms: null,
          state: 'failed',
          resumable: true,
          error: {
            code: fatal?.code ?? 'RECOGNIZER_FAILED',
            zh: `识别在录音的 ${clock(record.resume_at_ms)} 处停止了：${message.zh}`,
            en: `Recognition stopped at ${clock(record.resume_at_ms)} of the recording: ${message.en}`,
            technical: fatal ? maskSecretsInText(fatal.message) : null,
          },
        });
      } else {
        // A clean stop recognises everything read: it goes on from there.
        record.resume_at_ms = Math.round(recording?.positionMs ?? run.startPositionMs);
        release();
        await update(record, {
          ...progress,
          position_ms: record.resume_at_ms,
          eta_ms: null,
          state: 'cancelled',
          resumable: true,
        });
      }
      options.logger.info(
        { importId: record.status.id, state: record.status.state, lines: record.status.lines },
        'import: over',
      );
      release();
      settle();
    })();
    return run.finished;
  };

  const writeNotes = async (record: ImportRecord) => {
    if (!options.llmConfigured()) {
      await update(record, {
        notes: 'skipped',
        warning: localized(
          '没有配置大模型（LLM），所以没有写课堂笔记；配置后可以在课程库里为这节课写笔记。',
          'No LLM is configured, so no notes were written; once one is, notes can be written for this class from the library.',
        ),
      });
      return;
    }
    try {
      const notes = await options.record.writeNotes(record.status.course_name);
      options.hub.publish('notes.written', {
        filename: notes.filename,
        course_name: notes.course_name,
      });
      await update(record, { notes: 'written' });
    } catch (error) {
      const known = isServerError(error) ? error : null;
      options.logger.warn({ err: error }, 'import: writing the notes failed');
      await update(record, {
        notes: 'failed',
        warning: known
          ? localized(
              `课堂笔记没写成：${errorMessage(known, 'zh')}`,
              `The notes could not be written: ${errorMessage(known, 'en')}`,
            )
          : localized(
              '课堂笔记没写成，详情见日志。',
              'The notes could not be written; see the log.',
            ),
      });
    }
  };

  /** Starts the class of `record` at `resume_at_ms`; the run watches it until it is over. */
  const run = async (record: ImportRecord, continueClassId: string | null) => {
    const startPositionMs = record.resume_at_ms;
    const current: Active = {
      record,
      startedAtMs: performance.now(),
      startPositionMs,
      fatal: null,
      stopping: false,
      finished: null,
      unsubscribe: () => undefined,
      timer: undefined,
    };
    // Events of the class are watched from before it starts: a short recording may be over at once.
    current.unsubscribe = options.hub.subscribe((event) => {
      if (active !== current) return;
      // Lines written while the class stops (the phrases in flight) count too.
      if (event.name === 'line.appended') {
        record.status = { ...record.status, lines: record.status.lines + 1 };
      }
      if (current.stopping) return;
      if (event.name === 'error.raised') {
        if (event.data.source === 'recognizer' && event.data.fatal) current.fatal = event.data;
      } else if (event.name === 'monitor.changed') {
        if (event.data.recognizer_state === 'ended') void finish(current, 'ended');
        else if (event.data.recognizer_state === 'failed') void finish(current, 'failed');
        else if (!event.data.is_monitoring) void finish(current, 'stopped');
      }
    });
    active = current;
    try {
      await options.monitor.start({
        courseName: record.status.course_name,
        citeFilename: record.cite_filename,
        recordingName: record.status.file_name,
        recording: {
          path: record.recording_path,
          startAtMs: startPositionMs,
          ...(continueClassId ? { continueClassId } : {}),
        },
      });
    } catch (error) {
      current.unsubscribe();
      active = null;
      const known = isServerError(error) ? error : null;
      // A recording the decoder cannot read does not get better: nothing to resume.
      const resumable =
        known?.code !== 'AUDIO_INPUT_INVALID' &&
        known?.code !== 'RECORDING_UNSUPPORTED' &&
        known?.code !== 'IMPORT_BUSY';
      await update(record, {
        state: 'failed',
        resumable,
        eta_ms: null,
        error: {
          code: known?.code ?? 'INTERNAL_ERROR',
          zh: known ? errorMessage(known, 'zh') : '导入没能开始，详情见日志。',
          en: known ? errorMessage(known, 'en') : 'The import could not start; see the log.',
          technical: known?.details.technical ?? (known ? null : maskSecretsInText(String(error))),
        },
      });
      if (!resumable) await removeRecording(record);
      settle();
      throw error;
    }
    const classId = options.library.liveClassId();
    await update(record, {
      class_id: classId,
      ...progressOf(current, options.monitor.recording()),
    });
    current.timer = setInterval(() => {
      if (active !== current || current.stopping) return;
      const recording = options.monitor.recording();
      record.status = {
        ...record.status,
        ...progressOf(current, recording),
        updated_at: now().toISOString(),
      };
      // Where a crash would resume: after the last line recognised.
      record.resume_at_ms = Math.round(recording?.lastLineEndMs ?? startPositionMs);
      publish(record);
      void save(record).catch(() => undefined);
    }, options.progressIntervalMs ?? 500);
    current.timer.unref();
  };

  const busy = () => {
    if (active) {
      throw new ServerError(
        'IMPORT_BUSY',
        localized(
          '已经在导入一份录音了：等它完成或取消它。',
          'A recording is being imported already: wait until it is done, or cancel it.',
        ),
      );
    }
    if (options.monitor.status().is_monitoring) {
      throw new ServerError(
        'IMPORT_BUSY',
        localized(
          '正在上课：下课后再导入录音。',
          'A class is running: import the recording after the class has ended.',
        ),
      );
    }
  };

  /** The imports before `keep` can no longer go on: their folders go. */
  const removeOthers = async (keep: string) => {
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      if (name !== keep && IMPORT_ID.test(name)) {
        await rm(folderOf(name), { recursive: true, force: true }).catch(() => undefined);
      }
    }
  };

  return {
    current: () => (latest ? { ...latest.status } : null),
    interruptedClassId: () => interruptedClass,
    checkFree: busy,
    async prepareUpload() {
      const id = newImportId(now());
      await mkdir(folderOf(id), { recursive: true });
      return { id, folder: folderOf(id) };
    },
    begin: (request) =>
      serial(async () => {
        busy();
        const id = request.id ?? newImportId(now());
        const at = now().toISOString();
        const record: ImportRecord = {
          status: {
            id,
            file_name: request.fileName,
            state: 'running',
            class_id: null,
            course_name: request.courseName?.trim() || baseName(request.fileName),
            fraction: 0,
            position_ms: 0,
            duration_ms: null,
            eta_ms: null,
            lines: 0,
            notes: 'pending',
            warning: null,
            error: null,
            resumable: false,
            started_at: at,
            updated_at: at,
          },
          recording_path: request.path,
          owned: request.owned,
          cite_filename: request.citeFilename?.trim() || null,
          resume_at_ms: 0,
        };
        await mkdir(folderOf(id), { recursive: true });
        await removeOthers(id);
        interruptedClass = null;
        await update(record, {});
        options.logger.info(
          { importId: id, file: request.fileName, course: record.status.course_name },
          'import: started',
        );
        await run(record, null);
        return { ...record.status };
      }),
    cancel: () =>
      serial(async () => {
        const current = active;
        if (!current) {
          throw new ServerError(
            'IMPORT_NOT_FOUND',
            localized('现在没有在导入录音。', 'No recording is being imported.'),
          );
        }
        await finish(current, 'cancelled');
        return { ...current.record.status };
      }),
    resume: (id) =>
      serial(async () => {
        const record = latest;
        if (!record || record.status.id !== id) {
          throw new ServerError(
            'IMPORT_NOT_FOUND',
            localized(`没有编号为 ${id} 的导入可以继续。`, `No import ${id} to go on with.`),
            { field: 'id' },
          );
        }
        busy();
        const notResumable = (zh: string, en: string) =>
          new ServerError('IMPORT_NOT_RESUMABLE', localized(zh, en), { field: 'id' });
        if (record.status.state === 'done') {
          throw notResumable(
            '这份录音已经导入完成了。',
            'This recording has been imported already.',
          );
        }
        if (!record.status.resumable) {
          throw notResumable(
            '这次导入不能继续：请重新导入录音。',
            'This import cannot go on: import the recording again.',
          );
        }
        const exists = await stat(record.recording_path).then(
          (info) => info.isFile(),
          () => false,
        );
        const classId = record.status.class_id;
        const replaced = classId !== null && options.library.liveClassId() !== classId;
        if (!exists || replaced) {
          await update(record, { resumable: false });
          await removeRecording(record);
          throw exists
            ? notResumable(
                '之后又上了别的课，这次导入不能接着识别了：请重新导入录音。',
                'Another class has been recorded since, so this import cannot go on: import the recording again.',
              )
            : notResumable(
                `录音文件 ${record.recording_path} 不在了：请重新导入。`,
                `The recording ${record.recording_path} is gone: import it again.`,
              );
        }
        interruptedClass = null;
        await update(record, { state: 'running', error: null, resumable: false, eta_ms: null });
        options.logger.info(
          { importId: id, classId, fromMs: record.resume_at_ms },
          'import: going on',
        );
        await run(record, classId);
        return { ...record.status };
      }),
    settled() {
      if (!active) return Promise.resolve(latest ? { ...latest.status } : null);
      return new Promise((resolve) => settledWaiters.push(resolve));
    },
    close() {
      if (active) clearInterval(active.timer);
    },
  };
}

/** `1:02:03` / `2:03`: a position in the recording. */
function clock(ms: number): string {
  const total = Math.floor(ms / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0
    ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}`
    : `${minutes}:${seconds}`;
}
