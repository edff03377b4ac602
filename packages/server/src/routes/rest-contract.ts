/**
 * The REST contract: every route of the backend, keyed `'<METHOD> <path>'` as fastify registers
 * it, with the zod schemas of its path parameters, query string, body and success answer. The
 * schemas are the routes' own (each route file exports the ones it uses), so this module only
 * points at them; a test checks it against the routes the app really registers. The desktop UI
 * calls the backend through a client typed from it (a type-only import of
 * `@class-assistant/server/rest-contract`): renaming a route or a field of an answer the UI reads
 * fails the UI's typecheck.
 *
 * `response` is the success answer's schema (HTTP 200; 202 for `POST /api/shutdown`, `POST
 * /api/import` and `POST /api/import/resume`). A streamed
 * AI route (`…/stream`) answers server-sent events: `text.delta` `{text}`, `tool.called`, then
 * `end`, whose body `end` describes, or `error.raised`. `POST /api/ask` describes its events in
 * `events`. The live channels (server-sent events, WebSockets) and `/mcp` have no JSON answer:
 * their events are the live-event contract's (`@class-assistant/server/live-events`) or MCP's.
 */
// The route files rely on the type augmentations of the plugins the app registers (the app's
// services, WebSocket and multipart requests); loaded here too, so that this module type-checks
// on its own wherever it is imported.
import type {} from '@fastify/multipart';
import type {} from '@fastify/websocket';
import type { z } from 'zod';
import type {} from '../app-services.ts';
import {
  AnswerSchema,
  CatchupAnswerSchema,
  CatchupChatBodySchema,
  CatchupSchema,
  ChatAnswerSchema,
  NotesAnswerSchema,
  NotesSchema,
  RescueAnswerSchema,
  RescueChatBodySchema,
  RescueSchema,
} from './ai-routes.ts';
import { AskAnswerSchema, AskBodySchema, AskEventSchema } from './ask-routes.ts';
import { AudioSourcesSchema } from './audio-sources-routes.ts';
import { ConnectionTestBodySchema, ConnectionTestSchema } from './connection-test-routes.ts';
import { LoginTicketSchema, ShutdownSchema } from './desktop-routes.ts';
import {
  ImportAnswerSchema,
  ImportCurrentSchema,
  ImportResumeBodySchema,
} from './import-schemas.ts';
import {
  ClassAudioSchema,
  ClassesQuerySchema,
  ClassesSchema,
  ClassIdParams,
  ClassSchema,
  DeleteClassSchema,
  ExportQuerySchema,
  ExportSchema,
  MarkAnswerSchema,
  MarkBodySchema,
  NotesResultSchema,
  SearchQuerySchema,
  SearchSchema,
} from './library-routes.ts';
import { EventsQuerySchema } from './live-routes.ts';
import {
  CiteFilesSchema,
  MaterialPageParams,
  MaterialPageSchema,
  UploadResultSchema,
} from './material-routes.ts';
import { McpInfoSchema } from './mcp-routes.ts';
import {
  DownloadAnswerSchema,
  DownloadBodySchema,
  ModelListSchema,
  ModelNameParams,
  RemoveAnswerSchema,
} from './models-routes.ts';
import {
  KeywordsSchema,
  MonitorActionSchema,
  MonitorStatusAnswerSchema,
  ReloadKeywordsSchema,
  StartMonitorBodySchema,
  StopQuerySchema,
  StopResultSchema,
  TranscriptQuerySchema,
  TranscriptSchema,
  UpdateKeywordsBodySchema,
  UpdateKeywordsSchema,
} from './monitor-routes.ts';
import { NoteSchema, NotesFilenameParams, NotesListSchema } from './notes-routes.ts';
import type { ErrorSchema } from './schemas.ts';
import { SettingsDefinitionsSchema } from './settings-definitions-routes.ts';
import { SaveBodySchema, SaveResultSchema, SettingsViewSchema } from './settings-routes.ts';
import { HealthSchema, MicCheckSchema } from './system-routes.ts';

/** What the contract says of one route. */
export interface RestRouteSchemas {
  /** Path parameters (`:name` in the key). */
  params?: z.ZodType;
  querystring?: z.ZodType;
  /** The JSON body. */
  body?: z.ZodType;
  /** The success answer (absent: the route answers no JSON). */
  response?: z.ZodType;
  /** A route that streams: the body of its final event (`end`; `answer.done` for /api/ask). */
  end?: z.ZodType;
  /** The server-sent events of a route that can stream (`{event, data}`). */
  events?: z.ZodType;
}

