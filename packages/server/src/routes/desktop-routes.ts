import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DATA_FOLDER } from '../data-folder.ts';
import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import { LOGIN_TICKET_TTL_MS, sameSecret, TOKEN_QUERY_PARAMETER } from '../security/api-token.ts';
import { errors } from './schemas.ts';
import { serveUiFiles } from './ui-files.ts';

const LANDING_PAGE = (note: string) => `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><title>Class Assistant backend</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}</style></head>
<body><h1>Class Assistant backend</h1>
<p>课堂助手后端正在运行。The backend is running.</p>${note}
<ul><li><a href="/docs">/docs</a> — API documentation (try every route there)</li>
<li><a href="/api/health">/api/health</a> — status and what is not configured yet</li>
<li><a href="/api/events">/api/events</a> — live events (server-sent events)</li></ul>
</body></html>`;

async function hasIndex(folder: string): Promise<boolean> {
  try {
    return (await stat(join(folder, 'index.html'))).isFile();
  } catch {
    return false;
  }
}

/** The file in the data folder holding the run's shutdown token (see `startServer`). */
export const SHUTDOWN_TOKEN_FILE = DATA_FOLDER.shutdownToken.name;

/** Compares in constant time; a server without a token accepts none. */
function tokenMatches(expected: string | undefined, given: string | string[] | undefined): boolean {
  return expected !== undefined && typeof given === 'string' && sameSecret(given, expected);
}

/** POST /api/shutdown (HTTP 202). */
export const ShutdownSchema = z.object({ status: z.literal('stopping'), message: z.string() });

/** POST /api/login_ticket. */
export const LoginTicketSchema = z.object({
  status: z.literal('success'),
  ticket: z.string(),
  path: z.string().describe('The address to open, on this server.'),
  expires_in_s: z.number(),
});

/**
 * What the desktop app needs from its backend (docs/architecture.md, "Desktop"): its built web UI at `/`
 * (BuildAppOptions.uiDir; a landing page without one) and `POST /api/shutdown`, which asks the
 * process that owns the server to stop as on SIGTERM.
 */
export const desktopRoutes: FastifyPluginAsyncZod = async (app) => {
  const { options } = app.classAssistant;
  const uiDir = options.uiDir ? resolve(options.uiDir) : undefined;

  if (uiDir && (await hasIndex(uiDir))) {
    // Bundler output in assets/ carries a content hash: cache it for good; the page itself is
    // revalidated so a new build shows at the next load.
    serveUiFiles(app, uiDir, (path) =>
      /[\\/]assets[\\/]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache',
    );
    app.log.info({ uiDir }, 'serving the UI at /');
  } else {
    if (uiDir) app.log.warn({ uiDir }, 'no index.html in the UI folder: serving the landing page');
    const note = uiDir
      ? `<p>The UI folder <code>${uiDir.replace(/[<>&]/g, '')}</code> has no index.html: build it with <code>pnpm --filter @class-assistant/desktop build</code>.</p>`
      : '';
    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/html; charset=utf-8').send(LANDING_PAGE(note)),
    );
  }

  app.post(
    '/api/shutdown',
    {
      schema: {
        tags: ['system'],
        summary: 'Stop the backend gracefully',
        description:
          'Answers 202, then stops as on SIGTERM: a running class is stopped, every acknowledged line is in the transcript file, the log is flushed. The desktop launcher uses it to stop its backend, and a stale one, where signals cannot (Windows). It needs the `X-Shutdown-Token` header with this run’s token, which the backend writes to `<data folder>/_shutdown.token` (readable by its owner only): the API has no login, and another user of the computer can reach the loopback port but not that file (403 SHUTDOWN_FORBIDDEN). Like every route it only answers on loopback to the app’s own origin. 501 SHUTDOWN_UNAVAILABLE when the server was not started by the class-assistant-backend program (e.g. buildApp in a test).',
        headers: z.object({
          'x-shutdown-token': z
            .string()
            .optional()
            .describe('The content of <data folder>/_shutdown.token.'),
        }),
        response: {
          202: ShutdownSchema,
          ...errors(403, 501),
        },
      },
    },
    async (request, reply) => {
      const requestShutdown = options.requestShutdown;
      if (!requestShutdown) {
        throw new ServerError(
          'SHUTDOWN_UNAVAILABLE',
          'This server is embedded in another program, which stops it; it cannot stop itself.',
        );
      }
      if (!tokenMatches(options.shutdownToken, request.headers['x-shutdown-token'])) {
        throw new ServerError(
          'SHUTDOWN_FORBIDDEN',
          `POST /api/shutdown needs the X-Shutdown-Token header with the token in ${join(app.classAssistant.dataDir, SHUTDOWN_TOKEN_FILE)}.`,
          { field: 'x-shutdown-token' },
        );
      }
      request.log.info('shutdown requested over HTTP');
      // Answer first: the graceful stop closes this very connection.
      reply.raw.once('finish', () => setImmediate(requestShutdown));
      return reply.code(202).send({
        status: 'stopping' as const,
        message: 'The backend is stopping.',
      });
    },
  );

  app.post(
    '/api/login_ticket',
    {
      schema: {
        tags: ['system'],
        summary: 'A one-time address that lets a browser window in (with API_TOKEN set)',
        description: `With API_TOKEN set, answers a ticket valid once within ${LOGIN_TICKET_TTL_MS / 1000} s: opening \`/?token=<ticket>\` in a browser sets the app's cookie (HttpOnly, SameSite=Strict) and redirects to \`/\`. The launcher opens the app window this way, so the API token itself never appears on the browser's command line, which every user of the computer can read. Like every route it needs the API token; 409 API_TOKEN_NOT_SET when none is set (the API is open then).`,
        response: {
          200: LoginTicketSchema,
          ...errors(401, 409),
        },
      },
    },
    async () => {
      const { apiToken, loginTickets } = app.classAssistant;
      if (apiToken === '') {
        throw new ServerError(
          'API_TOKEN_NOT_SET',
          localized(
            '没有设置 API_TOKEN：直接打开 / 即可，不需要票据。',
            'No API_TOKEN is set: open / as it is, no ticket is needed.',
          ),
          { hint: 'API_TOKEN' },
        );
      }
      const ticket = loginTickets.issue();
      return {
        status: 'success' as const,
        ticket,
        path: `/?${TOKEN_QUERY_PARAMETER}=${ticket}`,
        expires_in_s: LOGIN_TICKET_TTL_MS / 1000,
      };
    },
  );
};
