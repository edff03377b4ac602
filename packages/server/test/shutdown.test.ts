// One SIGTERM stops the backend process within 5 s, whatever its clients hold open — the UI's
// live stream, the alert and capture sockets, AI answers waiting for a provider that never
// answers, a connection opened ahead of time and never used, a request still arriving — and
// every line it reported as written is in the transcript file.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type BackendProcess, startBackendProcess } from './support/backend-process.ts';
import { spawnBin } from './support/bin-process.ts';
import { waitFor } from './support/harness.ts';
import { freePort } from './support/ports.ts';
import { openEventStream } from './support/sse-client.ts';

let backend: BackendProcess | undefined;
let llm: FakeOpenAIServer | undefined;

afterEach(async () => {
  await backend?.stop();
  backend = undefined;
  await llm?.close();
  llm = undefined;
});

/** Opens a WebSocket to the backend and waits until it is open. */
async function openSocket(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url, {
    headers: { origin: new URL(url).origin.replace('ws', 'http') },
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return socket;
}

/**
 * The backend process (a looping mock class) with an AI provider that never answers: without
 * the stop cancelling them, its requests would hold the server open until LLM_TIMEOUT.
 */
async function startWithSilentProvider(): Promise<BackendProcess> {
  llm = await createFakeOpenAIServer({ chat: () => ({ type: 'hang' }) });
  backend = await startBackendProcess([
    'ASR_MODE=mock',
    'MOCK_INTERVAL_MS=60',
    'MOCK_LOOP=true',
    `LLM_BASE_URL=${llm.baseURL}`,
    'LLM_API_KEY=sk-test',
    'LLM_MODEL=class-model',
    'LLM_TIMEOUT=120',
  ]);
  return backend;
}

describe('stopping the backend process', () => {
  it('exits with 0 within 5 s of one SIGTERM, with clients connected and AI answers pending', async () => {
    const running = await startWithSilentProvider();
    const { base } = running;
    const json = { 'content-type': 'application/json' };
    const events = await openEventStream(`${base}/api/events`);
    await fetch(`${base}/api/start_monitor`, {
      method: 'POST',
      headers: json,
      body: '{"course_name":"数据结构"}',
    });
    await events.next((event) => event.event === 'line.appended', 10_000);
    const alerts = await openSocket(`${base.replace('http', 'ws')}/api/ws/alerts`);
    const capture = await openSocket(`${base.replace('http', 'ws')}/api/ws/capture`);
    const streamedRescue = await openEventStream(`${base}/api/emergency_rescue/stream`, {
      method: 'POST',
      body: {},
    });
    const plainRescue = fetch(`${base}/api/emergency_rescue`, {
      method: 'POST',
      headers: json,
      body: '{}',
    }).then(async (response) => ({ status: response.status, body: await response.json() }));
    await waitFor(() => llm!.chatRequests.length >= 2, 10_000, 'both rescue requests at the LLM');

    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      running.child.once('exit', (code) => resolve({ code, at: Date.now() })),
    );
    const sentAt = Date.now();
    running.child.kill('SIGTERM');
    const { code, at } = await exited;
    expect(code).toBe(0);
    expect(at - sentAt).toBeLessThan(5000);

    // The AI answers in flight were told why they stopped.
    const failure = await streamedRescue.next((event) => event.event === 'error.raised');
    expect(failure.data).toMatchObject({ code: 'SERVER_STOPPING' });
    expect(await plainRescue).toMatchObject({ status: 503, body: { code: 'SERVER_STOPPING' } });
    // Every line announced as written is in the file.
    const announced = events.events
      .filter((event) => event.event === 'line.appended')
      .map((event) => (event.data as { id: number; text: string }).text);
    expect(announced.length).toBeGreaterThan(0);
    const file = await readFile(join(running.dataDir, 'class_transcript.txt'), 'utf8');
    const written = file.split('\n').filter((line) => line.startsWith('['));
    for (const [index, text] of announced.entries()) {
      expect(written[index]).toContain(text);
    }
    const log = await readFile(join(running.dataDir, '_startup.log'), 'utf8');
    expect(log).toContain('"msg":"stopped"');
    alerts.terminate();
    capture.terminate();
    events.close();
  });

  it('exits with 0 and a clean stop with a connection never used and a request still arriving', async () => {
    const running = await startWithSilentProvider();
    const { base } = running;
    const port = Number(new URL(base).port);
    await fetch(`${base}/api/start_monitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"course_name":"数据结构"}',
    });
    await waitFor(
      async () =>
        ((await (await fetch(`${base}/api/transcript`)).json()) as { entries: unknown[] }).entries
          .length > 0,
      10_000,
      'a first line',
    );
    // What a browser does: a connection to the page's origin opened ahead of time, unused.
    const preconnect = connect(port, '127.0.0.1');
    await new Promise((resolve) => preconnect.once('connect', resolve));
    const preconnectClosed = new Promise((resolve) => preconnect.once('close', resolve));
    // A request on a keep-alive connection whose body is still on its way when the stop begins
    // (`expect: 100-continue`: the backend has read its headers once it says to go on).
    const agent = new Agent({ keepAlive: true });
    const body = '{"question":"刚才讲到哪里了"}';
    const pending = request(`${base}/api/emergency_rescue`, {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        expect: '100-continue',
      },
    });
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      pending.on('error', reject);
      pending.on('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      });
    });
    pending.flushHeaders();
    await new Promise((resolve) => pending.once('continue', resolve));

    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      running.child.once('exit', (code) => resolve({ code, at: Date.now() })),
    );
    const sentAt = Date.now();
    running.child.kill('SIGTERM');
    // The stop has begun once the unused connection is closed; the request's body arrives after.
    await Promise.race([preconnectClosed, exited]);
    pending.end(body);
    const { code, at } = await exited;
    // Before: the unused connection held the stop until the 4.5 s limit (exit 1, class not
    // stopped); an answer after the stop began held its connection for 72 s.
    expect(code).toBe(0);
    expect(at - sentAt).toBeLessThan(4500);
    expect((await answer).status).toBe(503);
    expect(JSON.parse((await answer).body)).toMatchObject({ code: 'SERVER_STOPPING' });
    const log = await readFile(join(running.dataDir, '_startup.log'), 'utf8');
    expect(log).toContain('"msg":"stopped"');
    agent.destroy();
  });

  it('exits with 0 and a clean stop when SIGTERM comes while it is still starting', async () => {
    const root = await mkdtemp(join(tmpdir(), 'class-assistant-early-stop-'));
    try {
      await writeFile(join(root, '.env'), 'ASR_MODE=mock\n');
      const dataDir = join(root, 'data');
      const started = spawnBin([
        '--port',
        String(await freePort()),
        '--settings-file',
        join(root, '.env'),
        '--data-dir',
        dataDir,
      ]);
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
        (resolve) => started.child.once('exit', (code, signal) => resolve({ code, signal })),
      );
      // The first line the backend prints: it has begun to start, and is far from ready.
      await new Promise<void>((resolve) => {
        const seen = () => {
          if (!started.output().stdout.includes('Class Assistant backend starting')) return;
          started.child.stdout?.off('data', seen);
          resolve();
        };
        started.child.stdout?.on('data', seen);
      });
      started.child.kill('SIGTERM');
      // Before: the handlers came after the start, so the signal's default action killed it.
      expect(await exited).toEqual({ code: 0, signal: null });
      const log = await readFile(join(dataDir, '_startup.log'), 'utf8');
      expect(log).toContain('"msg":"stopped"');
      expect(started.output().stderr).toBe('');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
