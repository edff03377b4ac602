// The live-transcript pipeline (see the package README, "TranscriptPipeline"): the two
// intakes, the shared append routine (meaningful? → near-duplicate? → append), local-mode
// merging, keyword alerts on the newly written line only, and history folding in the
// background.
import { EventEmitter } from 'node:events';
import { type EntryTime, entryTimeText } from './entry-time.ts';
import { checkOptions, TranscriptCoreError } from './errors.ts';
import type { KeywordLevel } from './keyword-file.ts';
import type { KeywordMatch, KeywordMatcher } from './keyword-matcher.ts';
import type { NearDuplicateOptions } from './near-duplicate.ts';
import {
  nearDuplicateOfKey,
  recentEntryKey,
  rememberRecentEntry,
  resolveNearDuplicateOptions,
} from './near-duplicate.ts';
import type { MeaningfulOptions, ResolvedMeaningfulOptions } from './text.ts';
import {
  codePointLength,
  countContentChars,
  endsSentence,
  foldedComparisonKey,
  foldText,
  isFoldedMeaningful,
  normalizeText,
  resolveMeaningfulOptions,
} from './text.ts';
import type { TranscriptEntry } from './transcript-format.ts';
import {
  isTranscriptStore,
  type LineWriter,
  readFoldCandidates,
  type TranscriptStore,
  writeLine,
} from './transcript-store.ts';

/**
 * Compresses transcript history: given the previous summary ('' at first) and the entries to
 * fold, resolves to the new summary covering both. Called in the background; appends never
 * wait for it. Reject (or resolve '') to have the fold retried on a later append.
 */
export type Summarize = (
  previousSummary: string,
  entries: readonly TranscriptEntry[],
  context: { signal: AbortSignal },
) => Promise<string>;

/** Options of local-mode merging (see {@link TranscriptPipeline.pushSegment}). */
export interface LocalMergeOptions {
  /** Largest gap between two segments that may be joined, in ms. Default 3000. */
  maxGapMs?: number;
  /** An entry with fewer letters/digits than this is "very short". Default 5. */
  shortEntryChars?: number;
  /** Never join into an entry longer than this many code points. Default 120. */
  maxJoinedChars?: number;
}

/** Options of history folding. */
export interface FoldOptions {
  /** Fold when this many real entries are in the file. Default 50. */
  threshold?: number;
  /** Entries left unfolded after a fold, for the rescue and catch-up windows. Default 20. */
  keepRecent?: number;
  /**
   * Most entries one `summarize` call gets (the oldest first); a longer backlog is folded in
   * several calls, one after another. Bounds the LLM prompt when a long unfolded file is
   * resumed, or when folds waited for a summarizer. Default 200.
   */
  maxEntries?: number;
}

/** Options of {@link TranscriptPipeline}. */
export interface TranscriptPipelineOptions {
  /** The opened transcript file. The pipeline does not close it. */
  store: TranscriptStore;
  /** The keywords to alert on; none when absent. Replace with {@link TranscriptPipeline.setKeywords}. */
  keywords?: KeywordMatcher | null;
  /** History compression; without it the transcript is never folded. */
  summarize?: Summarize;
  meaningful?: MeaningfulOptions;
  nearDuplicate?: NearDuplicateOptions;
  merge?: LocalMergeOptions;
  fold?: FoldOptions;
}

/** A local-mode segment: its text and where it lies on the recogniser's audio clock. */
export interface LocalSegment {
  text: string;
  /** Start on the recogniser's audio clock, ms. */
  startMs: number;
  /** End on the recogniser's audio clock, ms. */
  endMs: number;
  /**
   * The time of the line this segment starts (a merge into the previous line keeps that line's
   * time): for a recording, `{ positionMs }` of the speech's start. Default: the store's clock.
   */
  time?: EntryTime;
}

/** Options of {@link TranscriptPipeline.pushLine}. */
export interface PushLineOptions {
  /** The time of the line: for a recording, `{ positionMs }`. Default: the store's clock. */
  time?: EntryTime;
}

