// @class-assistant/transcript-core — every public export, by name.

export type { WriteFileAtomicOptions } from './atomic-file.ts';
export { writeFileAtomic } from './atomic-file.ts';
export type { EntryTime } from './entry-time.ts';
export { formatPosition } from './entry-time.ts';
export type { TranscriptCoreErrorCode } from './errors.ts';
export { isTranscriptCoreError, TranscriptCoreError } from './errors.ts';
export { isHomophoneSupportLoaded, loadHomophoneSupport } from './homophone-support.ts';
export type {
  Keyword,
  KeywordFileProblem,
  KeywordLevel,
  LoadedKeywords,
  ParsedKeywords,
} from './keyword-file.ts';
export {
  DEFAULT_KEYWORDS,
  DEFAULT_KEYWORDS_FILE,
  formatKeywordsFile,
  KEYWORDS_FILE_HEADER,
  loadKeywordsFile,
  parseKeywords,
  saveKeywordsFile,
} from './keyword-file.ts';
export type {
  HomophoneMode,
  KeywordMatch,
  KeywordMatcher,
  KeywordMatcherOptions,
  MatcherKeyword,
} from './keyword-matcher.ts';
export { createKeywordMatcher } from './keyword-matcher.ts';
export type { NearDuplicateMatch, NearDuplicateOptions } from './near-duplicate.ts';
export { findNearDuplicate, isNearDuplicate } from './near-duplicate.ts';
export type { MatchingBlock, PreparedSequence } from './similarity.ts';
export { matchingBlocks, prepareSequence, quickRatio, similarityRatio } from './similarity.ts';
export type { StudentIdentity } from './student-keywords.ts';
export { MAX_STUDENT_DIGITS, studentKeywords } from './student-keywords.ts';
export type { MeaningfulOptions } from './text.ts';
export { DEFAULT_FILLERS, isMeaningful, normalizeText } from './text.ts';
export type {
  RecentQuery,
  TranscriptDocument,
  TranscriptEntry,
  TranscriptHeader,
  TranscriptLineContent,
} from './transcript-format.ts';
export {
  formatClockTime,
  formatEntries,
  formatEntryLine,
  formatFoldedLine,
  formatTranscript,
  parseTranscript,
  SUMMARY_END_MARKER,
  SUMMARY_START_MARKER,
  selectRecent,
} from './transcript-format.ts';
export type {
  DropReason,
  FoldFailedEvent,
  FoldOptions,
  HistoryFoldedEvent,
  IntakeResult,
  IntakeSource,
  KeywordAlert,
  LineAppendedEvent,
  LineDroppedEvent,
  LineUpdatedEvent,
  LocalMergeOptions,
  LocalSegment,
  PushLineOptions,
  Summarize,
  TranscriptPipelineEvents,
  TranscriptPipelineOptions,
} from './transcript-pipeline.ts';
export { TranscriptPipeline } from './transcript-pipeline.ts';
export type {
  FoldOutcome,
  FoldRequest,
  NewClassHeader,
  TranscriptStoreOptions,
} from './transcript-store.ts';
export { readTranscriptFile, TranscriptStore } from './transcript-store.ts';
