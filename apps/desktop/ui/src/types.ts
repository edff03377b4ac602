// The backend's answers as the UI reads them (packages/server/README.md, "HTTP API"). The UI talks
// to the backend over HTTP only. Everything here comes from the backend's contracts as types
// only — nothing of the server is bundled: the live events and the shapes they share (monitor
// status, transcript lines, alerts) from its event contract, the routes' answers from its REST
// contract (names for the answers the UI passes around).
import type {
  CaptureProblem,
  CaptureServerMessage,
  CaptureStatus,
  CaptureWindowMessage,
  ErrorRaisedPayload,
  KeywordAlertPayload,
  LiveEventMap,
  LiveEventName,
  LiveMessage,
  MonitorStatusPayload,
  StreamOpenedPayload,
  TranscriptLine,
} from '@class-assistant/server/live-events';
import type { RestAnswer, RestBody, RestStreamEnd } from '@class-assistant/server/rest-contract';

export type {
  CaptureProblem,
  CaptureServerMessage,
  CaptureStatus,
  CaptureWindowMessage,
  LiveEventName,
  LiveMessage,
  TranscriptLine,
};
export type MonitorStatus = MonitorStatusPayload;
export type KeywordAlert = KeywordAlertPayload;
export type StreamOpened = StreamOpenedPayload;
/**
 * An `error.raised` live event: a failure in the background. `source` says where (match on it,
 * never on the message).
 */
export type BackgroundError = ErrorRaisedPayload;

/** A recording being imported (`import.changed`, GET /api/import). */
export type ImportStatus = LiveEventMap['import.changed'];

export type Health = RestAnswer<'GET /api/health'>;
export type TranscriptAnswer = RestAnswer<'GET /api/transcript'>;
export type CiteFile = RestAnswer<'GET /api/cite_files'>['items'][number];
export type StopResult = RestAnswer<'POST /api/stop_monitor'>;
/** What a rescue or catch-up answer was written from. */
export type AnswerSources = RestStreamEnd<'POST /api/emergency_rescue/stream'>['sources'];
export type NoteInfo = RestAnswer<'GET /api/notes'>['items'][number];
export type ChatTurn = NonNullable<RestBody<'POST /api/catchup_chat'>['history']>[number];
export type KeywordsView = RestAnswer<'GET /api/keywords'>;
export type SettingsView = RestAnswer<'GET /api/settings'>;
export type SettingDefinition = SettingsView['definitions'][number];
/** GET /api/settings/definitions (GET /api/settings carries the same). */
export type SettingFacts = Omit<RestAnswer<'GET /api/settings/definitions'>, 'status'>;
/** One ASR mode the backend runs and what it needs. */
export type AsrModeFacts = SettingFacts['asr_modes'][number];
/** One row of GET /api/models: a catalogue model or an installed one. */
export type ModelItem = RestAnswer<'GET /api/models'>['items'][number];
/** One host a catalogue model can come from (GET /api/models `sources`). */
type ModelSourceItem = ModelItem['sources'][number];
/** Text in both languages, as the backend sends it for the UI to pick from. */
export type BothLanguages = ModelSourceItem['label'];
export type ModelDownloadStart = RestAnswer<'POST /api/models/download'>;
/** A class of the library (GET /api/classes). */
export type ClassSummary = RestAnswer<'GET /api/classes'>['items'][number];
/** How far the library's index is while it catches up (null when up to date). */
export type LibraryIndexing = RestAnswer<'GET /api/classes'>['indexing'];
/** GET /api/classes/:id. */
export type ClassAnswer = RestAnswer<'GET /api/classes/:id'>;
/** A moment the student marked (★) in a class. */
export type ClassMark = ClassAnswer['marks'][number];
export type SearchHit = RestAnswer<'GET /api/search'>['hits'][number];
