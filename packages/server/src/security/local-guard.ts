import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, ServerError } from '../errors.ts';
import { requestLanguage } from '../language.ts';
import { noteRefusal } from '../request-log.ts';

/**
 * Guards a server that only its own UI should reach (docs/architecture.md, "Security"):
 * - DNS rebinding: the Host header must be the server's own loopback name and port
 *   (`127.0.0.1:<port>`, `localhost:<port>`, `[::1]:<port>`), else 403 HOST_NOT_ALLOWED.
 * - Cross-origin: a request carrying an Origin that is not allowed is refused with 403
 *   ORIGIN_NOT_ALLOWED whatever its method — CORS alone only hides responses, it does not stop a
 *   form POST or a WebSocket, both of which a hostile page can send. Allowed: the app's own
 *   origins, the original client's (`tauri://localhost`, `http://tauri.localhost`, and its
 *   development UI's `http://localhost:1420`, `http://127.0.0.1:1420`) and CORS_ORIGINS.
 * - Allowed origins get `Access-Control-Allow-Origin: <origin>` (never `*`) and preflight answers.
 * - A state-changing request without Origin whose `Sec-Fetch-Site` says another site sent it is
 *   refused too (older browsers omit Origin on some requests).
 */
export interface LocalGuardOptions {
  /** The port the server answers on (read at each request: it may be 0 until listening). */
  port: () => number;
  /** Extra origins from the settings (read at each request, so a settings change applies at once). */
  extraOrigins: () => readonly string[];
}

/** Origins the original desktop shell (Tauri) used. */
export const SHELL_ORIGINS = ['tauri://localhost', 'http://tauri.localhost'] as const;

/** Origins of the original client's development UI (its Vite server). */
export const ORIGINAL_DEV_ORIGINS = ['http://localhost:1420', 'http://127.0.0.1:1420'] as const;

/** Every origin of the original desktop client: its shell and its development UI. */
export const ORIGINAL_CLIENT_ORIGINS: readonly string[] = [
  ...SHELL_ORIGINS,
  ...ORIGINAL_DEV_ORIGINS,
];

/**
 * True for a request from the original desktop client (its Origin), which ignores the body of
 * any answer that is not HTTP 200.
 */
export function isOriginalClient(request: { headers: { origin?: string | undefined } }): boolean {
  return (
    request.headers.origin !== undefined && ORIGINAL_CLIENT_ORIGINS.includes(request.headers.origin)
  );
}

const ALLOWED_METHODS = 'GET, POST, OPTIONS';
const ALLOWED_HEADERS = [
  'content-type',
  'last-event-id',
  'accept',
  'accept-language',
  'cache-control',
  'x-requested-with',
];

/** True when `host` names this server on loopback at `port`. */
export function isAllowedHost(host: string | undefined, port: number): boolean {
  if (!host) return false;
  const match = /^(127\.0\.0\.1|localhost|\[::1\])(?::(\d{1,5}))?$/i.exec(host);
  if (!match) return false;
  const hostPort = match[2] === undefined ? 80 : Number(match[2]);
  return hostPort === port;
}

/** Every origin allowed to call the API. */
export function allowedOrigins(port: number, extra: readonly string[]): Set<string> {
  return new Set([
    `http://127.0.0.1:${port}`,
    `http://localhost:${port}`,
    `http://[::1]:${port}`,
    ...ORIGINAL_CLIENT_ORIGINS,
    ...extra,
  ]);
}

/** Installs the guard as the first onRequest hook of `app`. */
export function installLocalGuard(app: FastifyInstance, options: LocalGuardOptions): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const port = options.port();
    if (!isAllowedHost(request.headers.host, port)) {
      const error = new ServerError(
        'HOST_NOT_ALLOWED',
        403,
        `This server only answers requests addressed to 127.0.0.1:${port}, localhost:${port} or [::1]:${port}.`,
      );
      noteRefusal(request, error, { level: 'warn', details: { host: request.headers.host } });
      return refuse(reply, error);
    }
    const origin = request.headers.origin;
    if (origin !== undefined) {
      const allowed = allowedOrigins(port, options.extraOrigins());
      if (!allowed.has(origin)) {
        const error = new ServerError(
          'ORIGIN_NOT_ALLOWED',
          403,
          `Requests from ${origin} are not allowed. Add the origin to CORS_ORIGINS in the settings if you trust it.`,
          { hint: 'CORS_ORIGINS' },
        );
        noteRefusal(request, error, { level: 'warn', details: { origin } });
        return refuse(reply, error);
      }
      reply.header('access-control-allow-origin', origin);
      reply.header('vary', 'Origin');
      if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
        const requested = String(request.headers['access-control-request-headers'] ?? '')
          .split(',')
          .map((header) => header.trim().toLowerCase())
          .filter((header) => header !== '');
        const refused = requested.filter((header) => !ALLOWED_HEADERS.includes(header));
        if (refused.length > 0) {
          const error = new ServerError(
            'ORIGIN_NOT_ALLOWED',
            403,
            `Request headers not allowed: ${refused.join(', ')}.`,
          );
          noteRefusal(request, error, { level: 'warn', details: { origin } });
          return refuse(reply, error);
        }
        reply.header('access-control-allow-methods', ALLOWED_METHODS);
        if (requested.length > 0)
          reply.header('access-control-allow-headers', requested.join(', '));
        reply.header('access-control-max-age', '600');
        if (request.headers['access-control-request-private-network'] === 'true') {
          reply.header('access-control-allow-private-network', 'true');
        }
        return reply.code(204).send();
      }
      return;
    }
    const site = request.headers['sec-fetch-site'];
    if (
      request.method !== 'GET' &&
      request.method !== 'HEAD' &&
      (site === 'cross-site' || site === 'same-site')
    ) {
      const error = new ServerError(
        'ORIGIN_NOT_ALLOWED',
        403,
        'Requests sent by another site are not allowed.',
      );
      noteRefusal(request, error, { level: 'warn', details: { site } });
      return refuse(reply, error);
    }
  });
}

/**
 * Answers a request with an error, in its language, and closes its connection once the answer
 * is out: a refused client (a foreign page, one subscriber too many) keeps nothing of the
 * server's — no idle keep-alive connection with its parser and buffers, which a flood of
 * thousands of refused requests would otherwise leave behind.
 */
export function refuse(reply: FastifyReply, error: ServerError): FastifyReply {
  reply.header('connection', 'close');
  if (reply.request.headers.upgrade) {
    // A refused WebSocket upgrade owns its socket: close it once the answer is out, or it
    // would stay open (and keep the server from closing).
    const socket = reply.request.raw.socket;
    reply.raw.once('finish', () => socket.destroy());
  }
  return reply
    .code(error.statusCode)
    .type('application/json')
    .send(errorBody(error, requestLanguage(reply.request)));
}
