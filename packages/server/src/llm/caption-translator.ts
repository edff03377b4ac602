// Translated captions (TRANSLATE_CAPTIONS): each definite line of the running class is translated
// into the student's language by the configured LLM, beside the transcript and never in its way.
// Lines are gathered into small batches (up to four, or what arrived within a second), one
// request at a time, so a slow LLM makes the batches bigger instead of flooding it. The answer
// streams as numbered lines: each line's translation goes out as `line.translated` while it comes
// (at most five a second a line) and once more when it is done, and the finished one is kept
// with the line (its extras, lines.jsonl) — also for a class that ended meanwhile.
import { isServerError, type ServerError } from '../errors.ts';
import type { EventHub, LiveEvent } from '../events/event-hub.ts';
import { type Localized, localized } from '../language.ts';
import { maskSecretsInText } from '../secret-rules.ts';
import type { ResolvedSettings } from '../settings/settings-schema.ts';
import type { CaptionLanguage } from '../settings/translation-cost.ts';
import { parseNumberedAnswer } from './caption-answer.ts';
import { needsTranslation } from './caption-language.ts';
import type { LlmService } from './llm-client.ts';
import type { PromptLoader } from './prompts.ts';

/** What the translator needs of the app. */
export interface CaptionTranslatorOptions {
  hub: EventHub;
  llm: LlmService;
  settings: () => ResolvedSettings;
  prompt: PromptLoader;
  /** The id of the class the live transcript holds (running or just ended); null when none. */
  liveClassId: () => string | null;
  /** Whether a class is running now. */
  running: () => boolean;
  /** The kept translation of a line of the running class (null when none). */
  translationOf: (lineId: number) => string | null;
  /** Keeps a finished translation with the line of class `classId` (running or just ended). */
  keepTranslation: (classId: string, lineId: number, translation: string) => void;
  /** The words to keep as they are in the translations of the running class. */
  glossary: () => Promise<string[]>;
  logger: {
    warn(details: object, message: string): void;
    info(details: object, message: string): void;
  };
  /** How long the first line of a batch waits for others (default 1000 ms). */
  batchWindowMs?: number;
  /** Wait before trying again after a failed request: first, then doubled up to 60 s (default 2 s). */
  retryDelayMs?: number;
}

/** The translator; it listens to the event hub until closed. */
export interface CaptionTranslator {
  /** Stops listening and cancels the request in flight (the backend is stopping). */
  close(): void;
}

/** A batch starts as soon as it has this many lines. */
const BATCH_LINES = 4;
/** A backlog (a slow LLM, a recording) is sent in batches of up to this many lines. */
const BACKLOG_BATCH_LINES = 16;
/** At most this many `line.translated` events a second for one line while it streams. */
const PARTIALS_PER_SECOND = 5;
/** A line the answer left out is sent again this many times at most. */
const MAX_ATTEMPTS = 3;
const MAX_RETRY_DELAY_MS = 60_000;

interface Pending {
  classId: string;
  id: number;
  text: string;
  attempts: number;
  /** When it was queued (performance.now()). */
  since: number;
}

const LANGUAGE_NAMES: Record<CaptionLanguage, string> = {
  zh: '简体中文（Simplified Chinese）',
  en: '英语（English）',
};

/**
 * Starts the translator of an app: it follows `line.appended` / `line.updated` on the hub.
 *
 * @example
 * const translator = createCaptionTranslator({ hub, llm, settings: store.current, prompt, … });
 */
