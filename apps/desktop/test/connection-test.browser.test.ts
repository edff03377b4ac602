/// <reference lib="dom" />
// "测试连接 / Test connection" in the settings panel, in real Chromium at 480x520 against the real
// backend and a fake OpenAI-compatible service and streaming ASR service on loopback: the key the
// student has typed (not saved) is tested, and the answer says in words what happened.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { type AsrTestServer, createAsrTestServer } from '@class-assistant/asr-protocol/testing';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  buildUiInto,
  launchBrowser,
  openApp,
  pageErrors,
  RESULTS_DIR,
  startBackend,
  type TestBackend,
} from './support/ui-harness.ts';

const GOOD_KEY = 'sk-good0123456789abcdef';
const WRONG_KEY = 'sk-wrong0123456789abcdef';
const SIZE = { width: 480, height: 520 };

let buildRoot: string;
let uiDir: string;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let context: BrowserContext;
let llm: FakeOpenAIServer;
let asr: AsrTestServer;
let backend: TestBackend | undefined;
let page: Page | undefined;

beforeAll(async () => {
  buildRoot = await mkdtemp(join(tmpdir(), 'desktop-connection-test-'));
  uiDir = await buildUiInto(join(buildRoot, 'ui'));
  await mkdir(RESULTS_DIR, { recursive: true });
  browser = await launchBrowser();
  context = browser.context;
  llm = await createFakeOpenAIServer({
    apiKey: GOOD_KEY,
    chat: () => ({ type: 'text', content: 'OK' }),
  });
  asr = await createAsrTestServer({ auth: { appKey: 'app-1', accessKey: 'access-token-1' } });
});

