/// <reference lib="dom" />
// Translated captions in real Chromium against the real backend at the panel's size (480x520),
// with the scripted fake LLM on a loopback socket: a mock class whose lines in the other language
// get their translation under them, smaller, as it streams (Chinese UI translating English lines
// with TRANSLATE_CAPTIONS=zh, English UI translating Chinese lines with =en), in the live
// transcript and in the class in the library; and the settings panel saying why the switch
// cannot work without an LLM. Screenshots in test-results/.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createFakeOpenAIServer,
  type FakeChatReply,
  type FakeOpenAIServer,
  type RecordedChatRequest,
} from '@class-assistant/agent-std/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserSuite,
  openApp,
  RESULTS_DIR,
  startBackend,
  startClass,
  type TestBackend,
} from './support/ui-harness.ts';

const KEY = 'sk-translate-browser-00000000';

const SCRIPT = [
  '好，同学们我们开始上课，今天讲循环队列。',
  'Today we continue with stacks and queues.',
  '栈只允许在栈顶插入和删除。',
  'A stack is last in, first out.',
];

/** What the fake model answers for each line, into either language. */
const TRANSLATIONS: Record<string, string> = {
  '好，同学们我们开始上课，今天讲循环队列。':
    "OK everyone, let's begin: today is about circular queues.",
  '栈只允许在栈顶插入和删除。': 'A stack only allows insertion and deletion at its top.',
  'Today we continue with stacks and queues.': '今天我们继续讲栈和队列。',
  'A stack is last in, first out.': '栈是后进先出的。',
};

/** The numbered lines a request asks to translate. */
function linesOf(request: RecordedChatRequest): string[] {
  const user = String(request.body.messages?.at(-1)?.content ?? '');
  return user
    .split('\n')
    .slice(1)
    .map((line) => line.replace(/^\d+\. /, ''));
}

function translate(request: RecordedChatRequest): FakeChatReply {
  const content = linesOf(request)
    .map((line, index) => `${index + 1}. ${TRANSLATIONS[line] ?? '?'}`)
    .join('\n');
  return { type: 'text', content, chunkSize: 3, delayMs: 20 };
}

let llm: FakeOpenAIServer;
let backend: TestBackend | undefined;
let page: Page | undefined;
const suite = browserSuite('translation', () => {
  const opened = { page, backend };
  [page, backend] = [undefined, undefined];
  return opened;
});

beforeAll(async () => {
  await writeFile(join(suite.root, 'lecture.txt'), `${SCRIPT.join('\n')}\n`);
  llm = await createFakeOpenAIServer({ apiKey: KEY, chat: translate });
});

afterAll(async () => {
  await llm?.close();
});

/** The app at 480x520 in `lang` (a stored preference, as picked in an earlier session). */
async function appIn(lang: 'zh' | 'en', env: string[]): Promise<Page> {
  backend = await startBackend({ uiDir: suite.uiDir, env });
  const opened = await openApp(suite.context, backend, { width: 480, height: 520 });
  await opened.evaluate((value) => localStorage.setItem('class-assistant.lang', value), lang);
  await opened.reload();
  await opened.locator('.bar[data-connection="online"]').waitFor();
  return opened;
}

/** The lines of a list as the student reads them: text, and the translation under it. */
async function shownLines(list: ReturnType<Page['locator']>) {
  return list.locator('li').evaluateAll((items) =>
    items.map((item) => {
      const translation = item.querySelector('.line-translation');
      const span = item.querySelector('span')?.cloneNode(true) as HTMLElement | undefined;
      for (const extra of Array.from(
        span?.querySelectorAll('.line-translation, .alert-keywords') ?? [],
      )) {
        extra.remove();
      }
      const text = span?.textContent ?? '';
      return { text, translation: translation?.textContent ?? null };
    }),
  );
}

describe('translated captions (480x520)', () => {
  for (const [lang, target] of [
    ['zh', 'zh'],
    ['en', 'en'],
  ] as const) {
    it(`${lang} UI, TRANSLATE_CAPTIONS=${target}: the other language's lines get their translation under them, live and in the library`, async () => {
      page = await appIn(lang, [
        'ASR_MODE=mock',
        `MOCK_SCRIPT=${join(suite.root, 'lecture.txt')}`,
        'MOCK_INTERVAL_MS=300',
        'MOCK_LOOP=false',
        `LLM_BASE_URL=${llm.baseURL}`,
        `LLM_API_KEY=${KEY}`,
        'LLM_MODEL=translate-model',
        `TRANSLATE_CAPTIONS=${target}`,
      ]);
      await startClass(page, target === 'en' ? '数据结构' : 'Data structures');
      await page.keyboard.press('t');
      const live = page.locator('.transcript-panel .transcript-lines');
      const expected = SCRIPT.map((text) => ({
        text,
        translation:
          /\p{Script=Han}/u.test(text) === (target === 'en') ? TRANSLATIONS[text]! : null,
      }));
      await expect.poll(() => shownLines(live), { timeout: 30_000 }).toEqual(expected);
      // Smaller than the line, and inside the window.
      const translation = live.locator('.line-translation').first();
      const [lineSize, translationSize] = await Promise.all([
        live
          .locator('li')
          .first()
          .evaluate((item) => Number.parseFloat(getComputedStyle(item).fontSize)),
        translation.evaluate((item) => Number.parseFloat(getComputedStyle(item).fontSize)),
      ]);
      expect(translationSize).toBeLessThan(lineSize);
      const box = await translation.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 480).toBe(true);
      await page.screenshot({ path: join(RESULTS_DIR, `translation-live-${lang}.png`) });

      // The class ends; in the library its lines keep their translations.
      const stopped = await fetch(`${backend!.url}api/stop_monitor?with_summary=false`, {
        method: 'POST',
      });
      expect(stopped.status).toBe(200);
      await page.locator('.bar[data-state="idle"]').waitFor();
      await page.keyboard.press('l');
      await page.locator('.library-item').first().click();
      const library = page.locator('.library-lines');
      await expect.poll(() => shownLines(library), { timeout: 10_000 }).toEqual(expected);
      await page.screenshot({ path: join(RESULTS_DIR, `translation-library-${lang}.png`) });
    }, 90_000);
  }

  for (const lang of ['zh', 'en'] as const) {
    it(`${lang}: without an LLM the settings say why the switch cannot translate, and what it costs`, async () => {
      page = await appIn(lang, ['ASR_MODE=mock', 'LLM_API_KEY=', 'TRANSLATE_CAPTIONS=en']);
      await page.keyboard.press(',');
      const section = page.locator('.caption-translation');
      await section.waitFor();
      expect(await section.locator('select').inputValue()).toBe('en');
      const notice = section.locator('.translation-no-llm');
      await notice.waitFor();
      const text = await notice.textContent();
      expect(text).toContain('LLM_API_KEY');
      expect(text).toContain(
        lang === 'zh' ? '字幕翻译需要大模型' : 'Translated captions need an LLM',
      );
      if (lang === 'en') expect(text).not.toMatch(/[：，。（）]/);
      expect(await section.locator('.translation-cost').textContent()).toBe(
        lang === 'zh'
          ? '约 11.5 万 tokens / 课时（每小时课堂的估计用量）'
          : 'about 115k tokens per class hour (estimate)',
      );
      await notice.scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(RESULTS_DIR, `translation-no-llm-${lang}.png`) });
      // Turned off, the notice goes.
      await section.locator('select').selectOption('off');
      await notice.waitFor({ state: 'detached' });
    }, 60_000);
  }
});
