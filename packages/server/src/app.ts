import { mkdir } from 'node:fs/promises';
import { TranscriptStore } from '@class-assistant/transcript-core';
import fastifyMultipart from '@fastify/multipart';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { onDemandAgent } from './agent/on-demand.ts';
import type { AppServices, BuildAppOptions } from './app-services.ts';
import { createAppCapture } from './audio/app-capture.ts';
import { captureFormat } from './audio/audio-source.ts';
import { trackConnections } from './connections.ts';
import { dataPaths } from './data-folder.ts';
import { errorBody, isServerError, ServerError, type ServerErrorCode } from './errors.ts';
import { createAlertSockets } from './events/alert-sockets.ts';
import { createEventHub } from './events/event-hub.ts';
import { createImportService } from './import/import-service.ts';
import { localized, requestLanguage } from './language.ts';
import { openLibrary } from './library/library.ts';
import { classGlossary } from './llm/caption-glossary.ts';
import { createCaptionTranslator } from './llm/caption-translator.ts';
import { createClassAi } from './llm/class-ai.ts';
import { createLlmService } from './llm/llm-client.ts';
import { createPromptLoader } from './llm/prompts.ts';
import { createCiteStore } from './material/cite-store.ts';
import { createNotesStore } from './material/notes-store.ts';
import { DEFAULT_PARSE_LIMITS } from './material/parse-material.ts';
import { loadMcpToken } from './mcp/mcp-token.ts';
import { createModelManager } from './models/model-manager.ts';
import { createClassRecord } from './monitor/class-record.ts';
import { createKeywordService } from './monitor/keyword-service.ts';
import { createMonitor } from './monitor/monitor.ts';
import { defaultRecognizerDefinitions } from './recognizers/default-recognizers.ts';
import { removeStaleHotwordsFolders } from './recognizers/hotwords-folder.ts';
import { createRecognizerRegistry } from './recognizers/recognizer.ts';
import { noteRefusal, QuietRequestLog } from './request-log.ts';
import { aiRoutes } from './routes/ai-routes.ts';
import { askRoutes } from './routes/ask-routes.ts';
import { audioSourcesRoutes } from './routes/audio-sources-routes.ts';
import { CAPTURE_SOCKET_DOCUMENTATION, captureRoutes } from './routes/capture-routes.ts';
import { connectionTestRoutes } from './routes/connection-test-routes.ts';
import { desktopRoutes } from './routes/desktop-routes.ts';
import { installApiDocs, ZOD_COMPILERS } from './routes/docs-routes.ts';
import { importRoutes } from './routes/import-routes.ts';
import { libraryRoutes } from './routes/library-routes.ts';
import { liveRoutes } from './routes/live-routes.ts';
import { materialRoutes, UPLOAD_NOT_MULTIPART } from './routes/material-routes.ts';
import { mcpRoutes } from './routes/mcp-routes.ts';
import { modelsRoutes } from './routes/models-routes.ts';
import { monitorRoutes } from './routes/monitor-routes.ts';
import { notesRoutes } from './routes/notes-routes.ts';
import { webSocketDocumentation } from './routes/schemas.ts';
import { settingsDefinitionsRoutes } from './routes/settings-definitions-routes.ts';
import { settingsRoutes } from './routes/settings-routes.ts';
import { systemRoutes } from './routes/system-routes.ts';
import { maskSecretsInText } from './secret-rules.ts';
import { createLoginTickets } from './security/api-token.ts';
import { installLocalGuard } from './security/local-guard.ts';
import { createSettingsStore } from './settings/settings-store.ts';
import { SERVER_VERSION } from './version.ts';

