// The backend's answers as the UI reads them (packages/server/README.md, "HTTP API"). The UI talks
// to the backend over HTTP only. Everything here comes from the backend's contracts as types
// only — nothing of the server is bundled: the live events and the shapes they share (monitor
// status, transcript lines, alerts) from its event contract, the routes' answers from its REST
// contract (names for the answers the UI passes around).
import type {
  AlertLevel,
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
  AlertLevel,
  CaptureProblem,
  CaptureServerMessage,
  CaptureStatus,
  CaptureWindowMessage,
  LiveEventMap,
  LiveEventName,
  LiveMessage,
  TranscriptLine,
};
export type MonitorStatus = MonitorStatusPayload;
export type MonitorState = MonitorStatus['state'];
export type KeywordAlert = KeywordAlertPayload;
export type StreamOpened = StreamOpenedPayload;
/**
 * An `error.raised` live event: a failure in the background. `source` says where (match on it,
 * never on the message).
 */
export type BackgroundError = ErrorRaisedPayload;

export type Health = RestAnswer<'GET /api/health'>;
export type TranscriptAnswer = RestAnswer<'GET /api/transcript'>;
export type CiteFile = RestAnswer<'GET /api/cite_files'>['items'][number];
export type UploadResult = RestAnswer<'POST /api/upload_ppt'>;
export type StartResult = RestAnswer<'POST /api/start_monitor'>;
export type StopResult = RestAnswer<'POST /api/stop_monitor'>;
export type MicCheck = RestAnswer<'GET /api/check_mic'>;
export type RescueAnswer = RestStreamEnd<'POST /api/emergency_rescue/stream'>;
/** What a rescue or catch-up answer was written from. */
export type AnswerSources = RescueAnswer['sources'];
export type ChatAnswer = RestStreamEnd<'POST /api/catchup_chat/stream'>;
export type CatchupAnswer = RestStreamEnd<'POST /api/catchup/stream'>;
export type NotesAnswer = RestStreamEnd<'POST /api/generate_summary/stream'>;
export type NoteInfo = RestAnswer<'GET /api/notes'>['items'][number];
export type ChatTurn = NonNullable<RestBody<'POST /api/catchup_chat'>['history']>[number];
export type KeywordsView = RestAnswer<'GET /api/keywords'>;
export type SettingsView = RestAnswer<'GET /api/settings'>;
export type SettingDefinition = SettingsView['definitions'][number];
export type SettingsSaved = RestAnswer<'POST /api/settings'>;
export type ModelList = RestAnswer<'GET /api/models'>;
/** One row of GET /api/models: a catalogue model or an installed one. */
export type ModelItem = ModelList['items'][number];
/** One host a catalogue model can come from (GET /api/models `sources`). */
export type ModelSourceItem = ModelItem['sources'][number];
/** Text in both languages, as the backend sends it for the UI to pick from. */
export type BothLanguages = ModelSourceItem['label'];
export type ModelDownloadStart = RestAnswer<'POST /api/models/download'>;
export type ClassesAnswer = RestAnswer<'GET /api/classes'>;
/** A class of the library (GET /api/classes). */
export type ClassSummary = ClassesAnswer['items'][number];
/** How far the library's index is while it catches up (null when up to date). */
export type LibraryIndexing = ClassesAnswer['indexing'];
/** GET /api/classes/:id. */
export type ClassAnswer = RestAnswer<'GET /api/classes/:id'>;
export type ClassAlert = ClassAnswer['alerts'][number];
export type SearchAnswer = RestAnswer<'GET /api/search'>;
export type SearchHit = SearchAnswer['hits'][number];
