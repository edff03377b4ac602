// The caption translator on the app's real event hub and LLM client, against the scripted fake
// OpenAI-compatible server on a loopback socket: a line the pipeline merges with the next is
// translated again with its new text, an update that leaves the text as it was (its page or
// audio position changed) asks nothing, and a line written while its translation is under way
// is sent once that request is over — never two requests at a time.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createFakeOpenAIServer,
  type FakeOpenAIServer,
  type RecordedChatRequest,
} from '@class-assistant/agent-std/testing';
import { afterEach, expect, it } from 'vitest';
import { createEventHub, type LiveEvent } from '../src/events/event-hub.ts';
import type { TranscriptLine } from '../src/events/live-events.ts';
import { createCaptionTranslator } from '../src/llm/caption-translator.ts';
import { createLlmService } from '../src/llm/llm-client.ts';
import { createPromptLoader } from '../src/llm/prompts.ts';
import { createSettingsStore } from '../src/settings/settings-store.ts';
import { waitFor } from './support/harness.ts';

const KEY = 'sk-translator-unit-000000000';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function linesOf(request: RecordedChatRequest): string[] {
  const user = String(request.body.messages?.at(-1)?.content ?? '');
  return user
    .split('\n')
    .slice(1)
    .map((line) => line.replace(/^\d+\. /, ''));
}

const line = (id: number, text: string): TranscriptLine => ({
  id,
  index: id - 1,
  timestamp: '10:00:00',
  text,
  page: null,
  translation: null,
  audio_ms: null,
});

it('translates a merged line again, ignores an update of the same text, keeps one request in flight', async () => {
  let inFlight = 0;
  let most = 0;
  const llm: FakeOpenAIServer = await createFakeOpenAIServer({
    apiKey: KEY,
    chat: async (request) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 150));
      inFlight--;
      return {
        type: 'text',
        content: linesOf(request)
          .map((text, index) => `${index + 1}. EN(${text})`)
          .join('\n'),
        chunkSize: 5,
        delayMs: 5,
      };
    },
  });
  cleanups.push(() => llm.close());
  const root = await mkdtemp(join(tmpdir(), 'caption-translator-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  await writeFile(
    join(root, '.env'),
    `LLM_BASE_URL=${llm.baseURL}\nLLM_API_KEY=${KEY}\nLLM_MODEL=m\nTRANSLATE_CAPTIONS=en\n`,
  );
  const settings = await createSettingsStore({ path: join(root, '.env') });
  cleanups.push(() => settings.close());
  const hub = createEventHub();
  const kept = new Map<number, string>();
  const translator = createCaptionTranslator({
    hub,
    llm: createLlmService(settings.current),
    settings: settings.current,
    prompt: createPromptLoader(),
    liveClassId: () => 'class-1',
    running: () => true,
    translationOf: (id) => kept.get(id) ?? null,
    keepTranslation: (_classId, id, translation) => kept.set(id, translation),
    glossary: async () => ['王小明'],
    logger: { warn: () => undefined, info: () => undefined },
    batchWindowMs: 50,
  });
  cleanups.push(() => translator.close());
  const finals: Array<{ id: number; translation: string }> = [];
  hub.subscribe((event: LiveEvent) => {
    if (event.name === 'line.translated' && event.data.final) finals.push(event.data);
  });

  hub.publish('line.appended', line(1, '同学们好'));
  await waitFor(() => kept.get(1) === 'EN(同学们好)', 10_000, 'line 1 translated');
  // The recognizer extended line 1 (a merged segment): translated again with its new text.
  hub.publish('line.updated', line(1, '同学们好，今天讲队列'));
  await waitFor(() => kept.get(1) === 'EN(同学们好，今天讲队列)', 10_000, 'line 1 again');
  // The same text again (its page changed): nothing to translate.
  hub.publish('line.updated', { ...line(1, '同学们好，今天讲队列'), page: 3 });
  // While a request is under way, the next lines wait for it.
  hub.publish('line.appended', line(2, '先看入队'));
  await waitFor(() => llm.chatRequests.length === 3, 10_000, 'the request of line 2');
  hub.publish('line.appended', line(3, '再看出队'));
  hub.publish('line.appended', line(4, 'Now the stack.'));
  await waitFor(() => kept.size === 3, 10_000, 'lines 2 and 3');
  expect(llm.chatRequests.map(linesOf)).toEqual([
    ['同学们好'],
    ['同学们好，今天讲队列'],
    ['先看入队'],
    ['再看出队'],
  ]);
  expect(most).toBe(1);
  expect(finals.map((item) => item.id)).toEqual([1, 1, 2, 3]);
  expect(kept.has(4)).toBe(false);
});