/**
 * Builds the Class Assistant backend: every route of the original client (docs/architecture.md,
 * "HTTP API") plus the live event
 * stream, the transcript endpoint and /docs. Call `listen({ host: '127.0.0.1', port })` to
 * serve it, `inject()` to test it; `close()` stops a running class and flushes the transcript.
 *
 * @example
 * const app = await buildApp({ dataDir: './data', envFile: './.env' });
 * await app.listen({ host: '127.0.0.1', port: 8765 });
 */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const now = options.now ?? (() => new Date());
  const requestLog = new QuietRequestLog();
  const app = Fastify({
    ...(typeof options.logger === 'object'
      ? { loggerInstance: options.logger }
      : { logger: options.logger ?? false }),
    // The UI and its streams are long-lived; a hung handler is cut by the LLM timeouts instead.
    requestTimeout: 0,
    logController: requestLog,
    bodyLimit: 1024 * 1024,
    forceCloseConnections: 'idle',
    // Every route validates and serializes with zod: fastify's default compilers (ajv,
    // fast-json-stringify) are never loaded.
    schemaController: { compilersFactory: ZOD_COMPILERS },
  }) as unknown as FastifyInstance;
  acceptEmptyJsonBodies(app);
  const connections = trackConnections(app.server);

  const paths = dataPaths(options.dataDir);
  for (const folder of [paths.root, paths.cite, paths.summaries]) {
    await mkdir(folder, { recursive: true });
  }
  const settings = await createSettingsStore({
    path: options.envFile,
    logger: app.log,
    ...(options.filePrivacy ? { privacy: options.filePrivacy } : {}),
    ...(options.environment ? { environment: options.environment } : {}),
  });
  // A hand-edited API_TOKEN that is not valid would leave the API open that its owner meant to
  // close: refuse to start instead (a save through the API is checked before it is written).
  const tokenProblem = settings.problems().find((problem) => problem.key === 'API_TOKEN');
  if (tokenProblem) {
    settings.close();
    throw new ServerError(
      'SETTINGS_INVALID',
      `${tokenProblem.message}. The backend does not start with the API open while API_TOKEN is set: fix or empty it in ${options.envFile}.`,
      { field: 'API_TOKEN' },
    );
  }
  // A hand edit of the file applies like a save (names of changed keys only: never values).
  settings.watch((changed) => {
    app.log.info({ changed }, 'the settings file was edited on disk');
    // The student's name and number apply to a running class at once.
    monitor.refreshKeywords();
  });
  const hub = createEventHub();
  const cite = createCiteStore(options.dataDir);
  const notes = createNotesStore(options.dataDir);
  const keywords = createKeywordService(options.dataDir, () => {
    const { studentName, studentNumberDigits } = settings.current();
    return { name: studentName, digits: studentNumberDigits };
  });
  await keywords.load(settings.current().keywordHomophones);
  const store = await TranscriptStore.open(paths.liveTranscript, { now });
  const llm = createLlmService(settings.current, options.llmClientFactory);
  const ai = createClassAi(llm, options.promptsDir ? { promptsDir: options.promptsDir } : {});
  const library = await openLibrary({
    dataDir: options.dataDir,
    store,
    logger: app.log,
    now,
    onChange: (classId, change) => hub.publish('library.changed', { class_id: classId, change }),
  });
  const classAgent = onDemandAgent(
    {
      dataDir: options.dataDir,
      index: library,
      currentPage: () => monitor.status().current_page ?? null,
    },
    {
      llm,
      prompt: createPromptLoader(options.promptsDir),
      llmTimeoutMs: () => settings.current().llmTimeoutMs,
      now,
      logger: app.log,
    },
  );
  const mcpToken = await loadMcpToken(options.dataDir, options.filePrivacy ?? {}, app.log);
  const record = createClassRecord({
    notes,
    store,
    cite,
    ai,
    now,
    onNotes: (notes) => library.saveLiveNotes(notes.summary),
    marks: () => library.liveMarks(),
    lineExtras: () => library.liveLineExtras(),
    currentPage: () => monitor.status().current_page ?? null,
  });
  const recognizers =
    options.recognizers ??
    createRecognizerRegistry(
      defaultRecognizerDefinitions(
        options.modelCatalogue ? { local: { catalogue: options.modelCatalogue } } : {},
      ),
    );
  const models = createModelManager({
    dataDir: options.dataDir,
    ...(options.modelCatalogue ? { catalogue: options.modelCatalogue } : {}),
    ...(options.modelFreeSpace ? { freeSpace: options.modelFreeSpace } : {}),
    baseUrl: () => settings.current().modelsBaseUrl,
    onEvent(event) {
      if (event.type === 'progress') {
        hub.publish('model.progress', {
          id: event.id,
          name: event.name,
          received_bytes: event.received,
          total_bytes: event.total ?? null,
          source: event.source?.id ?? null,
          source_label: event.source?.label ?? null,
          notice: event.notice ?? null,
        });
      } else if (event.type === 'installed') {
        hub.publish('model.installed', { id: event.id, name: event.name, path: event.path });
      } else {
        hub.publish('model.failed', {
          id: event.id,
          name: event.name,
          code: event.code,
          message: event.message,
          messages: event.localized ?? null,
          technical: event.technical ? maskSecretsInText(event.technical) : null,
        });
      }
    },
  });
  await models.prepare();
  await removeStaleHotwordsFolders(options.dataDir);
  const capture = createAppCapture({
    format: () => captureFormat(settings.current()),
    onStatus: (status) => hub.publish('capture.changed', status),
    logger: app.log,
  });
  const monitor = createMonitor({
    dataDir: options.dataDir,
    settings,
    recognizers,
    hub,
    cite,
    keywords,
    store,
    summarize: (previousSummary, entries, context) =>
      ai.fold(
        previousSummary,
        entries.map((entry) => (entry.time ? `[${entry.time}] ${entry.text}` : entry.text)),
        { signal: context.signal },
      ),
    summarizeReady: llm.isConfigured,
    logger: app.log,
    appCapture: capture,
    classHooks: library,
  });
  const translator = createCaptionTranslator({
    hub,
    llm,
    settings: settings.current,
    prompt: createPromptLoader(options.promptsDir),
    liveClassId: library.liveClassId,
    running: () => monitor.status().is_monitoring,
    translationOf: (lineId) => library.lineExtras?.(lineId).translation ?? null,
    keepTranslation: (classId, lineId, translation) =>
      library.setClassLineExtras(classId, lineId, { translation }),
    glossary: classGlossary({
      classId: library.liveClassId,
      student: () => settings.current().studentName,
      keywords: () => keywords.view().custom,
      material: cite.readCurrent,
    }),
    logger: app.log,
  });
  const imports = await createImportService({
    dataDir: options.dataDir,
    monitor,
    library,
    hub,
    record,
    llmConfigured: llm.isConfigured,
    logger: app.log,
    now,
  });
  // A class this backend's previous run died in (no clean stop) goes on by itself. Queued before
  // any request can start another class; a failure is kept in the status for the UI. A
  // recording's class is kept ended instead: its import resumes it (POST /api/import/resume).
  const interrupted = library.interrupted();
  if (interrupted && interrupted.id === imports.interruptedClassId()) {
    void library
      .keepInterrupted()
      .catch((error: unknown) =>
        app.log.error({ classId: interrupted.id, err: error }, 'keeping an import’s class failed'),
      );
  } else if (interrupted) {
    void monitor
      .continueClass({
        courseName: interrupted.courseName,
        citeFilename: interrupted.materialName,
        startedAt: interrupted.startedAt,
        lastAliveAt: interrupted.lastAliveAt,
      })
      .then(
        () =>
          app.log.warn(
            { classId: interrupted.id },
            `class ${interrupted.id} was interrupted by the backend stopping unexpectedly; it goes on`,
          ),
        (error: unknown) =>
          app.log.error(
            { classId: interrupted.id, err: error },
            `class ${interrupted.id} was interrupted and could not go on; it is kept with its lines`,
          ),
      );
  }
  const configuredPort = options.port ?? 8765;
  const services: AppServices = {
    options,
    dataDir: options.dataDir,
    settings,
    hub,
    cite,
    notes,
    keywords,
    store,
    llm,
    ai,
    record,
    library,
    lectures: classAgent.lectures,
    classTools: classAgent.classTools,
    agent: classAgent.agent,
    mcpToken,
    apiToken: settings.current().apiToken,
    loginTickets: createLoginTickets(),
    monitor,
    imports,
    capture,
    recognizers,
    models,
    now,
    startedAt: new Date(),
    port() {
      const address = app.server.address();
      return address && typeof address === 'object' ? address.port : configuredPort;
    },
    parseLimits: options.parseLimits ?? DEFAULT_PARSE_LIMITS,
    sseHeartbeatMs: options.sseHeartbeatMs ?? 400,
    streams: new Set(),
    alertSockets: createAlertSockets(),
  };
  app.decorate('classAssistant', services);

  installLocalGuard(app, {
    port: services.port,
    extraOrigins: () => settings.current().corsOrigins,
    apiToken: services.apiToken,
    loginTickets: services.loginTickets,
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = toServerError(error);
    if (known.code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'internal error');
    else noteRefusal(request, known);
    return reply
      .code(known.statusCode)
      .type('application/json')
      .send(errorBody(known, requestLanguage(request)));
  });
  app.setNotFoundHandler((request, reply) => {
    const error = new ServerError(
      'NOT_FOUND',
      `No route ${request.method} ${request.url.split('?')[0]}. See /docs for the API.`,
    );
    noteRefusal(request, error);
    return reply
      .code(404)
      .type('application/json')
      .send(errorBody(error, requestLanguage(request)));
  });

  installApiDocs(app, {
    version: options.appVersion ?? SERVER_VERSION,
    versionNote: options.appVersion
      ? `Class Assistant ${options.appVersion} (backend package ${SERVER_VERSION}). `
      : '',
    address() {
      const address = app.server.address();
      return address && typeof address === 'object'
        ? { host: address.address, port: address.port }
        : { host: '127.0.0.1', port: configuredPort };
    },
    extraPaths: {
      '/api/ws/alerts': ALERTS_SOCKET_DOCUMENTATION,
      '/api/ws/capture': CAPTURE_SOCKET_DOCUMENTATION,
    },
  });
  await app.register(fastifyWebsocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(fastifyMultipart, {
    limits: { files: 1, fields: 10, parts: 20, fieldSize: 4096, fileSize: 500 * 1024 * 1024 },
  });

  await app.register(systemRoutes);
  await app.register(audioSourcesRoutes);
  await app.register(settingsRoutes);
  await app.register(settingsDefinitionsRoutes);
  await app.register(connectionTestRoutes);
  await app.register(materialRoutes);
  await app.register(monitorRoutes);
  await app.register(modelsRoutes);
  await app.register(aiRoutes);
  await app.register(liveRoutes);
  await app.register(captureRoutes);
  await app.register(notesRoutes);
  await app.register(desktopRoutes);
  await app.register(importRoutes);
  await app.register(libraryRoutes);
  await app.register(askRoutes);
  await app.register(mcpRoutes);

  app.addHook('preClose', async () => {
    // A stopping backend answers the AI requests in flight at once instead of waiting for them.
    llm.close();
    for (const end of services.streams) end();
    services.streams.clear();
    // After the WebSocket server's own preClose (registered earlier, so run before this one).
    connections.closeWhenAnswered();
  });
  app.addHook('onClose', async () => {
    // The refusals counted in the last second go to the log before it closes.
    requestLog.refused.flush();
    settings.close();
    await models.close();
    imports.close();
    translator.close();
    await monitor.close();
    capture.close();
    await library.close();
    await store.close();
  });
  return app;
}

