// What GET /api/events serves over a real socket is what the live-event contract (the schemas the
// UI takes its types from) says: every field the contract names, of its type, and nothing more.
import { afterEach, describe, expect, it } from 'vitest';
import { LIVE_EVENTS, type LiveEventName, StreamOpenedSchema } from '../src/events/live-events.ts';
import { createHarness, FAST_MOCK, type Harness } from './support/harness.ts';
import {
  type EventStreamClient,
  openEventStream,
  type ReceivedEvent,
} from './support/sse-client.ts';

let harness: Harness | undefined;
const streams: EventStreamClient[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await harness?.close();
  harness = undefined;
});

/** Parsing drops fields the schema does not name, so equality means valid and nothing extra. */
function expectContract(event: ReceivedEvent): void {
  const schema =
    event.event === 'stream.opened'
      ? StreamOpenedSchema
      : LIVE_EVENTS[event.event as LiveEventName]?.data;
  expect(schema, `"${event.event}" is an event of the contract`).toBeDefined();
  expect(event.data, event.event).toEqual(schema!.parse(event.data));
}

async function open(base: string): Promise<EventStreamClient> {
  const stream = await openEventStream(`${base}/api/events`);
  streams.push(stream);
  return stream;
}

describe('the event stream and its contract', () => {
  it('stream.opened matches StreamOpenedSchema, idle and during a class', async () => {
    harness = await createHarness({ env: FAST_MOCK });
    const base = await harness.listen();

    const idle = await (await open(base)).next((event) => event.event === 'stream.opened');
    expectContract(idle);
    expect(idle.data).toMatchObject({ monitor: { state: 'idle' }, capture: { state: 'off' } });

    expect((await harness.startMonitor({ course_name: '数据结构' })).statusCode).toBe(200);
    const during = await (await open(base)).next((event) => event.event === 'stream.opened');
    expectContract(during);
    expect(during.data).toMatchObject({ monitor: { state: 'running', course_name: '数据结构' } });
  });

  it('every event of a class matches its schema', async () => {
    harness = await createHarness({ env: FAST_MOCK });
    const base = await harness.listen();
    const events = await open(base);
    await events.next((event) => event.event === 'stream.opened');

    expect((await harness.startMonitor({ course_name: '数据结构' })).statusCode).toBe(200);
    await events.next((event) => event.event === 'line.appended', 20_000);
    await events.next(
      (event) =>
        event.event === 'monitor.changed' &&
        (event.data as { recognizer_state: string }).recognizer_state === 'ended',
      20_000,
    );
    expect((await harness.request({ method: 'POST', url: '/api/stop_monitor' })).statusCode).toBe(
      200,
    );
    await events.next(
      (event) =>
        event.event === 'monitor.changed' && (event.data as { state: string }).state === 'idle',
      20_000,
    );

    const names = new Set(events.events.map((event) => event.event));
    expect([...names]).toEqual(
      expect.arrayContaining(['stream.opened', 'line.appended', 'monitor.changed']),
    );
    for (const event of events.events) expectContract(event);
  });
});