export const REST_CONTRACT = {
  'GET /api/health': { response: HealthSchema },
  'GET /api/check_mic': { response: MicCheckSchema },
  'GET /api/audio_sources': { response: AudioSourcesSchema },
  'GET /api/settings': { response: SettingsViewSchema },
  'POST /api/settings': { body: SaveBodySchema, response: SaveResultSchema },
  'GET /api/settings/definitions': { response: SettingsDefinitionsSchema },
  'POST /api/settings/test_connection': {
    body: ConnectionTestBodySchema,
    response: ConnectionTestSchema,
  },
  // multipart/form-data with the file in the field `file` (no JSON body).
  'POST /api/upload_ppt': { response: UploadResultSchema },
  'GET /api/cite_files': { response: CiteFilesSchema },
  'GET /api/material/pages/:page': { params: MaterialPageParams, response: MaterialPageSchema },
  'POST /api/start_monitor': { body: StartMonitorBodySchema, response: MonitorActionSchema },
  'POST /api/stop_monitor': { querystring: StopQuerySchema, response: StopResultSchema },
  'POST /api/pause_monitor': { response: MonitorActionSchema },
  'POST /api/resume_monitor': { response: MonitorActionSchema },
  'GET /api/monitor_status': { response: MonitorStatusAnswerSchema },
  'GET /api/keywords': { response: KeywordsSchema },
  'POST /api/update_keywords': { body: UpdateKeywordsBodySchema, response: UpdateKeywordsSchema },
  'POST /api/reload_keywords': { response: ReloadKeywordsSchema },
  'GET /api/transcript': { querystring: TranscriptQuerySchema, response: TranscriptSchema },
  'GET /api/models': { response: ModelListSchema },
  'POST /api/models/download': { body: DownloadBodySchema, response: DownloadAnswerSchema },
  'DELETE /api/models/:name': { params: ModelNameParams, response: RemoveAnswerSchema },
  'POST /api/emergency_rescue': { response: RescueAnswerSchema },
  'POST /api/emergency_rescue_chat': { body: RescueChatBodySchema, response: ChatAnswerSchema },
  'POST /api/catchup': { response: CatchupAnswerSchema },
  'POST /api/catchup_chat': { body: CatchupChatBodySchema, response: ChatAnswerSchema },
  'POST /api/generate_summary': { response: NotesAnswerSchema },
  'POST /api/emergency_rescue/stream': { response: RescueAnswerSchema, end: RescueSchema },
  'POST /api/emergency_rescue_chat/stream': {
    body: RescueChatBodySchema,
    response: ChatAnswerSchema,
    end: AnswerSchema,
  },
  'POST /api/catchup/stream': { response: CatchupAnswerSchema, end: CatchupSchema },
  'POST /api/catchup_chat/stream': {
    body: CatchupChatBodySchema,
    response: ChatAnswerSchema,
    end: AnswerSchema,
  },
  'POST /api/generate_summary/stream': { response: NotesAnswerSchema, end: NotesSchema },
  'GET /api/events': { querystring: EventsQuerySchema },
  'GET /api/notes': { response: NotesListSchema },
  'GET /api/notes/:filename': { params: NotesFilenameParams, response: NoteSchema },
  'POST /api/shutdown': { response: ShutdownSchema },
  'POST /api/login_ticket': { response: LoginTicketSchema },
  'GET /api/classes': { querystring: ClassesQuerySchema, response: ClassesSchema },
  'GET /api/classes/:id': { params: ClassIdParams, response: ClassSchema },
  'DELETE /api/classes/:id': { params: ClassIdParams, response: DeleteClassSchema },
  'POST /api/marks': { body: MarkBodySchema, response: MarkAnswerSchema },
  'GET /api/search': { querystring: SearchQuerySchema, response: SearchSchema },
  'GET /api/classes/:id/export': {
    params: ClassIdParams,
    querystring: ExportQuerySchema,
    response: ExportSchema,
  },
  'GET /api/classes/:id/audio': { params: ClassIdParams, response: ClassAudioSchema },
  'POST /api/classes/:id/notes': { params: ClassIdParams, response: NotesResultSchema },
  'POST /api/classes/:id/notes/stream': {
    params: ClassIdParams,
    response: NotesResultSchema,
    end: NotesResultSchema,
  },
  'POST /api/ask': {
    body: AskBodySchema,
    response: AskAnswerSchema,
    end: AskAnswerSchema,
    events: AskEventSchema,
  },
  // multipart/form-data: the recording in `file`, optional `course_name` and `cite_filename`
  // (ImportFieldsSchema); answers 202.
  'POST /api/import': { response: ImportAnswerSchema },
  'GET /api/import': { response: ImportCurrentSchema },
  'POST /api/import/cancel': { response: ImportAnswerSchema },
  'POST /api/import/resume': { body: ImportResumeBodySchema, response: ImportAnswerSchema },
  'GET /api/mcp/connection': { response: McpInfoSchema },
  // The MCP server (JSON-RPC over streamable HTTP) and the WebSockets: no JSON answer of ours.
  'GET /mcp': {},
  'POST /mcp': {},
  'DELETE /mcp': {},
  'GET /api/ws/alerts': {},
  'GET /api/ws/capture': {},
} as const satisfies Record<string, RestRouteSchemas>;

/** The contract's type: what `@class-assistant/server/rest-contract` is for. */
export type RestContract = typeof REST_CONTRACT;

/** A route: `'GET /api/notes'`, `'DELETE /api/classes/:id'`, … */
export type RestRoute = keyof RestContract;

/** The routes that answer JSON (the others stream or upgrade). */
export type RestJsonRoute = {
  [Route in RestRoute]: RestContract[Route] extends { response: z.ZodType } ? Route : never;
}[RestRoute];

type Part<Route extends RestRoute, Key extends keyof RestRouteSchemas> =
  RestContract[Route] extends Record<Key, infer Schema extends z.ZodType> ? Schema : never;

/** The success answer of a route, as the client receives it. */
export type RestAnswer<Route extends RestRoute> = z.output<Part<Route, 'response'>>;

/** The body of a streamed route's `end` event. */
export type RestStreamEnd<Route extends RestRoute> = z.output<Part<Route, 'end'>>;

/** The JSON body a route takes, as a client sends it (defaults may be left out). */
export type RestBody<Route extends RestRoute> = z.input<Part<Route, 'body'>>;

/** The query string a route takes, as a client sends it. */
export type RestQuery<Route extends RestRoute> = z.input<Part<Route, 'querystring'>>;

/** The path parameters of a route (`{filename}` for `:filename`). */
export type RestParams<Route extends RestRoute> = z.input<Part<Route, 'params'>>;

/** The server-sent events of a route that describes them, as `{event, data}`. */
export type RestStreamEvent<Route extends RestRoute> = z.output<Part<Route, 'events'>>;

/** The body of every failure: `{status: "error", code, message, …}`. */
export type RestError = z.output<typeof ErrorSchema>;