export function createCaptionTranslator(options: CaptionTranslatorOptions): CaptionTranslator {
  const windowMs = options.batchWindowMs ?? 1000;
  const firstRetryMs = options.retryDelayMs ?? 2000;
  /** Lines waiting, oldest first; one entry per line (a newer text replaces the queued one). */
  let queue: Pending[] = [];
  /** The lines of the request in flight, by `${classId}:${id}`. */
  const inFlight = new Map<string, Pending>();
  /** Lines changed while in flight: sent again with this text once the request is over. */
  const changedInFlight = new Map<string, Pending>();
  let busy = false;
  let timer: NodeJS.Timeout | undefined;
  let retryAt = 0;
  let retryDelay = firstRetryMs;
  let closed = false;
  const controller = new AbortController();
  /** Codes reported per class: each failure is told once a class. */
  const reported = new Map<string, Set<string>>();
  /** The text each line of the live class was last queued with (an unchanged update is no news). */
  let queuedText: { classId: string; texts: Map<number, string> } = {
    classId: '',
    texts: new Map(),
  };
  /** The class whose start was last looked at (the no-LLM check runs once a class). */
  let startedAt: string | null = null;

  const target = (): CaptionLanguage | null => {
    const value = options.settings().translateCaptions;
    return value === 'zh' || value === 'en' ? value : null;
  };
  const keyOf = (item: { classId: string; id: number }) => `${item.classId}:${item.id}`;

  const report = (classId: string, error: ServerError | Error, message: Localized) => {
    const code = isServerError(error) ? error.code : 'LLM_ERROR';
    const seen = reported.get(classId) ?? new Set<string>();
    reported.set(classId, seen);
    if (seen.has(code)) return;
    seen.add(code);
    options.logger.warn(
      { source: 'translation', code, err: maskSecretsInText(error.message) },
      `translated captions: ${message.en}`,
    );
    options.hub.publish('error.raised', {
      source: 'translation',
      code,
      message: message.en,
      messages: message,
    });
  };

  const notConfigured = (classId: string) => {
    try {
      options.llm.assertConfigured();
    } catch (error) {
      if (!isServerError(error)) throw error;
      const why = error.localized ?? localized(error.message, error.message);
      report(
        classId,
        error,
        localized(
          `字幕翻译已打开（TRANSLATE_CAPTIONS），但没有可用的大模型，字幕不会被翻译，听写照常进行。${why.zh}`,
          `Translated captions are on (TRANSLATE_CAPTIONS) but no LLM is configured, so lines are not translated; the transcript goes on. ${why.en}`,
        ),
      );
      return true;
    }
    return false;
  };

  const enqueue = (line: { id: number; text: string }, updated: boolean) => {
    const language = target();
    const classId = options.liveClassId();
    if (!language || !classId || !options.running()) return;
    if (queuedText.classId !== classId) queuedText = { classId, texts: new Map() };
    // An update that left the text as it was (its page or audio position changed) is no news.
    if (updated && queuedText.texts.get(line.id) === line.text) return;
    queuedText.texts.set(line.id, line.text);
    const key = keyOf({ classId, id: line.id });
    queue = queue.filter((item) => keyOf(item) !== key);
    changedInFlight.delete(key);
    if (!needsTranslation(line.text, language)) return;
    // Already translated (kept in the class folder): a backend started again does not redo it.
    if (!updated && options.translationOf(line.id) !== null) return;
    if (notConfigured(classId)) return;
    const item: Pending = {
      classId,
      id: line.id,
      text: line.text,
      attempts: 0,
      since: performance.now(),
    };
    if (inFlight.has(key)) changedInFlight.set(key, item);
    else queue.push(item);
    schedule();
  };

  /** Sends the next batch when it is due: full, its first line waited long enough, or a backlog. */
  const schedule = () => {
    if (closed || busy || queue.length === 0) return;
    clearTimeout(timer);
    timer = undefined;
    const now = performance.now();
    const first = queue[0]!;
    const due = Math.max(retryAt, queue.length >= BATCH_LINES ? now : first.since + windowMs);
    if (due <= now) {
      void send();
      return;
    }
    timer = setTimeout(() => {
      timer = undefined;
      schedule();
    }, due - now);
    timer.unref();
  };

  const publish = (item: Pending, translation: string, final: boolean) => {
    // Ids start again at 1 in the next class: only the live class's lines are announced.
    if (options.liveClassId() !== item.classId) return;
    options.hub.publish('line.translated', { id: item.id, translation, final });
  };

  const send = async () => {
    const language = target();
    if (!language) {
      queue = [];
      return;
    }
    const classId = queue[0]!.classId;
    const batch = queue
      .filter((item) => item.classId === classId)
      .slice(0, Math.max(BATCH_LINES, BACKLOG_BATCH_LINES));
    const sent = new Set(batch);
    queue = queue.filter((item) => !sent.has(item));
    busy = true;
    for (const item of batch) inFlight.set(keyOf(item), item);
    // What the stream said so far of each line, and what was announced last.
    const shown = new Map<number, string>();
    let answer = '';
    let partialTimer: NodeJS.Timeout | undefined;
    const announcePartials = () => {
      partialTimer = undefined;
      parseNumberedAnswer(answer, batch.length, false).forEach((line, index) => {
        const item = batch[index]!;
        if (!line || line.text === '' || shown.get(item.id) === line.text) return;
        shown.set(item.id, line.text);
        publish(item, line.text, false);
      });
    };
    try {
      const glossary = await options.glossary();
      const system = await options.prompt('translate');
      const numbered = batch.map((item, index) => `${index + 1}. ${item.text}`).join('\n');
      await options.llm.stream(
        {
          purpose: 'caption translation',
          temperature: 0.2,
          signal: controller.signal,
          messages: [
            {
              role: 'system',
              content: [
                system.trim(),
                `【目标语言】${LANGUAGE_NAMES[language]}`,
                `【保持原样的词】${glossary.length > 0 ? glossary.join('、') : '（无）'}`,
              ].join('\n\n'),
            },
            { role: 'user', content: `【待翻译，共 ${batch.length} 行】\n${numbered}` },
          ],
        },
        (delta) => {
          answer += delta;
          partialTimer ??= setTimeout(announcePartials, 1000 / PARTIALS_PER_SECOND);
        },
      );
      clearTimeout(partialTimer);
      const lines = parseNumberedAnswer(answer, batch.length, true);
      const missing: Pending[] = [];
      lines.forEach((line, index) => {
        const item = batch[index]!;
        if (!line || line.text === '') {
          missing.push(item);
          return;
        }
        options.keepTranslation(item.classId, item.id, line.text);
        publish(item, line.text, true);
      });
      retryDelay = firstRetryMs;
      retryAt = 0;
      const again = missing.filter((item) => ++item.attempts < MAX_ATTEMPTS);
      if (missing.length > 0) {
        options.logger.info(
          { lines: missing.map((item) => item.id), again: again.length },
          'translated captions: the answer left lines out',
        );
      }
      queue = [...again, ...queue];
    } catch (error) {
      clearTimeout(partialTimer);
      if (closed || (isServerError(error) && error.code === 'SERVER_STOPPING')) return;
      if (isServerError(error) && error.code === 'LLM_NOT_CONFIGURED') {
        notConfigured(classId);
        return;
      }
      // Down, rate-limited, a bad answer: said once a class, the lines wait and go again later.
      const known =
        isServerError(error) || error instanceof Error ? error : new Error(String(error));
      const why = isServerError(known) ? known.localized : undefined;
      report(
        classId,
        known,
        localized(
          `字幕翻译暂时失败，稍后自动重试，听写照常进行。${why?.zh ?? known.message}`,
          `Translating captions failed for now; it is tried again shortly and the transcript goes on. ${why?.en ?? known.message}`,
        ),
      );
      // A class that ended has its lines tried a few times more, not for ever.
      const again = options.running()
        ? batch
        : batch.filter((item) => ++item.attempts < MAX_ATTEMPTS);
      queue = [...again, ...queue];
      retryAt = performance.now() + retryDelay;
      retryDelay = Math.min(MAX_RETRY_DELAY_MS, retryDelay * 2);
    } finally {
      busy = false;
      for (const item of batch) inFlight.delete(keyOf(item));
      // Lines merged while their translation was under way go again with their new text.
      const changed = [...changedInFlight.values()];
      changedInFlight.clear();
      const changedKeys = new Set(changed.map(keyOf));
      queue = [...queue.filter((item) => !changedKeys.has(keyOf(item))), ...changed];
      // Lines of a class whose lines left the live transcript (another class began) are dropped.
      const live = options.liveClassId();
      queue = queue.filter((item) => item.classId === live);
      schedule();
    }
  };

  const unsubscribe = options.hub.subscribe((event: LiveEvent) => {
    if (closed) return;
    if (event.name === 'line.appended') enqueue(event.data, false);
    else if (event.name === 'line.updated') enqueue(event.data, true);
    else if (event.name === 'monitor.changed') {
      const status = event.data;
      if (status.state === 'idle' || status.started_at === startedAt) return;
      startedAt = status.started_at;
      const classId = options.liveClassId();
      // A class started with translation on and no LLM: said once, at its start.
      if (classId && target()) notConfigured(classId);
    }
  });

  return {
    close() {
      closed = true;
      unsubscribe();
      clearTimeout(timer);
      controller.abort();
    },
  };
}
