// The live-transcript pipeline (issue 3; backend spec §3): the three intakes, the shared
// append routine (meaningful? → near-duplicate? → append), local-mode merging, streaming-mode
// definite-utterance writing, keyword alerts on the newly written line only, and history
// folding in the background.
import { EventEmitter } from 'node:events';
import type { KeywordLevel } from './keyword-file.ts';
import type { KeywordMatch, KeywordMatcher } from './keyword-matcher.ts';
import type { NearDuplicateOptions } from './near-duplicate.ts';
import type { MeaningfulOptions } from './text.ts';
import type { TranscriptEntry } from './transcript-format.ts';
import type { TranscriptStore } from './transcript-store.ts';

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
  /** Fold when this many real entries are in the file. Default 50 (backend spec §8). */
  threshold?: number;
  /** Entries left unfolded after a fold, for the rescue and catch-up windows. Default 20. */
  keepRecent?: number;
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
}

/**
 * A streaming-mode utterance as the online ASR service sends it (`start_time`/`end_time` in
 * ms; the camelCase spellings are accepted too).
 */
export interface StreamingUtterance {
  text: string;
  definite?: boolean;
  start_time?: number;
  end_time?: number;
  startTime?: number;
  endTime?: number;
}

/** Which intake a line came through. */
export type IntakeSource = 'line' | 'segment' | 'utterance';

/** Why a text was not written. */
export type DropReason = 'not-meaningful' | 'near-duplicate' | 'repeated-utterance';

/** Payload of `alert-raised`: the old product's WebSocket alert plus the match details. */
export interface KeywordAlert {
  /** The highest level among the matches. */
  level: KeywordLevel;
  /** The matched keywords as listed, alert level first. */
  keywords: string[];
  /** The whole entry text. */
  text: string;
  /** The entry's clock time, `HH:MM:SS`. */
  timestamp: string;
  matches: KeywordMatch[];
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

/** Payload of `partial-changed`: the streaming mode's not-yet-definite text ('' when none). */
export interface PartialChangedEvent {
  text: string;
}

/** Payload of `history-folded`. */
export interface HistoryFoldedEvent {
  summary: string;
  foldedCount: number;
  keptCount: number;
}

/** Payload of `fold-failed`. Nothing was lost; the fold is retried on a later append. */
export interface FoldFailedEvent {
  reason: 'summarize-failed' | 'summary-empty' | 'entries-changed' | 'write-failed';
  error?: unknown;
}

/** Event map of {@link TranscriptPipeline} (Node `EventEmitter`). */
export interface TranscriptPipelineEvents {
  'line-appended': [LineAppendedEvent];
  'line-updated': [LineUpdatedEvent];
  'line-dropped': [LineDroppedEvent];
  'partial-changed': [PartialChangedEvent];
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
 * (from recogniser callbacks): they are applied one at a time in call order; each resolves once
 * its line is durably written.
 */
export class TranscriptPipeline extends EventEmitter<TranscriptPipelineEvents> {
  constructor(options: TranscriptPipelineOptions) {
    super();
    void options;
  }

  /** The streaming mode's current partial (not-yet-definite) text; '' when none. */
  get partialText(): string {
    throw new Error('not implemented yet');
  }

  /** Mock and cloud modes: one recognised line → filters → append. */
  async pushLine(text: string): Promise<IntakeResult> {
    void text;
    throw new Error('not implemented yet');
  }

  /** Local mode: one recognised segment → merge with the previous entry or append. */
  async pushSegment(segment: LocalSegment): Promise<IntakeResult> {
    void segment;
    throw new Error('not implemented yet');
  }

  /** Streaming mode: the utterance list of one response. */
  async pushUtterances(utterances: readonly StreamingUtterance[]): Promise<IntakeResult[]> {
    void utterances;
    throw new Error('not implemented yet');
  }

  /** Replaces the keyword matcher (reload on demand); `null` turns alerts off. */
  setKeywords(matcher: KeywordMatcher | null): void {
    void matcher;
    throw new Error('not implemented yet');
  }

  /** Resolves when every queued intake is written and any running fold has finished. */
  async flush(): Promise<void> {
    throw new Error('not implemented yet');
  }

  /** Flushes writes, abandons a running fold, refuses further input, emits `end`. */
  async close(): Promise<void> {
    throw new Error('not implemented yet');
  }
}
