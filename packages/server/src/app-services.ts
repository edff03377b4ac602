// What the routes share: the options of the backend and the services built from them, decorated
// on the fastify instance as `app.classAssistant`. The routes depend on this file, never on the
// composition root (app.ts) that builds the services.
import type { TranscriptStore } from '@class-assistant/transcript-core';
import type { FastifyBaseLogger } from 'fastify';
import type { ClassAgent } from './agent/class-agent.ts';
import type { ClassTools } from './agent/class-tools.ts';
import type { Lectures } from './agent/lectures.ts';
import type { AppCapture } from './audio/app-capture.ts';
import type { AlertSockets } from './events/alert-sockets.ts';
import type { EventHub } from './events/event-hub.ts';
import type { ImportService } from './import/import-service.ts';
import type { Library } from './library/library.ts';
import type { ClassAi } from './llm/class-ai.ts';
import type { LlmClientFactory, LlmService } from './llm/llm-client.ts';
import type { CiteStore } from './material/cite-store.ts';
import type { NotesStore } from './material/notes-store.ts';
import type { ParseLimits } from './material/parse-material.ts';
import type { ModelCatalogueEntry } from './models/model-catalogue.ts';
import type { ModelManager } from './models/model-manager.ts';
import type { ClassRecord } from './monitor/class-record.ts';
import type { KeywordService } from './monitor/keyword-service.ts';
import type { Monitor } from './monitor/monitor.ts';
import type { RecognizerRegistry } from './recognizers/recognizer.ts';
import type { LoginTickets } from './security/api-token.ts';
import type { FilePrivacyOptions } from './security/private-file.ts';
import type { SettingsStore } from './settings/settings-store.ts';

/** Options of `buildApp` (app.ts). */
export interface BuildAppOptions {
  /** The data folder (transcript, keywords, cite/, summaries/). */
  dataDir: string;
  /** The settings file (`.env`). */
  envFile: string;
  /** Process environment: main settings keys found here override the file (default: none). */
  environment?: Readonly<Record<string, string | undefined>>;
  /**
   * The port the server will answer on, for the Host and Origin checks until it listens (after
   * `listen()` the real port is used, so 0 works). Default 8765.
   */
  port?: number;
  /** The clock for transcript times and file names (default: the system clock). */
  now?: () => Date;
  /** Builds the OpenAI client (default: `openai` with one retry and LLM_TIMEOUT). */
  llmClientFactory?: LlmClientFactory;
  /** The ASR modes (default: {@link defaultRecognizerDefinitions}). */
  recognizers?: RecognizerRegistry;
  /** A pino logger, `true` for fastify's default, or `false`/absent for none. */
  logger?: FastifyBaseLogger | boolean;
  /** A folder with prompt files overriding the bundled ones (rescue.md, catchup.md, …). */
  promptsDir?: string;
  /**
   * Milliseconds between the `: heartbeat` comments of /api/events (default 400): a UI notices a
   * frozen backend or a cut network when they stop (stream.opened says the interval).
   */
  sseHeartbeatMs?: number;
  /** Limits of material parsing (worker heap, time, archive caps). */
  parseLimits?: ParseLimits;
  /**
   * A folder with a built web UI (`index.html` and its assets) served at `/`. Absent, or without
   * an `index.html`: `/` is a short landing page linking /docs.
   */
  uiDir?: string;
  /**
   * Called by `POST /api/shutdown` (the route exists only with this option): the process that
   * owns the server stops it gracefully, as on SIGTERM. The launcher uses it to stop a stale
   * backend where signals cannot (Windows).
   */
  requestShutdown?: () => void;
  /**
   * The secret `POST /api/shutdown` requires in its `X-Shutdown-Token` header; without one the
   * route refuses every request. `startServer` makes one per run and writes it to
   * `<data>/_shutdown.token` (readable by its owner only), where the launcher reads it: another
   * local user, who can reach the loopback port but not the file, cannot stop the backend.
   */
  shutdownToken?: string;
  /** The desktop app's version, reported by /api/health (`app_version`) and /docs. */
  appVersion?: string;
  /** The launcher process that owns this backend, reported by /api/health (`launcher_pid`). */
  launcherPid?: number;
  /**
   * How owner-only files (the settings file, the shutdown token) are made private on Windows,
   * where Node ignores the mode: the platform and the command runner of `icacls`, replaced in
   * tests. Default: the real ones.
   */
  filePrivacy?: FilePrivacyOptions;
  /**
   * The models the app offers to download (default: the official catalogue,
   * src/models/model-catalogue.ts). The default recognizers' local mode names these too.
   */
  modelCatalogue?: readonly ModelCatalogueEntry[];
  /** Free bytes where models are stored (default: `fs.statfs`); replaced in tests. */
  modelFreeSpace?: (folder: string) => Promise<number>;
}

/** What the routes share; decorated on the app as `app.classAssistant`. */
export interface AppServices {
  options: BuildAppOptions;
  dataDir: string;
  settings: SettingsStore;
  hub: EventHub;
  cite: CiteStore;
  /** The post-class notes (data/summaries). */
  notes: NotesStore;
  keywords: KeywordService;
  store: TranscriptStore;
  llm: LlmService;
  ai: ClassAi;
  record: ClassRecord;
  /** Every class kept, searchable (data/classes, data/library.db). */
  library: Library;
  /** The student's lectures as the class tools read them (made on first use). */
  lectures: () => Promise<Lectures>;
  /** The class tools (class_search, class_lines, material_page, notes_read, class_list). */
  classTools: () => Promise<ClassTools>;
  /** Answers questions by looking things up: /api/ask and the follow-up chats (loaded on first use). */
  agent: ClassAgent;
  /** What MCP clients present to /mcp (kept in <data>/mcp-token). */
  mcpToken: string;
  /**
   * The API token every route needs (API_TOKEN, read once at the start); empty: none.
   */
  apiToken: string;
  /** One-time tickets for the app window's first address (`/?token=<ticket>`). */
  loginTickets: LoginTickets;
  monitor: Monitor;
  /** Recorded lectures imported as classes. */
  imports: ImportService;
  /** The app window's microphone (AUDIO_INPUT=app) and its socket. */
  capture: AppCapture;
  recognizers: RecognizerRegistry;
  /** The model catalogue, the installed models and their downloads. */
  models: ModelManager;
  now: () => Date;
  startedAt: Date;
  /** The port the server answers on (the real one once listening). */
  port(): number;
  parseLimits: ParseLimits;
  sseHeartbeatMs: number;
  /** Open SSE streams of /api/events, ended before the server closes (at most 64). */
  streams: Set<() => void>;
  /** The original client's alert sockets (WS /api/ws/alerts): capped, and its failure notices. */
  alertSockets: AlertSockets;
}

declare module 'fastify' {
  interface FastifyInstance {
    classAssistant: AppServices;
  }
}