/** Which intake a line came through. */
export type IntakeSource = 'line' | 'segment';

/** Why a text was not written. */
export type DropReason = 'not-meaningful' | 'near-duplicate';

/** Payload of `alert-raised`: the old product's WebSocket alert plus the match details. */
export interface KeywordAlert {
  /** The highest level among the matches. */
  level: KeywordLevel;
  /** The matched keywords as listed, alert level first. */
  keywords: string[];
  /** Id of the entry the keywords were heard in (see the store's entry ids). */
  lineId: number;
  /** The whole entry text. */
  text: string;
  /** The entry's clock time, `HH:MM:SS`. */
  timestamp: string;
  matches: KeywordMatch[];
  /**
   * True when a match is one of the listener's own keywords (`personal`: their name, a
   * homophone of it, their student number): they are the one called.
   */
  forYou: boolean;
}

/** Payload of `line-appended`. */
export interface LineAppendedEvent {
  entry: TranscriptEntry;
  source: IntakeSource;
}

/** Payload of `line-updated`: the last entry's text changed. */
export interface LineUpdatedEvent {
  entry: TranscriptEntry;
  previousText: string;
  /** `extended`: the segment extended the entry; `joined`: the two were concatenated. */
  merge: 'extended' | 'joined';
  source: IntakeSource;
}

/** Payload of `line-dropped`. */
export interface LineDroppedEvent {
  text: string;
  reason: DropReason;
  /** The recent entry it repeats, for `near-duplicate`. */
  duplicateOf?: string;
  source: IntakeSource;
}

/**
 * Payload of `history-folded`. Entry ids are consecutive, so the folded entries are the ids
 * `firstFoldedId` … `lastFoldedId`, and the entries left in the file keep theirs.
 */
export interface HistoryFoldedEvent {
  summary: string;
  /** Entries folded by this fold. */
  foldedCount: number;
  /** Entries left in the file after it. */
  keptCount: number;
  /** Id of the oldest entry this fold folded. */
  firstFoldedId: number;
  /** Id of the newest entry this fold folded. */
  lastFoldedId: number;
  /**
   * Id of the oldest entry still in the file (`lastFoldedId + 1`; when none is left, the id
   * the next entry gets): every entry with a smaller id is in the summary.
   */
  firstKeptId: number;
}

/**
 * Payload of `fold-failed`. Nothing was lost: the entries stay in the file, and the fold is
 * retried at the next fold point (`entries-changed`: on the next line; see
 * {@link TranscriptPipeline.retryFold}).
 */
export interface FoldFailedEvent {
  reason: 'summarize-failed' | 'summary-empty' | 'entries-changed' | 'write-failed';
  error?: unknown;
}

/** Event map of {@link TranscriptPipeline} (Node `EventEmitter`). */
export interface TranscriptPipelineEvents {
  'line-appended': [LineAppendedEvent];
  'line-updated': [LineUpdatedEvent];
  'line-dropped': [LineDroppedEvent];
  'alert-raised': [KeywordAlert];
  'history-folded': [HistoryFoldedEvent];
  'fold-failed': [FoldFailedEvent];
  end: [];
}

/** What one intake call did. */
export type IntakeResult =
  | { action: 'appended'; entry: TranscriptEntry; alert: KeywordAlert | null }
  | {
      action: 'updated';
      entry: TranscriptEntry;
      previousText: string;
      merge: 'extended' | 'joined';
      alert: KeywordAlert | null;
    }
  | { action: 'dropped'; text: string; reason: DropReason; duplicateOf?: string };

/**
 * The one object the backend feeds during a class. Intake calls may be made without awaiting
 * (from recogniser callbacks): they are applied one at a time in call order, and each resolves
 * once its line is durably written. Events are emitted synchronously, after the file and the
 * pipeline's state are updated (a listener that throws makes that intake call reject; the line
 * stays written).
 *
 * @example
 * const pipeline = new TranscriptPipeline({ store, keywords, summarize });
 * pipeline.on('alert-raised', (alert) => socket.send(JSON.stringify({ type: 'keyword_alert', ...alert })));
 * await pipeline.pushSegment({ text: '张三你来', startMs: 12_000, endMs: 12_900 });
 */
