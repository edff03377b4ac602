// The alerts of a running class reach its folder's class.json while the class runs (saved at
// most once a second, a burst together), so a backend killed with SIGKILL mid-class keeps them:
// after a restart the class lists every alert the UI was told about.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { type BackendProcess, startBackendProcess } from './support/backend-process.ts';
import { classClient } from './support/class-client.ts';
import { waitFor } from './support/harness.ts';

let root: string | undefined;
const processes: BackendProcess[] = [];
afterEach(async () => {
  for (const backend of processes.splice(0)) await backend.stop();
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

interface Alert {
  line_id: number;
  text: string;
}

it('keeps the alerts of a class whose backend was killed mid-class', async () => {
  const settings = ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=5', 'MOCK_LOOP=true', 'LOG_LEVEL=warn'];
  root = await mkdtemp(join(tmpdir(), 'class-assistant-alerts-'));
  const first = await startBackendProcess(settings, process.env, { root });
  processes.push(first);
  const client = await classClient(first.base);
  const { events } = client;
  expect((await client.start({ course_name: '数据结构' })).body.status).toBe('started');
  const added = (await events.next((event) => event.event === 'library.changed')).data as {
    class_id: string;
  };
  const raised = () =>
    events.events
      .filter((event) => event.event === 'alert.raised')
      .map((event) => (event.data as { text: string }).text);
  // A burst: the looping lecture raises an alert every few lines, many a second.
  await waitFor(() => raised().length >= 10, 60_000, 'ten alerts');
  const paused = await fetch(`${first.base}/api/pause_monitor`, { method: 'POST' });
  expect(((await paused.json()) as { status: string }).status).toBe('paused');
  // Within a second, the alerts raised are in class.json, while the class still runs.
  const meta = join(first.dataDir, 'classes', added.class_id, 'class.json');
  await waitFor(
    async () => {
      const alerts = (JSON.parse(await readFile(meta, 'utf8')) as { alerts: Alert[] }).alerts;
      return alerts.length === raised().length;
    },
    10_000,
    'the alerts in class.json',
  );
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  events.close();

  const second = await startBackendProcess(settings, process.env, { root });
  processes.push(second);
  const detail = (await (await fetch(`${second.base}/api/classes/${added.class_id}`)).json()) as {
    alerts: Alert[];
  };
  expect(detail.alerts.map((alert) => alert.text)).toEqual(raised());
});