const ALERTS_SOCKET_DOCUMENTATION = webSocketDocumentation(
  '/api/ws/alerts',
  'Keyword alerts (WebSocket, the original client’s channel)',
  'Upgrade to a WebSocket (ws://127.0.0.1:8765/api/ws/alerts). Send the text `ping`, receive `pong`. Each keyword alert arrives as JSON text: `{"type":"keyword_alert","level":"danger"|"warning","keywords":[…],"text":"…","timestamp":"HH:MM:SS","for_you":true|false}` (danger: roll call and questions; warning: homework, exams; `for_you`: the line names the student — STUDENT_NAME, a homophone of it, or STUDENT_NUMBER_DIGITS — an extra field the original client ignores). A start_monitor that fails is reported the same way (level `warning`, keywords `["启动监控失败"]` or `["Start failed"]`, the reason as text, in the socket’s Accept-Language), also to sockets opened up to 15 s later: the original client shows these messages and does not read failed answers. Refused with 403 from a foreign Origin or Host, and with 503 TOO_MANY_SUBSCRIBERS beyond 64 open sockets.',
  { '503': { description: '64 alert sockets are open already (TOO_MANY_SUBSCRIBERS).' } },
);

/**
 * An empty body sent as `application/json` means "no body" on every route, as in the original
 * FastAPI backend (clients such as the original's `fetch(url, {method: 'POST', headers})` send
 * one). Anything else goes through fastify's own JSON parser, prototype-poisoning checks included;
 * a route that needs a body still names `body` in its validation error.
 */
