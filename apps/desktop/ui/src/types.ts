// The backend's answers as the UI reads them (packages/server/README.md, "HTTP API"). The UI talks
// to the backend over HTTP only. The live events and the shapes they share (monitor status,
// transcript lines, alerts) come from the backend's event contract as types only — nothing of
// the server is bundled; the rest mirror the routes' answers.
import type {
  AlertLevel,
  CaptureProblem,
  CaptureServerMessage,
  CaptureStatus,
  CaptureWindowMessage,
  ErrorRaisedPayload,
  KeywordAlertPayload,
  LiveEventName,
  LiveMessage,
  MonitorStatusPayload,
  StreamOpenedPayload,
  TranscriptLine,
} from '@class-assistant/server/live-events';

export type {
  AlertLevel,
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

export interface Health {
  status: 'healthy';
  version: string;
  compatible_client: string;
  uptime_seconds: number;
  data_dir: string;
  settings_file: string;
  monitor: { state: string; is_monitoring: boolean; is_paused: boolean };
  asr: { mode: string; available: boolean; message: string; settings: string[] };
  llm: { configured: boolean; base_url: string; model: string; missing: string[] };
  /** AUDIO_INPUT (`app`: this window's microphone). */
  audio: { input: string };
  not_configured: string[];
}

export interface TranscriptAnswer {
  status: 'success';
  course_name: string | null;
  material_name: string | null;
  started_at: string | null;
  history_summary: string;
  total: number;
  entries: TranscriptLine[];
  partial: string;
  last_event_id: number;
}

export interface CiteFile {
  filename: string;
  updated_at: string;
  size: number;
  /** Slides or pages (absent from an older backend). */
  pages?: number;
}

export interface UploadResult {
  status: 'success';
  message: string;
  text_length: number;
  cite_filename: string;
  kind?: string;
  pages?: number;
}

export interface StartResult {
  status: 'started' | 'already_running';
  message: string;
  effective_asr_mode?: string;
}

export interface StopResult {
  status: 'stopped' | 'not_running' | string;
  message: string;
  course_name?: string;
  summary?: { filename: string; course_name: string };
  summary_error?: string;
  summary_error_code?: string;
}

export interface MicCheck {
  status: 'ok' | 'error';
  message: string;
  error_code?: string;
  input?: 'microphone' | 'app' | 'file';
  device?: string;
}

/** What a rescue or catch-up answer was written from (absent from an older backend). */
export interface AnswerSources {
  /** `HH:MM:SS` of the first and last transcript line sent ('' without lines). */
  from: string;
  to: string;
  lines: Array<{ id: number; timestamp: string; text: string }>;
  /** The material file ('' without) and the pages of it that were sent. */
  material: string;
  pages: number[];
  /** Rescue: the lines the model named as its basis, the question first. */
  cited: number[];
}

export interface RescueAnswer {
  status: 'success' | 'warning';
  context: string;
  question: string;
  answer: string;
  format?: 'json' | 'text' | 'none';
  sources?: AnswerSources;
}

export interface ChatAnswer {
  status: 'success';
  answer: string;
}

export interface CatchupAnswer {
  status: 'success' | 'warning';
  summary: string;
  sources?: AnswerSources;
}

export interface NotesAnswer {
  status: 'success';
  filename: string;
  course_name: string;
  summary: string;
}

export interface NoteInfo {
  filename: string;
  course_name: string;
  updated_at: string;
  size: number;
}

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

export interface KeywordsView {
  builtin: string[];
  warning: string[];
  custom: string[];
  all: string[];
  file: string;
  homophones: string;
  problems: Array<{ line: number; content: string; message: string }>;
}

export interface SettingDefinition {
  key: string;
  group: string;
  label: BothLanguages;
  description: string;
  default: string;
  secret: boolean;
  applies: 'now' | 'next-class' | 'restart';
  example: string;
  /** For a key with a fixed set of values. */
  choices?: Array<{ value: string; label: BothLanguages; help?: BothLanguages }>;
}

/** One ASR mode the backend runs and what it needs. */
export interface AsrModeFacts {
  mode: string;
  label: BothLanguages;
  help?: BothLanguages;
  aliases: string[];
  /** The kinds of audio input it listens to; empty: none. */
  audio: Array<'microphone' | 'app' | 'file'>;
  /** The keys a student fills in for it. */
  settings: string[];
  model: boolean;
}

/** GET /api/settings/definitions (GET /api/settings carries the same). */
export interface SettingFacts {
  groups: Array<{ id: string; label: BothLanguages }>;
  definitions: SettingDefinition[];
  asr_modes: AsrModeFacts[];
}

export interface SettingsView {
  path: string;
  exists: boolean;
  fields: Record<string, string>;
  extra_lines: string;
  effective: Record<string, string>;
  environment_overrides: string[];
  problems: Array<{ key: string; source: string; message: string }>;
  definitions: SettingDefinition[];
  groups: SettingFacts['groups'];
  asr_modes: AsrModeFacts[];
}

export interface SettingsSaved {
  status: 'success';
  message: string;
  changed: string[];
  applied_now: string[];
  next_class: string[];
  restart_required: string[];
  overridden_by_environment: string[];
}

/** One row of GET /api/models: a catalogue model or an installed one. */
/** Text in both languages, as the backend sends it for the UI to pick from. */
export interface BothLanguages {
  zh: string;
  en: string;
}

/** One host a catalogue model can come from (GET /api/models `sources`). */
interface ModelSourceItem {
  id: string;
  label: BothLanguages;
  kind: string;
  urls: string[];
}

export interface ModelItem {
  id: string;
  name: string;
  language: 'zh' | 'en' | null;
  languages: string[];
  engine: 'vosk' | 'pocketsphinx' | 'sherpa';
  /** `punctuation`: punctuates a streaming model's lines, never a recognizer. */
  role: 'recognizer' | 'punctuation';
  size_bytes: number;
  disk_bytes: number | null;
  /** In English. */
  description: string;
  /** The description in both languages. */
  descriptions?: BothLanguages;
  licence: string | null;
  streaming: boolean | null;
  recommended: boolean;
  unchecked: boolean;
  files: Array<{ name: string; size_bytes: number; sha256: string | null; null_why?: string }>;
  sources: ModelSourceItem[];
  installed: boolean;
  path?: string;
  downloading?: {
    received_bytes: number;
    total_bytes: number | null;
    source: string | null;
    source_label: BothLanguages | null;
    notice: BothLanguages | null;
  };
}

export interface ModelList {
  status: 'success';
  models_dir: string;
  base_url: string;
  items: ModelItem[];
}

/** The answer of POST /api/models/download. */
export interface ModelDownloadStart {
  status: 'success';
  id: string;
  name: string;
  state: 'started' | 'running' | 'installed';
}

/** A class of the library (GET /api/classes). */
export interface ClassSummary {
  id: string;
  course_name: string;
  material_name: string;
  started_at: string;
  ended_at: string | null;
  line_count: number;
  alert_count: number;
  has_notes: boolean;
  live: boolean;
}

/** How far the library's index is while it catches up (null when up to date). */
export type LibraryIndexing = { indexed: number; total: number } | null;

export interface ClassesAnswer {
  status: 'success';
  total: number;
  items: ClassSummary[];
  indexing: LibraryIndexing;
}

interface ClassAlert {
  line_id: number;
  level: AlertLevel;
  keywords: string[];
  text: string;
  timestamp: string;
}

/** GET /api/classes/:id. */
export interface ClassAnswer {
  status: 'success';
  class: ClassSummary & { history_summary: string; notes: string | null };
  lines: Array<{ id: number; timestamp: string; text: string }>;
  alerts: ClassAlert[];
}

export interface SearchHit {
  class_id: string;
  course_name: string;
  started_at: string;
  kind: 'line' | 'notes' | 'material';
  line_id?: number;
  timestamp?: string;
  /** Escaped HTML with each match in <mark>…</mark> (see snippet.ts). */
  snippet: string;
}

export interface SearchAnswer {
  status: 'success';
  hits: SearchHit[];
  indexing: LibraryIndexing;
}