afterEach(async () => {
  const [closing, disposing] = [page, backend];
  [page, backend] = [undefined, undefined];
  await closing?.close();
  await disposing?.dispose();
  if (closing) expect(pageErrors(closing)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await llm?.close();
  await asr?.close();
  await rm(buildRoot, { recursive: true, force: true });
});

const shot = (name: string) => join(RESULTS_DIR, name);

/** Opens the settings panel at 480x520, in `language`. */
async function openSettings(env: string[], language: 'zh' | 'en'): Promise<Page> {
  backend = await startBackend({ uiDir, env });
  page = await openApp(context, backend, SIZE);
  await page.keyboard.press(',');
  const select = page.locator('.app-settings select');
  await select.waitFor();
  if ((await select.inputValue()) !== language) await select.selectOption(language);
  await page.locator('#setting-LLM_API_KEY').waitFor();
  return page;
}

/** Presses a target's button and waits for its new answer. */
async function test(target: string): Promise<Locator> {
  const box = page!.locator(`.connection-test[data-target="${target}"]`);
  const answer = box.locator('[role="status"]');
  const previous = (await answer.count()) > 0 ? await answer.elementHandle() : null;
  const button = box.getByRole('button');
  await button.scrollIntoViewIfNeeded();
  await button.click();
  // The busy state replaces the previous answer; then the new one comes.
  await previous?.waitForElementState('hidden');
  await answer.waitFor();
  expect(await button.isEnabled()).toBe(true);
  await answer.scrollIntoViewIfNeeded();
  return answer;
}

/** The element is on screen, inside the 480x520 window. */
async function expectInsideWindow(element: Locator): Promise<void> {
  expect(await element.isVisible()).toBe(true);
  const box = (await element.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(SIZE.width);
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.y + box.height).toBeLessThanOrEqual(SIZE.height);
}

describe('test connection in the settings panel', () => {
  for (const language of ['zh', 'en'] as const) {
    it(`the AI service: the typed wrong key, then the typed right one (${language})`, async () => {
      await openSettings(
        ['ASR_MODE=mock', `LLM_BASE_URL=${llm.baseURL}`, 'LLM_MODEL=deepseek-chat'],
        language,
      );
      const box = page!.locator('.connection-test[data-target="llm"]');
      expect(await box.getByRole('button').textContent()).toBe(
        language === 'zh' ? '测试连接' : 'Test connection',
      );
      const requests = llm.chatRequests.length;

      await page!.locator('#setting-LLM_API_KEY').fill(WRONG_KEY);
      const refused = await test('llm');
      expect(await refused.getAttribute('data-result')).toBe('wrong_key');
      expect(await refused.locator('p').textContent()).toBe(
        language === 'zh'
          ? '大模型服务拒绝了密钥（HTTP 401）：请检查 LLM_API_KEY，从服务的控制台重新复制完整的密钥。'
          : "The LLM service refused the key (HTTP 401): check LLM_API_KEY and copy the whole key from the service's console again.",
      );
      // The technical cause is folded behind 详情 / Details, and shows no key.
      const details = refused.locator('details.technical-details');
      expect(await details.locator('summary').textContent()).toBe(
        language === 'zh' ? '详情' : 'Details',
      );
      expect(await details.locator('.technical-text').isVisible()).toBe(false);
      await details.locator('summary').click();
      expect(await details.locator('.technical-text').textContent()).toContain('401');
      expect(await refused.textContent()).not.toContain(WRONG_KEY);
      await expectInsideWindow(refused);
      await page!.screenshot({ path: shot(`connection-test-llm-wrong-key-${language}.png`) });

      await page!.locator('#setting-LLM_API_KEY').fill(GOOD_KEY);
      const works = await test('llm');
      expect(await works.getAttribute('data-result')).toBe('ok');
      expect(await works.locator('p').textContent()).toMatch(
        language === 'zh'
          ? /^连接正常：.* 接受了密钥，模型 deepseek-chat 在 \d+ 毫秒内作答。$/
          : /^It works: .* accepted the key and the model deepseek-chat answered in \d+ ms\.$/,
      );
      await expectInsideWindow(works);
      await page!.screenshot({ path: shot(`connection-test-llm-works-${language}.png`) });
      // The service got the typed key (the refused one never reached its model); nothing was saved.
      expect(llm.chatRequests.length - requests).toBe(1);
      expect(llm.chatRequests.at(-1)!.headers.authorization).toBe(`Bearer ${GOOD_KEY}`);
      const saved = (await (await fetch(`${backend!.url}api/settings`)).json()) as {
        fields: Record<string, string>;
      };
      expect(saved.fields.LLM_API_KEY).toBe('');
    });
  }

  it('the streaming recognizer: under its keys, with the refused key named (en and zh)', async () => {
    await openSettings(['ASR_MODE=stream', `STREAM_ASR_URL=${asr.url}`], 'en');
    await page!.locator('#setting-STREAM_ASR_APP_KEY').fill('app-1');
    await page!.locator('#setting-STREAM_ASR_ACCESS_KEY').fill('not-the-token');
    const refused = await test('stream');
    expect(await refused.getAttribute('data-result')).toBe('wrong_key');
    expect(await refused.locator('p').textContent()).toBe(
      "The streaming recognition service refused the key (HTTP 401): check STREAM_ASR_ACCESS_KEY and copy the whole key from the service's console again.",
    );
    await expectInsideWindow(refused);
    await page!.screenshot({ path: shot('connection-test-stream-wrong-key-en.png') });
    await page!.locator('#setting-STREAM_ASR_ACCESS_KEY').fill('access-token-1');
    expect(await (await test('stream')).getAttribute('data-result')).toBe('ok');
    await page!.locator('.app-settings select').selectOption('zh');
    await page!.locator('#setting-STREAM_ASR_APP_KEY').fill('app-1');
    await page!.locator('#setting-STREAM_ASR_ACCESS_KEY').fill('access-token-1');
    const works = await test('stream');
    expect(await works.locator('p').textContent()).toMatch(
      /^连接正常：流式识别服务接受了密钥和资源/,
    );
    await expectInsideWindow(works);
    await page!.screenshot({ path: shot('connection-test-stream-works-zh.png') });
  });
});
