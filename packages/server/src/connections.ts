// The connections of the backend's HTTP server, so that stopping it does not wait on them.
import type { Server } from 'node:http';
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
 * Follows the connections of `server` and the answers each one owes, so a stopping server can
 * close every connection as soon as it has answered.
 *
 * `server.close()` alone waits for each open connection to end, and two kinds are not ended by
 * it: a connection a browser opened ahead of time and has not used yet (Chromium does this for a
 * page's origin), which Node counts as busy and never closes, and a keep-alive connection whose
 * answer ended after the close began, which stays open until the keep-alive timeout (72 s in
 * fastify). Either kept a stopping backend from stopping its class and flushing its transcript,
 * and a launcher gives it 5 s.
 *
 * A WebSocket connection owes no answer: it is ended too, after the close frame its owner sent
 * (call this after the WebSocket server's own close).
 *
 * @example
 * const connections = trackConnections(app.server);
 * app.addHook('preClose', async () => connections.closeWhenAnswered());
 */
export function trackConnections(server: Server): TrackedConnections {
  /** Open connections, with how many answers each one still owes. */
  const owed = new Map<Socket, number>();
  let closing = false;
  const close = (socket: Socket) => {
    // end() lets what was written go out first; a client that keeps its side open cannot hold
    // the socket after that.
    socket.end(() => socket.destroy());
  };
  server.on('connection', (socket: Socket) => {
    // Accepted while the server stops: it would only be refused.
    if (closing) return close(socket);
    owed.set(socket, 0);
    socket.once('close', () => owed.delete(socket));
  });
  server.on('request', (request, response) => {
    const socket = request.socket;
    const count = owed.get(socket);
    if (count === undefined) return;
    owed.set(socket, count + 1);
    response.once('close', () => {
      const left = owed.get(socket);
      if (left === undefined) return;
      owed.set(socket, left - 1);
      if (closing && left === 1) close(socket);
    });
  });
  return {
    closeWhenAnswered() {
      closing = true;
      for (const [socket, count] of owed) if (count === 0) close(socket);
    },
  };
}