function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, text, done);
  });
}

/** Maps any error a route can meet to a {@link ServerError} (never leaking a stack trace). */
/** The code of a client error fastify raised itself; any other 4xx is a VALIDATION_FAILED (400). */
const CLIENT_ERROR_CODES: Partial<Record<number, ServerErrorCode>> = {
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'BODY_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

function toServerError(error: FastifyError): ServerError {
  if (isServerError(error)) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    const context = (error as { validationContext?: string }).validationContext ?? 'body';
    const fields = error.validation.map((issue) => {
      const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
      const field = path === '' ? context : `${context}.${path}`;
      return { field, message: `${field}: ${issue.message}` };
    });
    return new ServerError('VALIDATION_FAILED', fields.map((field) => field.message).join('; '), {
      field: fields[0]?.field ?? context,
      fields,
    });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ServerError(
        'VALIDATION_FAILED',
        `The request body is not valid JSON: ${error.message}`,
        {
          field: 'body',
        },
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ServerError(
        'BODY_TOO_LARGE',
        'The request body is too large (at most 1 MiB of JSON).',
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ServerError(
        'UNSUPPORTED_MEDIA_TYPE',
        `Unsupported content type: ${error.message}`,
        {
          field: 'content-type',
        },
      );
    case 'FST_REQ_FILE_TOO_LARGE':
      return new ServerError(
        'UPLOAD_TOO_LARGE',
        localized(
          '文件超过了 UPLOAD_MAX_MB 允许的大小。',
          'The file is larger than UPLOAD_MAX_MB allows.',
        ),
        { field: 'file', hint: 'UPLOAD_MAX_MB' },
      );
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return UPLOAD_NOT_MULTIPART;
    case 'FST_FILES_LIMIT':
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return new ServerError(
        'UPLOAD_TOO_MANY_FILES',
        localized(
          '每次只能上传一个文件（字段 "file"）。',
          'Upload one file per request (field "file").',
        ),
        { field: 'file' },
      );
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return new ServerError(CLIENT_ERROR_CODES[status] ?? 'VALIDATION_FAILED', error.message);
  }
  return new ServerError(
    'INTERNAL_ERROR',
    'Internal error; the server log has the details.',
    {},
    { cause: error },
  );
}