export class TranscriptPipeline extends EventEmitter<TranscriptPipelineEvents> {
  readonly #store: TranscriptStore;
  readonly #summarize: Summarize | null;
  readonly #meaningful: ResolvedMeaningfulOptions;
  readonly #nearDuplicate: ReturnType<typeof resolveNearDuplicateOptions>;
  readonly #merge: Required<LocalMergeOptions>;
  readonly #fold: Required<FoldOptions>;
  #keywords: KeywordMatcher | null;
  #tail: Promise<unknown> = Promise.resolve();
  #closed = false;
  // Local mode: the entry the last segment produced, and where that segment ended.
  #lastSegment: { entry: TranscriptEntry; endMs: number } | null = null;
  // Keyword occurrences already alerted for the last entry written by this pipeline.
  #alerted: { entry: TranscriptEntry; counts: Map<string, number> } | null = null;
  #folding: Promise<void> | null = null;
  #foldAbort: AbortController | null = null;
  // After a failed fold: the id the newest entry must reach before the next try (null: none).
  #foldRetryAt: number | null = null;

  constructor(options: TranscriptPipelineOptions) {
    super();
    const { store } = options ?? {};
    if (!isTranscriptStore(store)) {
      throw new TranscriptCoreError(
        'TRANSCRIPT_INVALID_ARGUMENT',
        'TranscriptPipeline: options.store must be an opened TranscriptStore',
      );
    }
    if (options.summarize !== undefined && typeof options.summarize !== 'function') {
      throw new TranscriptCoreError(
        'TRANSCRIPT_INVALID_ARGUMENT',
        'TranscriptPipeline: options.summarize must be a function (previousSummary, entries, { signal }) => Promise<string>',
      );
    }
    this.#store = store;
    this.#summarize = options.summarize ?? null;
    this.#keywords = checkMatcher(options.keywords ?? null);
    // Every option is checked here, so a malformed one fails now, not on some later line.
    this.#meaningful = resolveMeaningfulOptions(
      options.meaningful,
      'TranscriptPipeline: meaningful',
    );
    this.#nearDuplicate = resolveNearDuplicateOptions(
      checkOptions(options.nearDuplicate, 'TranscriptPipeline: nearDuplicate'),
    );
    const merge = checkOptions(options.merge, 'TranscriptPipeline: merge');
    this.#merge = {
      maxGapMs: checkNumber('merge.maxGapMs', merge.maxGapMs ?? 3000, 0),
      shortEntryChars: checkNumber('merge.shortEntryChars', merge.shortEntryChars ?? 5, 0),
      maxJoinedChars: checkNumber('merge.maxJoinedChars', merge.maxJoinedChars ?? 120, 1),
    };
    const fold = checkOptions(options.fold, 'TranscriptPipeline: fold');
    const threshold = checkInteger('fold.threshold', fold.threshold ?? 50, 1);
    const keepRecent = checkInteger('fold.keepRecent', fold.keepRecent ?? 20, 1);
    if (keepRecent >= threshold) {
      throw new TranscriptCoreError(
        'TRANSCRIPT_INVALID_ARGUMENT',
        `TranscriptPipeline: fold.keepRecent (${keepRecent}) must be smaller than fold.threshold (${threshold})`,
      );
    }
    const maxEntries = checkInteger('fold.maxEntries', fold.maxEntries ?? 200, 1);
    this.#fold = { threshold, keepRecent, maxEntries };
  }

  /**
   * Mock and cloud modes: one recognised line → meaningful? → near-duplicate? → append →
   * keyword check of that line.
   */
  pushLine(text: string, options: PushLineOptions = {}): Promise<IntakeResult> {
    return this.#intake('pushLine', async () => {
      if (typeof text !== 'string')
        throw invalid(`pushLine: text must be a string, got ${typeof text}`);
      const { time } = checkOptions(options, 'pushLine: options');
      const stamp = time === undefined ? undefined : entryTimeText(time, 'pushLine: options.time');
      const line = normalizeText(text);
      return this.#line((writer) => this.#appendFiltered(line, 'line', writer, undefined, stamp));
    });
  }

  /**
   * Local mode: one recognised segment. A segment that extends the previous entry (its text
   * starts with the entry's) and starts at most `maxGapMs` after it overwrites it; when the previous entry is very short or did not
   * end a sentence and this segment starts at most `maxGapMs` (3 s) after it ended, the two are
   * joined into one entry; otherwise the segment goes through the filters as a new entry.
   * Merged texts go through the filters too, and keywords already alerted in the earlier part
   * do not alert again. Only entries this pipeline wrote from segments are merged into.
   *
   * @throws TranscriptCoreError `TRANSCRIPT_INVALID_ARGUMENT` for a segment without text or
   *   finite `startMs` ≤ `endMs`.
   */
  pushSegment(segment: LocalSegment): Promise<IntakeResult> {
    return this.#intake('pushSegment', async () => {
      checkSegment(segment);
      const stamp =
        segment.time === undefined ? undefined : entryTimeText(segment.time, 'pushSegment: time');
      return this.#line((writer) => this.#mergeSegment(segment, writer, stamp));
    });
  }

  /** Replaces the keyword matcher (reload on demand); `null` turns alerts off. */
  setKeywords(matcher: KeywordMatcher | null): void {
    this.#keywords = checkMatcher(matcher);
  }

  /**
   * Tries a fold that failed again now (after the intakes already queued), instead of at the
   * next fold point: for when what made it fail is fixed — the summarizer's service was just
   * configured. Does nothing unless a fold is due and none is running.
   */
  retryFold(): void {
    if (this.#closed) return;
    void this.#schedule(async () => {
      this.#foldRetryAt = null;
      this.#maybeFold();
    });
  }

  /** Resolves when every queued intake is written and a running fold has finished. */
  async flush(): Promise<void> {
    for (;;) {
      const tail = this.#tail;
      const folding = this.#folding;
      await tail;
      await folding;
      if (tail === this.#tail && folding === this.#folding) return;
    }
  }

  /**
   * Stops the pipeline: waits for queued intakes, abandons a running fold (its `summarize`
   * sees an aborted `signal`; its result is ignored, nothing is lost), refuses further input
   * with `TRANSCRIPT_CLOSED`, then emits `end`. The store stays open.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#foldAbort?.abort(new TranscriptCoreError('TRANSCRIPT_CLOSED', 'the pipeline was closed'));
    await this.#tail;
    this.emit('end');
  }

  #intake<T>(name: string, operation: () => Promise<T>): Promise<T> {
    if (this.#closed) {
      return Promise.reject(
        new TranscriptCoreError('TRANSCRIPT_CLOSED', `${name}: the pipeline is closed`),
      );
    }
    return this.#schedule(operation);
  }

  #schedule<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(operation);
    this.#tail = result.then(
      () => {},
      () => {},
    );
    return result;
  }

  // One line as one store operation (the file checked once), then its events.
  async #line(step: (writer: LineWriter) => Promise<LineOutcome>): Promise<IntakeResult> {
    return this.#announce(await writeLine(this.#store, 'TranscriptPipeline', step));
  }

  // The shared append routine of every mode: meaningful? → near-duplicate? → append. `known`:
  // the text's foldText form, and whether the caller already compared it with the same recent
  // entries.
  async #appendFiltered(
    text: string,
    source: IntakeSource,
    writer: LineWriter,
    known: { folded: string; checked: boolean } = { folded: foldText(text), checked: false },
    time?: string,
  ): Promise<LineOutcome> {
    const { folded } = known;
    if (!isFoldedMeaningful(folded, this.#meaningful))
      return dropped(text, 'not-meaningful', source);
    if (!known.checked) {
      const recent = writer.recent(this.#nearDuplicate.window).map((entry) => entry.text);
      const duplicate = nearDuplicateOfKey(
        foldedComparisonKey(folded),
        recent,
        this.#nearDuplicate,
      );
      if (duplicate) return dropped(text, 'near-duplicate', source, duplicate.entry);
    }
    const change = writer.append(text, time);
    // While the line's fdatasync runs: its keywords, and its comparison form for the next line.
    const entry = { ...change.entry };
    const counts = new Map<string, number>();
    const alert = this.#alertFor(entry, counts);
    rememberRecentEntry(entry.text, folded);
    await change.done;
    this.#lastSegment = null;
    this.#alerted = { entry, counts };
    return { action: 'appended', entry, source, alert };
  }

  async #mergeSegment(
    segment: LocalSegment,
    writer: LineWriter,
    time: string | undefined,
  ): Promise<LineOutcome> {
    const text = normalizeText(segment.text);
    const previous = this.#lastSegment;
    const recent = writer.recent(this.#nearDuplicate.window + 1);
    const last = recent[recent.length - 1];
    const folded = foldText(text);
    if (!previous || !last || !sameEntry(last, previous.entry)) {
      return this.#appendSegment(text, segment, writer, { folded, checked: false }, time);
    }
    const texts = recent.map((entry) => entry.text);
    const before = texts.slice(0, -1);
    const lastKey = recentEntryKey(last.text);
    const key = foldedComparisonKey(folded);
    const gap = segment.startMs - previous.endMs;
    // 1. The recogniser re-emitted the sentence, longer: overwrite. Only close in time (a
    // re-recognition overlaps or follows the audio): the same opening words said a minute
    // later are a new sentence, and a name in it must alert again.
    if (key.length > lastKey.length && key.startsWith(lastKey) && gap <= this.#merge.maxGapMs) {
      return this.#replaceLast(last, text, 'extended', segment, before, writer);
    }
    // 2. A repeat of a recent entry, the last one included (e.g. a shorter re-emission).
    const duplicate = nearDuplicateOfKey(key, texts, this.#nearDuplicate);
    if (duplicate) return dropped(text, 'near-duplicate', 'segment', duplicate.entry);
    // 3. The sentence was cut: join when the previous part is short or unfinished and close.
    if (
      gap <= this.#merge.maxGapMs &&
      gap >= -GAP_TOLERANCE_MS &&
      text !== '' &&
      (countContentChars(last.text) < this.#merge.shortEntryChars || !endsSentence(last.text)) &&
      codePointLength(last.text) + codePointLength(text) <= this.#merge.maxJoinedChars
    ) {
      return this.#replaceLast(last, joinTexts(last.text, text), 'joined', segment, before, writer);
    }
    // 4. A new sentence (step 2 compared it with the same recent entries already).
    return this.#appendSegment(text, segment, writer, { folded, checked: true }, time);
  }

  async #appendSegment(
    text: string,
    segment: LocalSegment,
    writer: LineWriter,
    known: { folded: string; checked: boolean },
    time: string | undefined,
  ): Promise<LineOutcome> {
    const outcome = await this.#appendFiltered(text, 'segment', writer, known, time);
    if (outcome.action === 'appended')
      this.#lastSegment = { entry: outcome.entry, endMs: segment.endMs };
    return outcome;
  }

  async #replaceLast(
    last: TranscriptEntry,
    text: string,
    merge: 'extended' | 'joined',
    segment: LocalSegment,
    before: readonly string[],
    writer: LineWriter,
  ): Promise<LineOutcome> {
    const folded = foldText(text);
    if (!isFoldedMeaningful(folded, this.#meaningful))
      return dropped(text, 'not-meaningful', 'segment');
    const duplicate = nearDuplicateOfKey(foldedComparisonKey(folded), before, this.#nearDuplicate);
    if (duplicate) return dropped(text, 'near-duplicate', 'segment', duplicate.entry);
    const change = writer.replaceLast(text);
    const entry = { ...change.entry };
    // Keywords alerted in the earlier part of the entry do not alert again.
    const counts = new Map(
      this.#alerted && sameEntry(this.#alerted.entry, last) ? this.#alerted.counts : [],
    );
    const alert = this.#alertFor(entry, counts);
    rememberRecentEntry(entry.text);
    await change.done;
    this.#lastSegment = { entry, endMs: Math.max(segment.endMs, this.#lastSegment?.endMs ?? 0) };
    this.#alerted = { entry, counts };
    return { action: 'updated', entry, previousText: last.text, merge, alert };
  }

  // The keywords of a newly written (or merged) line not yet alerted for its entry (`counts`:
  // occurrences alerted so far, updated).
  #alertFor(entry: TranscriptEntry, counts: Map<string, number>): KeywordAlert | null {
    if (!this.#keywords) return null;
    const fresh = this.#keywords
      .match(entry.text)
      .filter((match) => match.count > (counts.get(match.keyword) ?? 0));
    for (const match of fresh) counts.set(match.keyword, match.count);
    if (fresh.length === 0) return null;
    return {
      level: fresh.some((match) => match.level === 'alert') ? 'alert' : 'attention',
      keywords: fresh.map((match) => match.keyword),
      lineId: entry.id,
      text: entry.text,
      timestamp: entry.time ?? '',
      matches: fresh,
      forYou: fresh.some((match) => match.personal),
    };
  }

  // Emits what a line did, once it is in the file, and starts a fold when one is due.
  #announce(outcome: LineOutcome): IntakeResult {
    if (outcome.action === 'dropped') {
      const { action, source, ...event } = outcome;
      this.emit('line-dropped', { ...event, source });
      return { action, ...event };
    }
    if (outcome.action === 'appended') {
      const { entry, source, alert } = outcome;
      this.emit('line-appended', { entry, source });
      if (alert) this.emit('alert-raised', alert);
      this.#maybeFold();
      return { action: 'appended', entry, alert };
    }
    const { entry, previousText, merge, alert } = outcome;
    this.emit('line-updated', { entry, previousText, merge, source: 'segment' });
    if (alert) this.emit('alert-raised', alert);
    this.#maybeFold();
    return { action: 'updated', entry, previousText, merge, alert };
  }

  // Starts a background fold when enough entries are in the file. Called from an intake slot
  // (and after a fold that succeeded); never awaited by it. One fold at a time. A fold that failed is tried again at the next fold
  // point — once as many entries were written as a fold leaves room for (threshold − keepRecent)
  // — not on every line: a summarizer that cannot work (no LLM configured) costs one call per
  // fold point, and the entries wait in the file. Changed entries are retried on the next line.
  #maybeFold(): void {
    const summarize = this.#summarize;
    if (!summarize || this.#folding || this.#closed) return;
    if (this.#store.entryCount < this.#fold.threshold) return;
    const lastId = this.#store.lastId;
    if (this.#foldRetryAt !== null && lastId < this.#foldRetryAt) return;
    const controller = new AbortController();
    this.#foldAbort = controller;
    let succeeded = false;
    const failed = (event: FoldFailedEvent) => {
      this.#foldRetryAt = lastId + this.#fold.threshold - this.#fold.keepRecent;
      this.emit('fold-failed', event);
    };
    // Copies only the entries to fold: the file may hold thousands while folds fail.
    const snapshot = readFoldCandidates(this.#store, this.#fold.keepRecent, this.#fold.maxEntries);
    this.#folding = (async () => {
      let request: Awaited<typeof snapshot>;
      let summary: unknown;
      try {
        request = await snapshot;
        if (request.entries.length === 0) return;
        summary = await summarize(request.previousSummary, request.entries, {
          signal: controller.signal,
        });
      } catch (error) {
        if (!controller.signal.aborted) failed({ reason: 'summarize-failed', error });
        return;
      }
      if (controller.signal.aborted) return;
      if (typeof summary !== 'string' || summary.trim() === '') {
        failed({
          reason: 'summary-empty',
          error: new TranscriptCoreError(
            'TRANSCRIPT_SUMMARY_EMPTY',
            'summarize resolved to an empty summary',
          ),
        });
        return;
      }
      await this.#schedule(async () => {
        if (controller.signal.aborted) return;
        try {
          const outcome = await this.#store.fold({ summary, entries: request.entries });
          if (outcome.folded) {
            this.#foldRetryAt = null;
            succeeded = true;
            const lastFoldedId = request.entries.at(-1)!.id;
            this.emit('history-folded', {
              summary: await this.#store.readSummary(),
              foldedCount: outcome.foldedCount,
              keptCount: outcome.keptCount,
              firstFoldedId: request.entries[0]!.id,
              lastFoldedId,
              firstKeptId: lastFoldedId + 1,
            });
          } else {
            this.emit('fold-failed', { reason: 'entries-changed' });
          }
        } catch (error) {
          failed({ reason: 'write-failed', error });
        }
      });
    })().finally(() => {
      this.#folding = null;
      if (this.#foldAbort === controller) this.#foldAbort = null;
      // A backlog (folds waited for a summarizer) is folded batch after batch, not one batch
      // per new line: a paused class gets its waiting entries folded too.
      if (succeeded) this.#maybeFold();
    });
  }
}

/** What one line did, before its events are emitted. */
type LineOutcome =
  | {
      action: 'dropped';
      text: string;
      reason: DropReason;
      source: IntakeSource;
      duplicateOf?: string;
    }
  | { action: 'appended'; entry: TranscriptEntry; source: IntakeSource; alert: KeywordAlert | null }
  | {
      action: 'updated';
      entry: TranscriptEntry;
      previousText: string;
      merge: 'extended' | 'joined';
      alert: KeywordAlert | null;
    };

function dropped(
  text: string,
  reason: DropReason,
  source: IntakeSource,
  duplicateOf?: string,
): LineOutcome {
  return duplicateOf === undefined
    ? { action: 'dropped', text, reason, source }
    : { action: 'dropped', text, reason, source, duplicateOf };
}

// A segment starting a little before the previous one ended is normal (VAD overlap); one
// starting much earlier means the recogniser's clock restarted (pause/resume): never join.
const GAP_TOLERANCE_MS = 1000;
const UNSPACED_EDGE =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303F\uFF00-\uFFEF]/u;

