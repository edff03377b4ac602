// The opt-in API token (the API_TOKEN setting): how a request carries it, how it is compared, and
// the one-time tickets the launcher puts in the app window's first address instead of the token.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The query parameter of the app's first address (`/?token=…`). */
export const TOKEN_QUERY_PARAMETER = 'token';

/** How long a login ticket may wait for its window. */
export const LOGIN_TICKET_TTL_MS = 60_000;

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * True when `given` is `expected`, compared in constant time (of the digests, so the length of
 * the expected secret does not show either). An empty secret matches nothing.
 */
export function sameSecret(given: string | undefined, expected: string): boolean {
  return (
    given !== undefined &&
    given !== '' &&
    expected !== '' &&
    timingSafeEqual(digest(given), digest(expected))
  );
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer[ \t]+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}

/**
 * The name of the cookie holding the API token. Browsers share cookies between the ports of one
 * host, so the port is part of the name: two backends on different ports keep their own.
 */
function apiTokenCookieName(port: number): string {
  return `class_assistant_token_${port}`;
}

/** The value of cookie `name` in a `Cookie` header. */
function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) {
      return part.slice(separator + 1).trim();
    }
  }
  return undefined;
}

/**
 * The `Set-Cookie` value that lets a browser window in: HttpOnly (page scripts never see it),
 * SameSite=Strict (another site's page cannot make the browser send it), for every path, and
 * kept for the browser session only.
 */
export function apiTokenCookie(port: number, token: string): string {
  return `${apiTokenCookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}

/** True when a request carries the API token as a bearer header or as the app's cookie. */
export function carriesApiToken(
  headers: { authorization?: string | undefined; cookie?: string | undefined },
  port: number,
  token: string,
): boolean {
  return (
    sameSecret(bearerToken(headers.authorization), token) ||
    sameSecret(cookieValue(headers.cookie, apiTokenCookieName(port)), token)
  );
}

/**
 * One-time tickets for the app window's first address. A browser's command line can be read by
 * every user of the computer (`ps`), so the launcher does not put the API token there: it asks
 * for a ticket (with the token), opens `/?token=<ticket>`, and the backend trades the ticket for
 * the cookie once. A used or expired ticket is worth nothing.
 */
export interface LoginTickets {
  /** A new ticket, valid once within {@link LOGIN_TICKET_TTL_MS}. */
  issue(): string;
  /** True (once) for a ticket issued and not used or expired yet. */
  redeem(ticket: string): boolean;
}

/** Tickets kept in memory (a restarted backend has none). */
export function createLoginTickets(now: () => number = Date.now): LoginTickets {
  const tickets = new Map<string, number>();
  const forgetExpired = () => {
    for (const [ticket, expires] of tickets) if (expires <= now()) tickets.delete(ticket);
  };
  return {
    issue() {
      forgetExpired();
      const ticket = randomBytes(24).toString('base64url');
      tickets.set(ticket, now() + LOGIN_TICKET_TTL_MS);
      return ticket;
    },
    redeem(ticket) {
      forgetExpired();
      for (const known of tickets.keys()) {
        if (sameSecret(ticket, known)) {
          tickets.delete(known);
          return true;
        }
      }
      return false;
    },
  };
}
