// The backend inside your own program: start it on a free port with a scripted class
// (ASR_MODE=mock), read /api/health, start the class and follow its lines and alerts live over
// /api/events (server-sent events), then stop it. Everything goes over real HTTP, as the desktop
// UI does it.
//
//   node examples/mock-class.mts
//
// With LLM_API_KEY set (and LLM_BASE_URL, LLM_MODEL for a provider other than OpenAI) the class
// ends with notes written by the LLM; without it, with the transcript only.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LiveMessage, startServer } from '@class-assistant/server';

// #region readme
const folder = await mkdtemp(join(tmpdir(), 'class-assistant-example-'));
const envFile = join(folder, '.env');
// The settings file (created from .env.example when missing): the bundled bilingual lecture,
// one line every 100 ms, once.
await writeFile(envFile, 'ASR_MODE=mock\nMOCK_INTERVAL_MS=100\nMOCK_LOOP=false\n');
const server = await startServer(
  { host: '127.0.0.1', port: 0, dataDir: join(folder, 'data'), envFile }, // port 0: a free one
  { console: process.stderr }, // the backend's log; stdout is this example's
);

const health = await api<{
  status: string;
  version: string;
  asr: { mode: string };
  llm: { configured: boolean };
}>('/api/health');
console.log(
  `${server.url}/api/health: ${health.status}, version ${health.version}, ASR_MODE ${health.asr.mode}`,
);

const stream = new AbortController();
const events = await fetch(`${server.url}/api/events`, { signal: stream.signal });
const started = await api<{ status: string }>('/api/start_monitor', 'POST');
console.log(`start_monitor: ${started.status}`);
let lines = 0;
for await (const event of liveEvents(events)) {
  if (event.name === 'line.appended') {
    lines += 1;
    console.log(`#${event.data.id} [${event.data.timestamp}] ${event.data.text}`);
  } else if (event.name === 'alert.raised') {
    console.log(`  ALERT (${event.data.level}): ${event.data.keywords.join(', ')}`);
  } else if (event.name === 'monitor.changed' && event.data.recognizer_state === 'ended') {
    break; // the script is over
  }
}
stream.abort();

const stopped = await api<{
  status: string;
  summary?: { filename: string };
  summary_error?: string;
}>(`/api/stop_monitor?with_summary=${health.llm.configured}`, 'POST');
const transcript = await api<{ total: number }>('/api/transcript');
console.log(
  `stop_monitor: ${stopped.status}; ${lines} lines live, ${transcript.total} in the transcript`,
);
if (stopped.summary) {
  const notes = await api<{ content: string }>(`/api/notes/${stopped.summary.filename}`);
  console.log(`notes ${stopped.summary.filename}:\n${notes.content}`);
} else if (stopped.summary_error) {
  console.log(`no notes: ${stopped.summary_error}`);
}
await server.close();
await rm(folder, { recursive: true });
// #endregion readme

// Helpers, used above (function declarations are hoisted).

/** Calls a JSON route of the running backend. */
async function api<T>(path: string, method = 'GET'): Promise<T> {
  const response = await fetch(`${server.url}${path}`, { method });
  return (await response.json()) as T;
}

/** The events of a `text/event-stream` response, as the live-event contract types them. */
async function* liveEvents(response: Response): AsyncGenerator<LiveMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body ?? []) {
    buffer += decoder.decode(chunk, { stream: true });
    const blocks = buffer.split('\n\n');
    buffer = blocks.pop() ?? '';
    for (const block of blocks) {
      const name = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (name && data) yield { name, data: JSON.parse(data) } as LiveMessage;
    }
  }
}
