import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorMessage, isServerError, ServerError } from '../errors.ts';
import type { KeywordAlertPayload } from '../events/live-events.ts';
import { MonitorStatusSchema, TranscriptLineSchema } from '../events/live-events.ts';
import { type Language, type Localized, requestLanguage } from '../language.ts';
import { NO_EXTRAS } from '../library/line-extras.ts';
import { errors, StatusMessageSchema } from './schemas.ts';

/**
 * The alert-socket notice of a start_monitor that failed: the original client shows keyword
 * alerts and nothing of a failed answer, so the reason goes there as one.
 */
function startFailureNotice(error: unknown, at: Date): (language: Language) => KeywordAlertPayload {
  const known = isServerError(error)
    ? error
    : new ServerError('INTERNAL_ERROR', 'Internal error; the server log has the details.');
  const pad = (value: number) => String(value).padStart(2, '0');
  const timestamp = `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
  return (language) => ({
    type: 'keyword_alert',
    level: 'warning',
    keywords: [language === 'zh' ? '启动监控失败' : 'Start failed'],
    text: errorMessage(known, language),
    timestamp,
    for_you: false,
  });
}

const StartBodySchema = z
  .object({
    course_name: z.string().max(200).nullish().describe('Course name, may be empty.'),
    cite_filename: z
      .string()
      .max(300)
      .nullish()
      .describe('A file from /api/cite_files to use as class material; empty: no material.'),
  })
  .meta({ examples: [{ course_name: '数据结构', cite_filename: 'slides_20260307_224812.txt' }] });

export const StopResultSchema = z.object({
  status: z.string(),
  message: z.string(),
  course_name: z.string().optional(),
  summary: z
    .object({ filename: z.string(), course_name: z.string() })
    .optional()
    .describe('The notes written to data/summaries.'),
  summary_error: z.string().optional().describe('Why no notes were written (nothing is faked).'),
  summary_error_code: z.string().optional(),
});

export const KeywordsSchema = z.object({
  status: z.literal('success'),
  builtin: z.array(z.string()).describe('Alert-level keywords of data/keywords.txt.'),
  warning: z.array(z.string()).describe('Attention-level keywords of data/keywords.txt.'),
  custom: z.array(z.string()).describe('Added through /api/update_keywords (until restart).'),
  student: z
    .array(z.string())
    .describe(
      'The student’s own words, from STUDENT_NAME and STUDENT_NUMBER_DIGITS: the name and the ways a teacher calls the number. Their alerts are for_you.',
    ),
  all: z.array(z.string()).describe('Every keyword: builtin, warning, custom and student.'),
  file: z.string(),
  warning_file: z
    .string()
    .describe('Where the attention-level keywords live: the [注意] section of the same file.'),
  homophones: z.string(),
  problems: z.array(z.object({ line: z.number(), content: z.string(), message: z.string() })),
});

export const TranscriptSchema = z.object({
  status: z.literal('success'),
  path: z.string(),
  course_name: z.string().nullable(),
  material_name: z.string().nullable(),
  started_at: z.string().nullable(),
  history_summary: z.string().describe('The folded history ("" when none).'),
  total: z.number().describe('Entries in the file (after the history block).'),
  entries: z.array(TranscriptLineSchema),
  partial: z.string().describe('Text being recognised right now (not in the file).'),
  last_event_id: z.number().describe('Id of the newest live event: resume /api/events from here.'),
});

export const StartMonitorBodySchema = StartBodySchema.nullish();

/** POST /api/start_monitor, /api/pause_monitor and /api/resume_monitor. */
export const MonitorActionSchema = StatusMessageSchema.extend({
  effective_asr_mode: z.string().optional(),
});

export const StopQuerySchema = z.object({
  with_summary: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .describe('Write notes after stopping (default true).'),
});

/** GET /api/monitor_status. */
export const MonitorStatusAnswerSchema = MonitorStatusSchema.extend({
  status: z.literal('success'),
  partial: z.string(),
});

export const UpdateKeywordsBodySchema = z
  .object({ keywords: z.array(z.string().max(100)).max(200) })
  .meta({ examples: [{ keywords: ['张三', 'Zhang San'] }] });

/** POST /api/update_keywords. */
export const UpdateKeywordsSchema = z.object({
  status: z.literal('success'),
  all_keywords: z.array(z.string()),
});

/** POST /api/reload_keywords. */
export const ReloadKeywordsSchema = z.object({
  status: z.literal('success'),
  keywords: z.array(z.string()),
  danger: z.array(z.string()),
  warning: z.array(z.string()),
  file: z.string(),
  problems: z.array(z.object({ line: z.number(), content: z.string(), message: z.string() })),
});

export const TranscriptQuerySchema = z.object({
  since: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(1000),
});

/** A monitor's answer with its message in `language`. */
function inLanguage<T extends { message: Localized }>(
  answer: T,
  language: Language,
): Omit<T, 'message'> & { message: string } {
  return { ...answer, message: answer.message[language] };
}

/** Monitoring, keywords and the transcript. */
export const monitorRoutes: FastifyPluginAsyncZod = async (app) => {
  const services = app.classAssistant;
  const { monitor, keywords, store, record } = services;

  app.post(
    '/api/start_monitor',
    {
      schema: {
        tags: ['monitor'],
        summary: 'Start monitoring a class',
        description:
          'Activates the chosen material (copies it to data/current_class_material.txt, or empties that file), reloads data/keywords.txt, starts a new transcript and the recognizer of ASR_MODE. `already_running` when a class is running. A mode that cannot run answers 503 RECOGNIZER_UNAVAILABLE naming the settings to change. Any failure is also sent to the alert WebSocket as a `keyword_alert` (level `warning`, keywords `["启动监控失败"]`, the reason as text): the original client shows those and not the answer.',
        body: StartMonitorBodySchema,
        response: {
          200: MonitorActionSchema,
          ...errors(400, 404, 503),
        },
      },
    },
    async (request) => {
      try {
        const answer = await monitor.start({
          courseName: (request.body?.course_name ?? '').trim(),
          citeFilename: request.body?.cite_filename?.trim() || null,
        });
        if (answer.status === 'started') services.alertSockets.clearNotice();
        return inLanguage(answer, requestLanguage(request));
      } catch (error) {
        services.alertSockets.notice(startFailureNotice(error, services.now()));
        throw error;
      }
    },
  );

  app.post(
    '/api/stop_monitor',
    {
      schema: {
        tags: ['monitor'],
        summary: 'Stop monitoring (and write the notes)',
        description:
          'Stops the recognizer and waits until every line is in the transcript file. Unless `with_summary=false`, then writes post-class notes with the LLM to data/summaries/{course}_{YYYYMMDD}_{HHMMSS}.md; when that fails (no LLM key, LLM down, empty transcript) the answer carries `summary_error` and no file is written.',
        querystring: StopQuerySchema,
        response: { 200: StopResultSchema, ...errors() },
      },
    },
    async (request) => {
      const result = inLanguage(await monitor.stop(), requestLanguage(request));
      if (result.status !== 'stopped') return result;
      const withSummary = !['false', '0'].includes(request.query.with_summary ?? 'true');
      if (!withSummary) return result;
      try {
        const notes = await record.writeNotes(result.course_name ?? '');
        services.hub.publish('notes.written', {
          filename: notes.filename,
          course_name: notes.course_name,
        });
        return { ...result, summary: { filename: notes.filename, course_name: notes.course_name } };
      } catch (error) {
        const code = isServerError(error) ? error.code : 'INTERNAL_ERROR';
        const message = isServerError(error)
          ? errorMessage(error, requestLanguage(request))
          : 'Writing the notes failed; see the server log.';
        if (!isServerError(error)) request.log.error({ err: error }, 'notes after stop failed');
        services.hub.publish('error.raised', { source: 'notes', code, message });
        return { ...result, summary_error: message, summary_error_code: code };
      }
    },
  );

  for (const [path, action, summary] of [
    [
      '/api/pause_monitor',
      () => monitor.pause(),
      'Pause monitoring (the recognizer stops listening)',
    ],
    ['/api/resume_monitor', () => monitor.resume(), 'Resume monitoring'],
  ] as const) {
    app.post(
      path,
      {
        schema: {
          tags: ['monitor'],
          summary,
          description:
            'Answers `{status, message}`: paused / resumed, or not_running, already_paused, not_paused (HTTP 200, as the original).',
          response: {
            200: MonitorActionSchema,
            ...errors(),
          },
        },
      },
      async (request) => inLanguage(await action(), requestLanguage(request)),
    );
  }

  app.get(
    '/api/monitor_status',
    {
      schema: {
        tags: ['monitor'],
        summary: 'Is a class being monitored',
        response: {
          200: MonitorStatusAnswerSchema,
          ...errors(),
        },
      },
    },
    async () => ({ status: 'success' as const, ...monitor.status(), partial: monitor.partial() }),
  );

  app.get(
    '/api/keywords',
    {
      schema: {
        tags: ['monitor'],
        summary: 'Current alert keywords',
        response: { 200: KeywordsSchema, ...errors() },
      },
    },
    async () => ({ status: 'success' as const, ...keywords.view(), warning_file: keywords.path }),
  );

  app.post(
    '/api/update_keywords',
    {
      schema: {
        tags: ['monitor'],
        summary: 'Set the custom keywords (e.g. your name)',
        description:
          'Replaces the custom keyword list (alert level, kept in memory until restart, as the original). Applies to the running class at once.',
        body: UpdateKeywordsBodySchema,
        response: {
          200: UpdateKeywordsSchema,
          ...errors(400),
        },
      },
    },
    async (request) => {
      keywords.setCustom(request.body.keywords);
      monitor.refreshKeywords();
      return { status: 'success' as const, all_keywords: keywords.view().all };
    },
  );

  app.post(
    '/api/reload_keywords',
    {
      schema: {
        tags: ['monitor'],
        summary: 'Re-read data/keywords.txt',
        description:
          'After editing the file by hand. Applies to the running class at once. `danger` and `warning` are the original’s lists by level (danger: the [提醒] keywords and the custom ones; warning: the [注意] ones).',
        response: {
          200: ReloadKeywordsSchema,
          ...errors(),
        },
      },
    },
    async () => {
      await keywords.reload(services.settings.current().keywordHomophones);
      monitor.refreshKeywords();
      const view = keywords.view();
      return {
        status: 'success' as const,
        keywords: view.all,
        danger: [...new Set([...view.builtin, ...view.custom])],
        warning: view.warning,
        file: view.file,
        problems: view.problems,
      };
    },
  );

  app.get(
    '/api/transcript',
    {
      schema: {
        tags: ['monitor'],
        summary: 'Read the transcript',
        description:
          'The current class transcript: header, history summary, entries (each with its stable `id` and its index in the file) and the live partial text. `since=N` returns entries with index ≥ N; `limit` the newest ones. Combine with /api/events for live updates: events carry the same ids.',
        querystring: TranscriptQuerySchema,
        response: { 200: TranscriptSchema, ...errors(400) },
      },
    },
    async (request) => {
      const lastEventId = services.hub.lastId;
      const [document, extras] = await Promise.all([
        store.read(),
        services.library.liveLineExtras(),
      ]);
      const indexed = document.entries.map((entry, index) => ({
        id: entry.id,
        index,
        timestamp: entry.time ?? '',
        text: entry.text,
        ...(extras.get(entry.id) ?? NO_EXTRAS),
      }));
      const since = request.query.since ?? 0;
      const selected = indexed.filter((entry) => entry.index >= since).slice(-request.query.limit);
      return {
        status: 'success' as const,
        path: store.path,
        course_name: document.header.courseName,
        material_name: document.header.materialName,
        started_at: document.header.startedAt,
        history_summary: document.summary,
        total: document.entries.length,
        entries: selected,
        partial: monitor.partial(),
        last_event_id: lastEventId,
      };
    },
  );
};
