import { Agent, createServer, request, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { trackConnections } from './connections.ts';

let server: Server | undefined;
const agents: Agent[] = [];

afterEach(async () => {
  for (const agent of agents.splice(0)) agent.destroy();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server whose answers take `delayMs`, tracked; resolves once it listens. */
async function slowServer(delayMs: number) {
  const started = createServer((_request, response) => {
    setTimeout(() => response.end('the whole answer'), delayMs);
  });
  server = started;
  const connections = trackConnections(started);
  await new Promise<void>((resolve) => started.listen(0, '127.0.0.1', resolve));
  const { port } = started.address() as { port: number };
  return { server: started, connections, port };
}

/** GET / on a keep-alive connection: the status and body. */
function get(port: number, agent: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/', agent }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

/** Resolves true when the server has closed, false if it is still open after `ms`. */
function closesWithin(target: Server, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    target.close(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

const opened = (socket: Socket) =>
  new Promise<void>((resolve) => socket.once('connect', () => resolve()));
const ended = (socket: Socket) =>
  new Promise<void>((resolve) => socket.once('close', () => resolve()));

describe('trackConnections', () => {
  it('closes a connection never used (a browser’s preconnect) and one between requests', async () => {
    const { server: target, connections, port } = await slowServer(0);
    const unused = connect(port, '127.0.0.1');
    await opened(unused);
    const agent = new Agent({ keepAlive: true });
    agents.push(agent);
    expect(await get(port, agent)).toEqual({ status: 200, body: 'the whole answer' });
    const unusedClosed = ended(unused);

    connections.closeWhenAnswered();
    // Without it, Node keeps both: the unused one until the client gives up, the other for
    // the keep-alive timeout.
    expect(await closesWithin(target, 3000)).toBe(true);
    await unusedClosed;
  });

  it('lets an answer in flight arrive whole, then closes its connection', async () => {
    const { server: target, connections, port } = await slowServer(300);
    const agent = new Agent({ keepAlive: true });
    agents.push(agent);
    const answer = get(port, agent);
    await new Promise((resolve) => setTimeout(resolve, 100));

    connections.closeWhenAnswered();
    const closed = closesWithin(target, 3000);
    expect(await answer).toEqual({ status: 200, body: 'the whole answer' });
    expect(await closed).toBe(true);
  });

  it('keeps connections open while the server is not stopping', async () => {
    const { server: target, port } = await slowServer(0);
    const agent = new Agent({ keepAlive: true });
    agents.push(agent);
    await get(port, agent);
    const unused = connect(port, '127.0.0.1');
    await opened(unused);
    expect(await closesWithin(target, 500)).toBe(false);
    unused.destroy();
  });
});
