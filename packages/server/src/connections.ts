// The connections of the backend's HTTP server, so that stopping it does not wait on them.
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** What {@link trackConnections} gives the server's owner. */
export interface TrackedConnections {
  /**
   * From now on, each connection closes as soon as it has nothing left to answer: at once when
   * it is between requests or has never sent one, after its answer otherwise. Call it when the
   * server starts to stop (before `server.close()`).
   */
  closeWhenAnswered(): void;
}

/**
 * Follows the connections of `server` and the answer each one is giving, so a stopping server
 * can close every connection as soon as it has answered.
 *
 * `server.close()` alone waits for each open connection to end, and two kinds are not ended by
 * it: a connection a browser opened ahead of time and has not used yet (Chromium does this for a
 * page's origin), which Node counts as busy and never closes, and a keep-alive connection whose
 * answer ended after the close began, which stays open until the keep-alive timeout (72 s in
 * fastify). Either held a stopping backend past the 5 s a launcher gives it, with its class not
 * yet stopped.
 *
 * A WebSocket connection owes no answer: it is ended too, after the close frame its owner sent
 * (call this after the WebSocket server's own close).
 *
 * @example
 * const connections = trackConnections(app.server);
 * app.addHook('preClose', async () => connections.closeWhenAnswered());
 */
export function trackConnections(server: Server): TrackedConnections {
  /**
   * Open connections, each with the answer to its latest request (answers on one connection go
   * out in order: once the latest is done, all are). A Map write per request, nothing more.
   */
  const latest = new Map<Socket, ServerResponse | undefined>();
  let closing = false;
  const close = (socket: Socket) => {
    // end() lets what was written go out first; a client that keeps its side open cannot hold
    // the socket after that.
    socket.end(() => socket.destroy());
  };
  server.on('connection', (socket: Socket) => {
    // Accepted while the server stops: it would only be refused.
    if (closing) return close(socket);
    latest.set(socket, undefined);
    socket.once('close', () => latest.delete(socket));
  });
  server.on('request', (request, response) => {
    if (latest.has(request.socket)) latest.set(request.socket, response);
  });
  return {
    closeWhenAnswered() {
      closing = true;
      for (const [socket, response] of latest) {
        if (!response || response.writableFinished) close(socket);
        else response.once('close', () => close(socket));
      }
    },
  };
}