// Joins two parts of a sentence: directly when either side is CJK, else with a space.
function joinTexts(first: string, second: string): string {
  const end = [...first].at(-1) ?? '';
  const start = [...second][0] ?? '';
  return UNSPACED_EDGE.test(end) || UNSPACED_EDGE.test(start)
    ? `${first}${second}`
    : `${first} ${second}`;
}

function sameEntry(a: TranscriptEntry, b: TranscriptEntry): boolean {
  return a.id === b.id && a.time === b.time && a.text === b.text;
}

function invalid(message: string): TranscriptCoreError {
  return new TranscriptCoreError('TRANSCRIPT_INVALID_ARGUMENT', message);
}

function checkNumber(name: string, value: number, minimum: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < minimum) {
    throw invalid(
      `TranscriptPipeline: ${name} must be a number ≥ ${minimum}, got ${String(value)}`,
    );
  }
  return value;
}

function checkInteger(name: string, value: number, minimum: number): number {
  if (!Number.isInteger(value) || value < minimum) {
    throw invalid(
      `TranscriptPipeline: ${name} must be an integer ≥ ${minimum}, got ${String(value)}`,
    );
  }
  return value;
}

function checkMatcher(matcher: KeywordMatcher | null): KeywordMatcher | null {
  if (matcher !== null && typeof matcher?.match !== 'function') {
    throw invalid('keywords must be a KeywordMatcher from createKeywordMatcher(), or null');
  }
  return matcher;
}

function checkSegment(segment: LocalSegment): void {
  if (
    typeof segment !== 'object' ||
    segment === null ||
    typeof segment.text !== 'string' ||
    !Number.isFinite(segment.startMs) ||
    !Number.isFinite(segment.endMs) ||
    segment.endMs < segment.startMs
  ) {
    throw invalid(
      `pushSegment: a segment is { text: string, startMs: number, endMs: number } with startMs ≤ endMs (ms on the recogniser's audio clock), got ${JSON.stringify(segment)}`,
    );
  }
}
