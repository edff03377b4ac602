/**
 * The sockets of `WS /api/ws/alerts`, the original desktop client's alert channel: how many are
 * open (they are capped), the language each one's page asked for, and the notices sent to them.
 * Besides keyword alerts (forwarded from the event hub by the route), a notice reaches the
 * original client here when something it cannot show otherwise went wrong — a start_monitor that
 * failed, whose answer the client does not read. The client shows every `keyword_alert` message
 * it receives (level, keywords, text), so a notice is one of those.
 */
import type { Language } from '../language.ts';
import type { KeywordAlertPayload } from './live-events.ts';

/** The socket operations the registry needs (a `ws` WebSocket has them). */
interface AlertSocket {
  readonly readyState: number;
  readonly OPEN: number;
  send(data: string): void;
}

/** Open alert sockets and the notices for them. */
export interface AlertSockets {
  /** Sockets open now. */
  readonly size: number;
  /** Most sockets open at once; more are refused (503). */
  readonly limit: number;
  /** Registers an open socket; returns its removal. A recent notice is sent to it at once. */
  add(socket: AlertSocket, language: Language): () => void;
  /** Sends `message` to every open socket; returns how many got it. */
  send(message: KeywordAlertPayload): number;
  /**
   * Sends a notice, in each socket's language, to every open socket — and to sockets opened
   * within `NOTICE_REPLAY_MS` afterwards (a client that opens its socket while its request is
   * still being answered). Returns how many got it now.
   */
  notice(message: (language: Language) => KeywordAlertPayload): number;
  /** Forgets the pending notice (the failure it reported is over). */
  clearNotice(): void;
}

/** How long a notice is still delivered to sockets that open after it. */
const NOTICE_REPLAY_MS = 15_000;

/** Default cap of open sockets. */
const DEFAULT_ALERT_SOCKET_LIMIT = 64;

/** Creates the registry. */
export function createAlertSockets(
  options: { limit?: number; now?: () => number } = {},
): AlertSockets {
  const limit = options.limit ?? DEFAULT_ALERT_SOCKET_LIMIT;
  const now = options.now ?? Date.now;
  const sockets = new Map<AlertSocket, Language>();
  let pending: { at: number; message: (language: Language) => KeywordAlertPayload } | undefined;

  const deliver = (socket: AlertSocket, message: KeywordAlertPayload): boolean => {
    if (socket.readyState !== socket.OPEN) return false;
    try {
      socket.send(JSON.stringify(message));
      return true;
    } catch {
      return false;
    }
  };

  return {
    get size() {
      return sockets.size;
    },
    limit,
    add(socket, language) {
      sockets.set(socket, language);
      if (pending && now() - pending.at <= NOTICE_REPLAY_MS) {
        deliver(socket, pending.message(language));
      }
      return () => sockets.delete(socket);
    },
    send(message) {
      let count = 0;
      for (const socket of sockets.keys()) if (deliver(socket, message)) count += 1;
      return count;
    },
    notice(message) {
      pending = { at: now(), message };
      let count = 0;
      for (const [socket, language] of sockets) {
        if (deliver(socket, message(language))) count += 1;
      }
      return count;
    },
    clearNotice() {
      pending = undefined;
    },
  };
}
