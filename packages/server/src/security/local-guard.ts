import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, ServerError } from '../errors.ts';
import { localized, requestLanguage } from '../language.ts';
import { noteRefusal } from '../request-log.ts';
import {
  apiTokenCookie,
  carriesApiToken,
  type LoginTickets,
  sameSecret,
  TOKEN_QUERY_PARAMETER,
} from './api-token.ts';

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
 * - With an API token (the API_TOKEN setting), every route but the two that check a secret of
 *   their own (`/mcp`, `POST /api/shutdown`) needs it — `Authorization: Bearer <token>` or the
 *   app's cookie — else 401 API_UNAUTHORIZED: another user of this computer can reach 127.0.0.1
 *   too. `GET /?token=<token or login ticket>` sets the cookie (HttpOnly, SameSite=Strict) and
 *   redirects to the address without it, so the token does not stay in the window's history.
 */
export interface LocalGuardOptions {
  /** The port the server answers on (read at each request: it may be 0 until listening). */
  port: () => number;
  /** Extra origins from the settings (read at each request, so a settings change applies at once). */
  extraOrigins: () => readonly string[];
  /** The API token every request must carry; empty: none (the default, as the original). */
  apiToken?: string;
  /** One-time tickets `GET /?token=` accepts besides the token (see api-token.ts). */
  loginTickets?: LoginTickets;
}

/** Origins the original desktop shell (Tauri) used. */
export const SHELL_ORIGINS = ['tauri://localhost', 'http://tauri.localhost'] as const;

/** Origins of the original client's development UI (its Vite server). */
const ORIGINAL_DEV_ORIGINS = ['http://localhost:1420', 'http://127.0.0.1:1420'] as const;

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
  'authorization',
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
    /** Refuses the request; its one log line (collapsed in a flood) names the reason. */
    const deny = (error: ServerError, details: Record<string, string | undefined> = {}) => {
      noteRefusal(request, error, { level: 'warn', details });
      return refuse(reply, error);
    };
    if (!isAllowedHost(request.headers.host, port)) {
      return deny(
        new ServerError(
          'HOST_NOT_ALLOWED',
          `This server only answers requests addressed to 127.0.0.1:${port}, localhost:${port} or [::1]:${port}.`,
        ),
        { host: request.headers.host },
      );
    }
    const origin = request.headers.origin;
    if (origin !== undefined) {
      const allowed = allowedOrigins(port, options.extraOrigins());
      if (!allowed.has(origin)) {
        return deny(
          new ServerError(
            'ORIGIN_NOT_ALLOWED',
            `Requests from ${origin} are not allowed. Add the origin to CORS_ORIGINS in the settings if you trust it.`,
            { hint: 'CORS_ORIGINS' },
          ),
          { origin },
        );
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
          return deny(
            new ServerError(
              'ORIGIN_NOT_ALLOWED',
              `Request headers not allowed: ${refused.join(', ')}.`,
            ),
            { origin },
          );
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
    } else {
      const site = request.headers['sec-fetch-site'];
      if (
        request.method !== 'GET' &&
        request.method !== 'HEAD' &&
        (site === 'cross-site' || site === 'same-site')
      ) {
        return deny(
          new ServerError('ORIGIN_NOT_ALLOWED', 'Requests sent by another site are not allowed.'),
          { site },
        );
      }
    }
    const token = options.apiToken ?? '';
    if (token === '' || checksOwnSecret(request)) return;
    const path = request.url.split('?')[0];
    if (request.method === 'GET' && path === '/' && request.url.includes('?')) {
      const address = new URL(request.url, 'http://127.0.0.1');
      const given = address.searchParams.get(TOKEN_QUERY_PARAMETER);
      if (given !== null) {
        if (!sameSecret(given, token) && !options.loginTickets?.redeem(given)) {
          return deny(unauthorized(port, true));
        }
        address.searchParams.delete(TOKEN_QUERY_PARAMETER);
        return reply
          .code(303)
          .header('set-cookie', apiTokenCookie(port, token))
          .header('cache-control', 'no-store')
          .header('location', `/${address.search}`)
          .send();
      }
    }
    if (!carriesApiToken(request.headers, port, token)) {
      reply.header('www-authenticate', 'Bearer realm="class-assistant-api"');
      return deny(unauthorized(port, false));
    }
  });
}

/**
 * Routes that check a secret of their own, each from an owner-only file: `/mcp` (the MCP token,
 * which MCP clients send as their bearer token) and `POST /api/shutdown` (the run's token).
 */
function checksOwnSecret(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  return route === '/mcp' || (route === '/api/shutdown' && request.method === 'POST');
}

const unauthorized = (port: number, address: boolean) =>
  new ServerError(
    'API_UNAUTHORIZED',
    address
      ? localized(
          `这个地址里的令牌不对或已经用过了。请从桌面启动器重新打开课堂助手，或打开 http://127.0.0.1:${port}/?token=<API_TOKEN 的值>。`,
          `The token in this address is wrong or was used already. Open Class Assistant again from the launcher, or open http://127.0.0.1:${port}/?token=<your API_TOKEN>.`,
        )
      : localized(
          `这个后端设置了 API_TOKEN：请求需要带 Authorization: Bearer <API_TOKEN>。浏览器请从桌面启动器打开课堂助手，或打开一次 http://127.0.0.1:${port}/?token=<API_TOKEN 的值>。`,
          `This backend has an API_TOKEN: send Authorization: Bearer <API_TOKEN>. In a browser, open Class Assistant from the launcher, or open http://127.0.0.1:${port}/?token=<your API_TOKEN> once.`,
        ),
    { hint: 'API_TOKEN' },
  );

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
