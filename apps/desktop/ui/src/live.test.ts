// The live connection against a real HTTP server speaking the backend's event stream.
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLiveConnection, type LiveConnection, retryDelay } from './live.ts';
import type { Connection } from './store.ts';

interface StreamServer {
  url: string;
  port: number;
  requests: IncomingHttpHeaders[];
  streams: ServerResponse[];
  /** Sends an event with the next id to every open stream. */
  publish(name: string, data: unknown): void;
  close(): Promise<void>;
}

/** A backend-like event stream: ids count from `firstId`; `gapOnForeignId` as the fixed server. */
async function streamServer(
  options: {
    port?: number;
    lastId?: number;
    gapOnForeignId?: boolean;
    silent?: boolean;
    /** Announced in stream.opened (and sent, unless `frozen`). */
    heartbeatMs?: number;
    /** After stream.opened, nothing more: a frozen backend, a cut network. */
    frozen?: boolean;
    /** Accept connections and never answer. */
    mute?: boolean;
  } = {},
): Promise<StreamServer> {
  let lastId = options.lastId ?? 0;
  const requests: IncomingHttpHeaders[] = [];
  const streams: ServerResponse[] = [];
  const sockets = new Set<Socket>();
  const log: Array<{ id: number; name: string; data: unknown }> = [];
  const server: Server = createServer((request, response) => {
    requests.push(request.headers);
    if (options.mute) return;
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const header = Number(request.headers['last-event-id']);
    const known = Number.isFinite(header) ? header : undefined;
    const foreign = known !== undefined && known > lastId;
    if (!options.silent || requests.length === 1) {
      response.write(
        `event: stream.opened\ndata: ${JSON.stringify({
          last_event_id: lastId,
          replayed: 0,
          gap: Boolean(options.gapOnForeignId && foreign),
          monitor: { state: 'idle' },
          partial: '',
          ...(options.heartbeatMs ? { heartbeat_ms: options.heartbeatMs } : {}),
        })}\n\n`,
      );
    }
    if (options.heartbeatMs && !options.frozen) {
      const beat = setInterval(() => response.write(': heartbeat\n\n'), options.heartbeatMs);
      response.on('close', () => clearInterval(beat));
    }
    if (known !== undefined && !foreign) {
      for (const event of log.filter((entry) => entry.id > known)) {
        response.write(
          `id: ${event.id}\nevent: ${event.name}\ndata: ${JSON.stringify(event.data)}\n\n`,
        );
      }
    }
    streams.push(response);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/api/events`,
    port,
    requests,
    streams,
    publish(name, data) {
      lastId++;
      log.push({ id: lastId, name, data });
      for (const stream of streams)
        stream.write(`id: ${lastId}\nevent: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

let connection: LiveConnection | undefined;
const servers: StreamServer[] = [];
afterEach(async () => {
  connection?.stop();
  for (const server of servers.splice(0)) await server.close();
});

function connect(url: string, silenceTimeoutMs?: number, openTimeoutMs?: number) {
  const seen = {
    opened: [] as Array<{ lastId: number; reload: boolean }>,
    events: [] as string[],
    states: [] as Connection[],
  };
  connection = createLiveConnection({
    url,
    ...(silenceTimeoutMs ? { silenceTimeoutMs } : {}),
    ...(openTimeoutMs ? { openTimeoutMs } : {}),
    onOpened: (data, reload) => seen.opened.push({ lastId: data.last_event_id, reload }),
    onEvent: (message) => {
      seen.events.push(`${message.name}:${JSON.stringify(message.data)}`);
    },
    onConnection: (state) => seen.states.push(state),
  });
  connection.start();
  return seen;
}

describe('createLiveConnection', () => {
  it('reloads on the first connection, then resumes from the last id after a cut', async () => {
    const server = await streamServer();
    servers.push(server);
    const seen = connect(server.url);
    await until(() => seen.opened.length === 1, 'the stream');
    expect(seen.opened[0]).toEqual({ lastId: 0, reload: true });
    server.publish('line.appended', { index: 0 });
    await until(() => seen.events.length === 1, 'an event');
    expect(connection?.lastEventId).toBe(1);

    // The stream is cut; meanwhile two more events happen.
    for (const stream of server.streams.splice(0)) stream.destroy();
    server.publish('line.appended', { index: 1 });
    server.publish('partial.changed', { text: '半' });
    await until(() => seen.events.length === 3, 'the replay');
    expect(server.requests[1]?.['last-event-id']).toBe('1');
    expect(seen.opened[1]).toEqual({ lastId: 3, reload: false });
    expect(seen.events).toEqual([
      'line.appended:{"index":0}',
      'line.appended:{"index":1}',
      'partial.changed:{"text":"半"}',
    ]);
    expect(seen.states.at(-1)).toBe('online');
  });

  it('skips events the UI does not know (a newer backend may send more)', async () => {
    const server = await streamServer();
    servers.push(server);
    const seen = connect(server.url);
    await until(() => seen.opened.length === 1, 'the stream');
    server.publish('something.new', { x: 1 });
    server.publish('partial.changed', { text: '好' });
    await until(() => seen.events.length === 1, 'the known event');
    expect(seen.events).toEqual(['partial.changed:{"text":"好"}']);
    expect(connection?.lastEventId).toBe(2);
  });

  it('shows the backend offline while it is down and reloads when a restarted one answers', async () => {
    const first = await streamServer();
    const seen = connect(first.url);
    await until(() => seen.opened.length === 1, 'the stream');
    first.publish('line.appended', { index: 0 });
    first.publish('line.appended', { index: 1 });
    await until(() => seen.events.length === 2, 'events');
    await first.close();
    await until(() => seen.states.includes('offline'), 'offline');

    // A new backend on the same port counts ids from the start and reports the old id as a gap.
    const second = await streamServer({ port: first.port, gapOnForeignId: true });
    servers.push(second);
    await until(() => seen.opened.length === 2, 'the new backend', 15_000);
    expect(second.requests[0]?.['last-event-id']).toBe('2');
    expect(seen.opened[1]).toEqual({ lastId: 0, reload: true });
    second.publish('line.appended', { index: 0 });
    await until(() => seen.events.length === 3, 'a new event');
    expect(connection?.lastEventId).toBe(1);
    expect(seen.states.at(-1)).toBe('online');
  });

  it('starts over without an id when a restarted backend does not report the gap', async () => {
    const server = await streamServer({ lastId: 0 });
    servers.push(server);
    const seen = connect(server.url);
    await until(() => seen.opened.length === 1, 'the stream');
    for (let index = 0; index < 5; index++) server.publish('line.appended', { index });
    await until(() => seen.events.length === 5, 'events');
    await server.close();
    servers.pop();
    const older = await streamServer({ port: server.port, gapOnForeignId: false });
    servers.push(older);
    await until(() => seen.opened.length === 2, 'the restarted backend', 15_000);
    // First attempt carried id 5 and was answered with last_event_id 0 and no gap: dropped,
    // then a fresh connection without an id.
    expect(older.requests[0]?.['last-event-id']).toBe('5');
    expect(older.requests.at(-1)?.['last-event-id']).toBeUndefined();
    expect(seen.opened[1]).toEqual({ lastId: 0, reload: true });
  });

  it('notices a silent connection and connects again', async () => {
    const server = await streamServer({ silent: true });
    servers.push(server);
    const seen = connect(server.url, 300);
    await until(() => server.requests.length >= 2, 'a second connection');
    expect(seen.opened).toHaveLength(1);
  });

  it('stays online while heartbeats come, and goes offline when they stop (a frozen backend)', async () => {
    const beating = await streamServer({ heartbeatMs: 100 });
    servers.push(beating);
    const seen = connect(beating.url);
    await until(() => seen.opened.length === 1, 'the stream');
    // Ten heartbeats and once the silence limit (at least 1 s), still one connection.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(beating.requests).toHaveLength(1);
    expect(seen.states.at(-1)).toBe('online');
    connection?.stop();

    const frozen = await streamServer({ heartbeatMs: 100, frozen: true });
    servers.push(frozen);
    const watched = connect(frozen.url);
    await until(() => watched.opened.length === 1, 'the stream');
    await until(() => watched.states.includes('offline'), 'offline', 5000);
    // Straight to offline: not "connecting" first, which looked like a live backend.
    expect(watched.states.slice(watched.states.indexOf('online') + 1)[0]).toBe('offline');
  });

  it('counts a backend that accepts the connection and never answers as offline', async () => {
    const mute = await streamServer({ mute: true });
    servers.push(mute);
    const seen = connect(mute.url, undefined, 300);
    await until(() => seen.states.includes('offline'), 'offline', 5000);
    expect(mute.requests.length).toBeGreaterThanOrEqual(2);
  });

  it('waits 0.5 s doubling to 5 s between failed attempts', () => {
    expect([0, 1, 2, 3, 4, 10].map(retryDelay)).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
  });
});
