// One SIGTERM stops the backend process within 5 s, whatever its clients hold open — the UI's
// live stream, the alert and capture sockets, AI answers waiting for a provider that never
// answers — and every line it reported as written is in the transcript file.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type BackendProcess, startBackendProcess } from './support/backend-process.ts';
import { waitFor } from './support/harness.ts';
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

describe('stopping the backend process', () => {
  it('exits with 0 within 5 s of one SIGTERM, with clients connected and AI answers pending', async () => {
    // A provider that never answers: without the shutdown cancelling them, these requests would
    // hold the server open until LLM_TIMEOUT.
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
    const { base } = backend;
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
      backend!.child.once('exit', (code) => resolve({ code, at: Date.now() })),
    );
    const sentAt = Date.now();
    backend.child.kill('SIGTERM');
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
    const file = await readFile(join(backend.dataDir, 'class_transcript.txt'), 'utf8');
    const written = file.split('\n').filter((line) => line.startsWith('['));
    for (const [index, text] of announced.entries()) {
      expect(written[index]).toContain(text);
    }
    const log = await readFile(join(backend.dataDir, '_startup.log'), 'utf8');
    expect(log).toContain('"msg":"stopped"');
    alerts.terminate();
    capture.terminate();
    events.close();
  });
});
