/// <reference lib="dom" />
// The class panel at 480x520 in Chinese and English, against the real backend: why a class cannot
// start (no model, no microphone) in the UI's language with the technical cause behind 详情, the
// answers to pause and resume in one language, and a model download that cannot reach its
// sources, with Retry and the other sources. Screenshots are kept in apps/desktop/test-results/.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

let uiDir: string;
let buildRoot: string;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let context: BrowserContext;
let backend: TestBackend | undefined;
let page: Page | undefined;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  buildRoot = await mkdtemp(join(tmpdir(), 'desktop-class-panel-'));
  uiDir = await buildUiInto(join(buildRoot, 'ui'));
  await mkdir(RESULTS_DIR, { recursive: true });
  browser = await launchBrowser();
  context = browser.context;
});

afterEach(async () => {
  const [closing, disposing] = [page, backend];
  [page, backend] = [undefined, undefined];
  await closing?.close();
  await disposing?.dispose();
  for (const close of closers.splice(0)) await close();
  if (closing) expect(pageErrors(closing)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await rm(buildRoot, { recursive: true, force: true });
});

const shot = (name: string) => join(RESULTS_DIR, name);
const CJK = /[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]/;

/** Opens the app at 480x520 in `lang`, the first-run step answered, and the class panel open. */
async function openClassPanel(lang: 'zh' | 'en'): Promise<Page> {
  const opened = await openApp(context, backend!, { width: 480, height: 520 });
  await opened.evaluate((language) => {
    localStorage.setItem('class-assistant.lang', language);
    localStorage.setItem('class-assistant.studentAsked', 'true');
  }, lang);
  await opened.reload();
  await opened.locator('.bar[data-connection="online"]').waitFor();
  await opened.keyboard.press('m');
  await opened.locator('.class-panel').waitFor();
  return opened;
}

/**
 * `locator` is on screen, inside the 480x520 window. Scrolled into view, a box with a fractional
 * height can end a fraction of a pixel past the edge (the scroll offset is whole pixels): less
 * than one pixel is inside.
 */
async function expectInsideWindow(locator: Locator) {
  await locator.scrollIntoViewIfNeeded();
  const box = await locator.boundingBox();
  expect(box).not.toBeNull();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThan(481);
  expect(box!.y + box!.height).toBeLessThan(521);
}

/** The language a text is written in: no Chinese characters in English, no English words in Chinese. */
function expectLanguage(text: string, lang: 'zh' | 'en') {
  if (lang === 'en') expect(text).not.toMatch(CJK);
  else {
    expect(text).toMatch(CJK);
    // Setting names and modes (AUDIO_INPUT, mic, local) may appear; an English sentence not.
    expect(text).not.toMatch(/\b[A-Za-z]+ [a-z]+ [a-z]+\b/);
  }
}

/** A port nothing listens on (a download site that cannot be reached). */
async function deadPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A download site on `port` serving `files` under /NAME/ (started once the test wants it up). */
async function filesHost(port: number, name: string, files: Record<string, Buffer>) {
  const requests: string[] = [];
  const server = createHttpServer((request, response) => {
    requests.push(request.url ?? '');
    const file = files[(request.url ?? '').slice(`/${name}/`.length)];
    if (!request.url?.startsWith(`/${name}/`) || !file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-length': file.length }).end(file);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { requests };
}

describe.each(['zh', 'en'] as const)('the class panel in %s', (lang) => {
  it(`${lang}: starting without a model says so in the UI's language, with the demo mode one tap away`, async () => {
    const dead = await deadPort();
    const { folderSource } = await import('@class-assistant/server');
    backend = await startBackend({
      uiDir,
      env: ['ASR_MODE=local', 'LOCAL_ASR_LANGUAGE=zh'],
      options: {
        modelCatalogue: [
          {
            id: 'test-zh',
            name: 'sherpa-onnx-test-zh',
            engine: 'sherpa' as const,
            language: 'zh' as const,
            languages: ['zh'],
            sizeBytes: 1000,
            diskBytes: 1000,
            description: 'a made-up model',
            licence: 'Apache-2.0',
            streaming: false,
            publishedAccuracy: [],
            packaging: 'files' as const,
            files: [{ name: 'tokens.txt', sizeBytes: 1000, sha256: 'a'.repeat(64) }],
            sources: [
              folderSource(
                'official',
                'official',
                { zh: '官方源', en: 'the official host' },
                `http://127.0.0.1:${dead}/m`,
              ),
            ],
          },
        ],
      },
    });
    page = await openClassPanel(lang);
    await page.locator('.class-panel .model-offer').waitFor();
    await page.locator('#start-class').click();
    const box = page.locator('.class-panel .panel-status .error-box');
    await box.waitFor();
    const message = (await box.locator('.error-message').textContent()) ?? '';
    const detail = (await box.locator('.error-detail').textContent()) ?? '';
    expect(message).toBe(
      lang === 'zh' ? '当前识别方式不可用。' : 'This recognition mode is not available.',
    );
    expect(detail).toContain(
      lang === 'zh' ? '没有安装中文离线模型' : 'No offline model for Chinese',
    );
    expect(detail).toContain(
      lang === 'zh' ? '请在课堂面板下载一个' : 'Download one in the class panel',
    );
    expectLanguage(message, lang);
    if (lang === 'en') expectLanguage(detail, lang);
    expect(await box.getAttribute('role')).toBe('alert');
    const demo = box.getByRole('button', {
      name: lang === 'zh' ? '改用演示模式' : 'Use the demo mode',
    });
    await expectInsideWindow(box.locator('.error-message'));
    await expectInsideWindow(demo);
    await page.screenshot({ path: shot(`panel-class-start-no-model-${lang}.png`) });
  });

  it(`${lang}: starting without a microphone says so in words; ALSA's text only behind ${lang === 'zh' ? '详情' : 'Details'}`, async () => {
    // Local mode with the system's PocketSphinx model: this machine has no sound card.
    backend = await startBackend({ uiDir, env: ['ASR_MODE=local', 'LOCAL_ASR_LANGUAGE=en'] });
    page = await openClassPanel(lang);
    await page.locator('.class-panel .check.ok').waitFor();
    await page.locator('#start-class').click();
    const box = page.locator('.class-panel .panel-status .error-box');
    await box.waitFor({ timeout: 60_000 });
    const message = (await box.locator('.error-message').textContent()) ?? '';
    expect(message).toBe(
      lang === 'zh'
        ? '找不到麦克风：这台电脑没有可用的录音设备。请接上麦克风并允许本应用使用后重试，或切换到演示模式。'
        : 'No microphone found: this computer has no audio input device. Connect a microphone, let the app use it and try again, or use the demo mode.',
    );
    expectLanguage(message, lang);
    // What the student reads (the folded details are not shown).
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text, without what is folded
    expect(await box.innerText()).not.toMatch(/pcm|ALSA|audio system/);
    // The system's words are there, folded: visible only once 详情 / Details is opened.
    const technical = box.locator('.technical-text');
    expect(await technical.isVisible()).toBe(false);
    const summary = box.locator('.technical-details summary');
    expect(await summary.textContent()).toBe(lang === 'zh' ? '详情' : 'Details');
    await expectInsideWindow(box.locator('.error-message'));
    await page.screenshot({ path: shot(`panel-class-start-no-microphone-${lang}.png`) });
    await summary.click();
    await technical.waitFor();
    expect(await technical.textContent()).toContain('no audio input device');
    await expectInsideWindow(technical);
    await page.screenshot({ path: shot(`panel-class-start-no-microphone-details-${lang}.png`) });
    // The way out: the demo class starts from the box.
    await box
      .getByRole('button', { name: lang === 'zh' ? '改用演示模式' : 'Use the demo mode' })
      .click();
    await page.locator('.bar[data-state="running"]').waitFor({ timeout: 20_000 });
  });

  it(`${lang}: pause and resume, and a pause the class no longer needs, answer in one language`, async () => {
    backend = await startBackend({ uiDir, env: ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=250'] });
    page = await openClassPanel(lang);
    // Every toast the bar shows is recorded.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { toasts: string[] }).toasts = seen;
      new MutationObserver(() => {
        const toast = document.querySelector('.line-text.toast');
        const text = toast?.textContent ?? '';
        if (text !== '' && seen.at(-1) !== text) seen.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.locator('#start-class').click();
    await page.locator('.bar[data-state="running"]').waitFor();
    // The panel closes once the start is answered, which may come after the first line: M
    // before that would close it instead of opening it.
    await page.locator('.panel-shell').waitFor({ state: 'hidden' });
    await page.keyboard.press('m');
    const pause = page.locator('.class-during .button-row .button').first();
    await pause.click();
    await page.locator('.bar[data-state="paused"]').waitFor();
    expect(await page.locator('.class-during .class-title').textContent()).toMatch(
      lang === 'zh' ? /^课堂已暂停：/ : /^Class paused: /,
    );
    expect(await pause.textContent()).toBe(lang === 'zh' ? '继续' : 'Resume');
    await pause.click();
    await page.locator('.bar[data-state="running"]').waitFor();
    // The class ends elsewhere while the student's pause is on its way: the real answer says so.
    await page.route('**/api/pause_monitor', async (route) => {
      await fetch(`${backend!.url}api/stop_monitor?with_summary=false`, { method: 'POST' });
      await route.continue();
    });
    await pause.click();
    const toast = page.locator('.line-text.toast');
    await expect
      .poll(() => toast.textContent(), { timeout: 10_000 })
      .toBe(lang === 'zh' ? '现在没有在上课。' : 'No class is running.');
    await expectInsideWindow(toast);
    await page.screenshot({ path: shot(`panel-class-pause-answer-${lang}.png`) });
    await page.locator('.bar[data-state="idle"]').waitFor();
    const toasts = await page.evaluate(() => (window as unknown as { toasts: string[] }).toasts);
    expect(toasts.length).toBeGreaterThan(0);
    for (const text of toasts) expectLanguage(text, lang);
  });

  it(`${lang}: a model download that cannot reach its sites says so, offers Retry and the other sources, and retries`, async () => {
    const files = {
      'model.int8.onnx': Buffer.alloc(256 * 1024, 7),
      'tokens.txt': Buffer.from('<blk> 0\n你 1\n好 2\n'),
    };
    const digest = (data: Buffer) => createHash('sha256').update(data).digest('hex');
    const [official, mirror] = [await deadPort(), await deadPort()];
    const { folderSource } = await import('@class-assistant/server');
    backend = await startBackend({
      uiDir,
      env: ['ASR_MODE=local', 'LOCAL_ASR_LANGUAGE=zh'],
      options: {
        modelCatalogue: [
          {
            id: 'test-sense-voice',
            name: 'sherpa-onnx-test-sense-voice',
            engine: 'sherpa' as const,
            language: 'zh' as const,
            languages: ['zh', 'en'],
            sizeBytes: files['model.int8.onnx'].length + files['tokens.txt'].length,
            diskBytes: files['model.int8.onnx'].length + files['tokens.txt'].length,
            description: 'a made-up SenseVoice model',
            licence: 'Apache-2.0',
            streaming: false,
            recommended: true,
            publishedAccuracy: [],
            packaging: 'files' as const,
            files: Object.entries(files).map(([name, data]) => ({
              name,
              sizeBytes: data.length,
              sha256: digest(data),
            })),
            sources: [
              folderSource(
                'official',
                'official',
                { zh: '官方源', en: 'the official host' },
                `http://127.0.0.1:${official}/official`,
              ),
              folderSource(
                'modelscope',
                'modelscope',
                { zh: 'ModelScope', en: 'ModelScope' },
                `http://127.0.0.1:${mirror}/mirror`,
              ),
            ],
          },
        ],
      },
    });
    page = await openClassPanel(lang);
    const offer = page.locator('.class-panel .model-offer');
    await offer.locator('.model-download[data-model="test-sense-voice"]').click();
    const status = offer.locator('.model-status');
    await expect
      .poll(() => status.textContent(), { timeout: 60_000 })
      .toContain(lang === 'zh' ? '无法连接模型下载站点' : 'Cannot reach the model download site');
    const text = (await status.textContent()) ?? '';
    expect(text).toMatch(lang === 'zh' ? /^模型下载失败：/ : /^The model download failed: /);
    expectLanguage(text, lang);
    expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|MODELS_BASE_URL/);
    // The system's words behind 详情 / Details only.
    const technical = offer.locator('.technical-text');
    expect(await technical.isVisible()).toBe(false);
    const retry = offer.getByRole('button', {
      name: lang === 'zh' ? '重试' : 'Retry',
      exact: true,
    });
    expect(
      await offer
        .locator('.model-other-source')
        .evaluateAll((buttons) => buttons.map((button) => button.textContent)),
    ).toEqual(
      lang === 'zh'
        ? ['改从官方源下载', '改从ModelScope下载']
        : ['Download from the official host', 'Download from ModelScope'],
    );
    await expectInsideWindow(status);
    await expectInsideWindow(retry);
    await page.screenshot({ path: shot(`panel-class-model-unreachable-${lang}.png`) });
    await offer.locator('.technical-details summary').click();
    await technical.waitFor();
    expect(await technical.textContent()).toMatch(/ECONNREFUSED/);
    await page.screenshot({ path: shot(`panel-class-model-unreachable-details-${lang}.png`) });

    // The mirror comes back: Retry takes the automatic order again and the model arrives.
    const host = await filesHost(mirror, 'mirror', files);
    await retry.click();
    await expect
      .poll(
        async () => {
          const list = (await (await fetch(`${backend!.url}api/models`)).json()) as {
            items: Array<{ id: string; installed: boolean }>;
          };
          return list.items.find((item) => item.id === 'test-sense-voice')?.installed;
        },
        { timeout: 60_000 },
      )
      .toBe(true);
    expect(host.requests.sort()).toEqual(['/mirror/model.int8.onnx', '/mirror/tokens.txt']);
  });
});
