// The live channels cap their subscribers: a page (or program) opening streams in a loop gets a
// clear 503 instead of growing the backend's memory. Real connections over a real socket.
import { Agent, request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MAX_EVENT_STREAMS } from '../src/routes/live-routes.ts';
import { createHarness, type Harness, waitFor } from './support/harness.ts';
import { type EventStreamClient, openEventStream } from './support/sse-client.ts';

let harness: Harness;
let base: string;
beforeEach(async () => {
  harness = await createHarness({ env: ['ASR_MODE=mock'] });
  base = await harness.listen();
});
afterEach(() => harness.close());

describe('subscriber caps', () => {
  it('accepts 64 event streams and answers the 65th with 503 TOO_MANY_SUBSCRIBERS', async () => {
    expect(MAX_EVENT_STREAMS).toBe(64);
    const streams: EventStreamClient[] = [];
    try {
      for (let index = 0; index < 64; index++) {
        const stream = await openEventStream(`${base}/api/events`);
        expect(stream.status).toBe(200);
        streams.push(stream);
      }
      const refused = await fetch(`${base}/api/events`, { headers: { 'accept-language': 'en' } });
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({
        code: 'TOO_MANY_SUBSCRIBERS',
        message: expect.stringContaining('/api/events already has 64 open connections'),
      });
      // One closed, one more welcome.
      streams.pop()!.close();
      await waitFor(
        () => harness.app.classAssistant.streams.size === 63,
        5000,
        'the stream to close',
      );
      const again = await openEventStream(`${base}/api/events`);
      expect(again.status).toBe(200);
      streams.push(again);
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it('accepts 64 alert sockets and refuses the 65th upgrade with 503', async () => {
    const url = `${base.replace('http', 'ws')}/api/ws/alerts`;
    const connect = () =>
      new Promise<{ socket?: WebSocket; status: number; body: string }>((resolve) => {
        const socket = new WebSocket(url, { headers: { 'accept-language': 'en' } });
        socket.on('open', () => resolve({ socket, status: 101, body: '' }));
        socket.on('unexpected-response', (_request, response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => {
            body += chunk.toString();
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        });
        socket.on('error', () => undefined);
      });
    const sockets: WebSocket[] = [];
    try {
      for (let index = 0; index < 64; index++) {
        const opened = await connect();
        expect(opened.status).toBe(101);
        sockets.push(opened.socket!);
      }
      const refused = await connect();
      expect(refused.status).toBe(503);
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'TOO_MANY_SUBSCRIBERS' });
      expect(harness.app.classAssistant.alertSockets.size).toBe(64);
      sockets.pop()!.close();
      await waitFor(
        () => harness.app.classAssistant.alertSockets.size === 63,
        5000,
        'the socket to close',
      );
      const again = await connect();
      expect(again.status).toBe(101);
      sockets.push(again.socket!);
    } finally {
      for (const socket of sockets) socket.close();
    }
  });

  it('keeps nothing of the subscribers that left, nor of 600 it refused meanwhile', async () => {
    const { classAssistant: services, server } = harness.app;
    const listeners = services.hub.subscriberCount;
    // A browser-like client: keep-alive connections, kept open between requests for reuse.
    const agent = new Agent({ keepAlive: true, maxSockets: 300 });
    const url = new URL(`${base}/api/events`);
    const leaving: Array<() => void> = [];
    /** A stream that stays until it is told to leave; resolves with the answer's status. */
    const subscribe = () =>
      new Promise<number>((resolve, reject) => {
        const pending = request(url, { agent }, (response) => {
          if (response.statusCode !== 200) {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
            return;
          }
          response.once('data', () => {
            leaving.push(() => pending.destroy());
            resolve(200);
          });
        });
        pending.on('error', reject);
        pending.end();
      });
    const alerts = `${base.replace('http', 'ws')}/api/ws/alerts`;
    const alert = () =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket(alerts);
        socket.on('open', () => {
          leaving.push(() => socket.close());
          resolve(101);
        });
        socket.on('unexpected-response', (_request, response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        socket.on('error', () => resolve(0));
      });
    const statuses = async (count: number) => {
      const seen = new Map<number, number>();
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(count, 150) }, async () => {
          while (next < count) {
            const status = await (next++ % 2 === 0 ? subscribe() : alert());
            seen.set(status, (seen.get(status) ?? 0) + 1);
          }
        }),
      );
      return Object.fromEntries(seen);
    };
    try {
      // Both channels full, then 600 more that are refused, then everyone leaves.
      expect(await statuses(128)).toEqual({ 101: 64, 200: 64 });
      expect(await statuses(600)).toEqual({ 503: 600 });
      for (const leave of leaving) leave();
      const connections = () =>
        new Promise<number>((resolve, reject) =>
          server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
        );
      // Before: each refused stream's connection stayed open (keep-alive) with its parser and
      // buffers, for as long as the client kept it.
      await waitFor(
        async () =>
          (await connections()) === 0 &&
          services.streams.size === 0 &&
          services.alertSockets.size === 0,
        10_000,
        'every connection and subscriber to be gone',
      );
      expect(services.hub.subscriberCount).toBe(listeners);
    } finally {
      agent.destroy();
    }
  });
});
