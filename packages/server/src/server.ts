import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { BuildAppOptions } from './app-services.ts';
import { packageFile } from './assets.ts';
import type { CliOptions } from './cli-options.ts';
import { dataPaths } from './data-folder.ts';
import { createProcessLogger } from './logging.ts';
import { configurationReport } from './routes/system-routes.ts';
import { createPrivateFile } from './security/private-file.ts';
import { createSettingsStore } from './settings/settings-store.ts';
import { SERVER_VERSION } from './version.ts';

/** A running backend process. */
export interface RunningServer {
  app: FastifyInstance;
  url: string;
  /** Stops monitoring, flushes the transcript, closes the server and the log. */
  close(): Promise<void>;
}

/** Raised when the backend cannot start (port taken, folder not writable). */
export class StartupError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
    this.code = code;
  }
}

/**
 * Starts the backend as the bin does: creates the settings file from `.env.example` when it is
 * missing, logs startup diagnostics (what is not configured yet) to the console and to
 * `<data>/_startup.log`, and listens on a loopback address.
 *
 * @example
 * const server = await startServer({ host: '127.0.0.1', port: 8765, dataDir: './data', envFile: './.env' });
 * await server.close();
 */
export async function startServer(
  options: CliOptions,
  extra: Partial<BuildAppOptions> & { console?: NodeJS.WritableStream } = {},
): Promise<RunningServer> {
  const { console: consoleStream, ...appOptions } = extra;
  const privacy = appOptions.filePrivacy ?? {};
  // Warnings from before the logger exists (it needs the settings' LOG_LEVEL).
  const early: Array<{ details: object; message: string | undefined }> = [];
  const earlyLogger = {
    warn: (details: object, message?: string) => early.push({ details, message }),
  };
  let createdEnvFile = false;
  try {
    await stat(options.envFile);
  } catch {
    await mkdir(dirname(options.envFile), { recursive: true });
    // It will hold API keys: readable by its owner only (copyFile would give the example's 0644,
    // or on Windows the folder's permissions).
    try {
      await createPrivateFile(
        options.envFile,
        await readFile(packageFile('.env.example')),
        privacy,
        earlyLogger,
      );
      createdEnvFile = true;
    } catch (error) {
      // Created meanwhile by another process: use that one.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const settings = await createSettingsStore({
    path: options.envFile,
    environment: process.env,
    privacy,
  });
  // The original product's API_PORT applies when the command line names no port.
  const port = options.portFromSettings ? settings.current().apiPort : options.port;
  const { logger, flush } = createProcessLogger({
    level: settings.current().logLevel,
    file: dataPaths(options.dataDir).startupLog,
    ...(consoleStream ? { console: consoleStream } : {}),
  });
  for (const warning of early) logger.warn(warning.details, warning.message);
  logger.info(
    {
      version: SERVER_VERSION,
      ...(options.appVersion ? { appVersion: options.appVersion } : {}),
      ...(options.launcherPid ? { launcherPid: options.launcherPid } : {}),
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    'Class Assistant backend starting',
  );
  logger.info(
    { dataDir: options.dataDir, settingsFile: options.envFile, createdEnvFile },
    'folders',
  );
  // A new secret each run for POST /api/shutdown (see BuildAppOptions.shutdownToken).
  const shutdownToken = appOptions.shutdownToken ?? randomBytes(32).toString('base64url');
  const tokenFile = dataPaths(options.dataDir).shutdownToken;
  let app: FastifyInstance;
  try {
    app = await buildApp({
      dataDir: options.dataDir,
      envFile: options.envFile,
      environment: process.env,
      port,
      logger,
      shutdownToken,
      ...(options.uiDir ? { uiDir: options.uiDir } : {}),
      ...(options.appVersion ? { appVersion: options.appVersion } : {}),
      ...(options.launcherPid ? { launcherPid: options.launcherPid } : {}),
      ...appOptions,
    });
    await app.listen({ host: options.host, port });
    // Only once the port is ours: a second backend on the same data folder that cannot listen
    // must not replace the token of the one that runs.
    // Readable by this user only (0600; on Windows restricted before the token goes in).
    await rm(tokenFile, { force: true });
    await createPrivateFile(tokenFile, shutdownToken, privacy, logger);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message =
      code === 'EADDRINUSE'
        ? `Port ${port} is already in use: another Class Assistant backend may still be running. Stop it (or free the port) or start with --port.`
        : code === 'EACCES'
          ? `Not allowed to use ${options.host}:${port} or to write ${options.dataDir}.`
          : `The backend could not start: ${(error as Error).message}`;
    logger.fatal({ err: error }, message);
    await flush();
    throw new StartupError(code ?? 'STARTUP_FAILED', message, { cause: error });
  }
  const report = await configurationReport(app.classAssistant);
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${app.classAssistant.port()}`;
  logger.info(
    {
      asrMode: report.asr.mode,
      asrReady: report.asr.available,
      llmConfigured: report.llm.configured,
    },
    'configuration',
  );
  for (const problem of report.not_configured) logger.warn(`not configured: ${problem}`);
  logger.info(`ready: ${url} (API docs: ${url}/docs)`);
  return {
    app,
    url,
    async close() {
      logger.info('shutting down: stopping monitoring and flushing the transcript');
      // The token dies with this run (unless another backend has written its own since).
      if ((await readFile(tokenFile, 'utf8').catch(() => '')) === shutdownToken) {
        await rm(tokenFile, { force: true });
      }
      await app.close();
      logger.info('stopped');
      await flush();
    },
  };
}
