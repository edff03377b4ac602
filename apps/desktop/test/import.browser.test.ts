/// <reference lib="dom" />
// Importing a recording from the app window, against the real backend with PocketSphinx and real
// espeak-ng speech made here: a WAV dropped on the window (a DataTransfer drop) or picked with the
// file picker, its upload and its import's progress in the class panel and on the 320x80 bar,
// cancel and resume, the state back after a reload, the class in the library and why there are
// no notes; a PDF dropped is refused with the formats, and a drop while a class runs gets the
// backend's refusal. Chinese and English. Screenshots are kept in apps/desktop/test-results/.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Sentence, speechWav } from './support/speech-wav.ts';
import {
  buildUiInto,
  launchBrowser,
  openApp,
  pageErrors,
  RESULTS_DIR,
  startBackend,
  startClass,
  type TestBackend,
} from './support/ui-harness.ts';

const POCKETSPHINX = ['ASR_MODE=local', 'LOCAL_ASR_ENGINE=pocketsphinx'];
const PANEL = { width: 480, height: 520 };
const BAR = { width: 320, height: 80 };

const LECTURE: Sentence[] = [
  { text: 'good morning everyone, today we talk about sorting algorithms', pauseAfterMs: 1200 },
  { text: 'please open your books to chapter three', pauseAfterMs: 1200 },
  { text: 'a heap keeps the smallest element at the top', pauseAfterMs: 1200 },
  { text: 'the homework is due next monday', pauseAfterMs: 1500 },
];

let uiDir: string;
let root: string;
/** About half a minute of speech, and about three minutes (the same sentences again). */
let shortWav: Buffer;
let longWav: Buffer;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let context: BrowserContext;
let backend: TestBackend | undefined;
let page: Page | undefined;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'desktop-import-'));
  uiDir = await buildUiInto(join(root, 'ui'));
  shortWav = await readFile(await speechWav(join(root, 'short.wav'), LECTURE));
  const many = Array.from({ length: 7 }, () => LECTURE).flat();
  longWav = await readFile(await speechWav(join(root, 'long.wav'), many));
  browser = await launchBrowser();
  context = browser.context;
}, 180_000);

afterEach(async () => {
  const [closing, disposing] = [page, backend];
  [page, backend] = [undefined, undefined];
  await closing?.close();
  await disposing?.dispose();
  if (closing) expect(pageErrors(closing)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await rm(root, { recursive: true, force: true });
});

const shot = (name: string) => join(RESULTS_DIR, name);

/** Opens the app at `size` in `lang`, the first-run step answered. */
async function open(lang: 'zh' | 'en', size: { width: number; height: number }): Promise<Page> {
  const opened = await openApp(context, backend!, size);
  await opened.evaluate((language) => {
    localStorage.setItem('class-assistant.lang', language);
    localStorage.setItem('class-assistant.studentAsked', 'true');
  }, lang);
  await opened.reload();
  await opened.locator('.bar[data-connection="online"]').waitFor();
  return opened;
}

/**
 * Drags a file over `selector` and drops it there, as the system's file manager does: the
 * drop target shows while it is over the window (its text is returned).
 */
async function dropFile(
  target: Page,
  selector: string,
  file: { name: string; type: string; bytes: Buffer },
): Promise<string> {
  const dataTransfer = await target.evaluateHandle(
    ({ name, type, data }) => {
      const bytes = Uint8Array.from(atob(data), (char) => char.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], name, { type }));
      return transfer;
    },
    { name: file.name, type: file.type, data: file.bytes.toString('base64') },
  );
  await target.dispatchEvent(selector, 'dragenter', { dataTransfer });
  await target.dispatchEvent(selector, 'dragover', { dataTransfer });
  const overlay = target.locator('.recording-drop');
  await overlay.waitFor();
  const text = (await overlay.textContent()) ?? '';
  await target.dispatchEvent(selector, 'drop', { dataTransfer });
  await overlay.waitFor({ state: 'hidden' });
  return text;
}

/** Every text `selector` showed from now on (progress passes quickly on a fast machine). */
async function recordTexts(target: Page, selector: string): Promise<() => Promise<string[]>> {
  await target.evaluate((watched) => {
    const seen: string[] = [];
    (window as unknown as { seenTexts: string[] }).seenTexts = seen;
    const look = () => {
      for (const element of Array.from(document.querySelectorAll(watched))) {
        const text = element.textContent ?? '';
        if (text !== '' && !seen.includes(text)) seen.push(text);
      }
    };
    new MutationObserver(look).observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
    });
  }, selector);
  return () => target.evaluate(() => (window as unknown as { seenTexts: string[] }).seenTexts);
}

const TEXT = {
  zh: {
    drop: '松开以导入录音',
    course: '算法',
    uploading: /^上传中 \d+%$/,
    progress: /^\d+% 已完成 \d+ \/ \d+ (分钟|秒)，(约剩 \d+ 分钟|不到 1 分钟|正在估算剩余时间)$/,
    done: '已导入：算法',
    notes: '没有写笔记：AI 助手还没有设置好。',
    open: '在课程库中打开',
    sourceEnded: '录音源已播完',
    microphone: '麦克风',
  },
  en: {
    drop: 'Drop to import the recording',
    course: 'Algorithms',
    uploading: /^Uploading \d+%$/,
    progress:
      /^\d+% \d+ of \d+ (min|s) done, (about \d+ min left|less than a minute left|estimating the time left)$/,
    done: 'Imported: Algorithms',
    notes: 'No notes were written: the AI is not set up.',
    open: 'Open in the library',
    sourceEnded: 'The audio source has ended',
    microphone: 'Microphone',
  },
} as const;

describe('importing a recording from the app window', () => {
  it.each(['zh', 'en'] as const)(
    '%s: a WAV dropped on the 480x520 window is uploaded, recognised with progress and lands in the library',
    async (lang) => {
      const text = TEXT[lang];
      backend = await startBackend({ uiDir, env: POCKETSPHINX });
      page = await open(lang, PANEL);
      // Dropped on the library panel: the class panel takes it.
      await page.keyboard.press('l');
      expect(
        await dropFile(page, '.panel-content', {
          name: 'lecture-3.wav',
          type: 'audio/wav',
          bytes: shortWav,
        }),
      ).toBe(text.drop);
      const form = page.locator('.class-panel .import-form');
      await form.waitFor();
      expect(await form.locator('.file-info').textContent()).toContain('lecture-3.wav');
      // The course name is the file's name until the student writes another.
      expect(await page.locator('#import-course').inputValue()).toBe('lecture-3');
      await page.locator('#import-course').fill(text.course);
      await page.screenshot({ path: shot(`import-form-${lang}.png`) });

      const uploads = await recordTexts(page, '.import-form .upload-status');
      await page.locator('#import-start').click();
      const state = page.locator('.import-state');
      await state.waitFor({ timeout: 60_000 });
      expect(await uploads()).toEqual(
        expect.arrayContaining([expect.stringMatching(text.uploading)]),
      );

      const progress = await recordTexts(page, '.import-progress');
      await page.locator('.import-state[data-state="done"]').waitFor({ timeout: 120_000 });
      const done = page.locator('.import-state[data-state="done"]');
      expect(await done.textContent()).toContain(text.done);
      // The recording's end is the import's news: no "the audio source has ended" on the bar.
      expect(await page.locator('.bar-line').textContent()).not.toContain(text.sourceEnded);
      // No LLM is set: the notes are skipped, and the panel says how to get them.
      expect(await done.locator('.import-notes').textContent()).toContain(text.notes);
      // The class form is back, its microphone checked again: not the recording the import read.
      const before = page.locator('.class-panel .class-before');
      await before.waitFor();
      await expect.poll(() => before.textContent(), { timeout: 30_000 }).toContain(text.microphone);
      expect(await before.textContent()).not.toMatch(/\.wav|imports/);
      await page.screenshot({ path: shot(`import-done-${lang}.png`) });
      // The progress said how far it was, unless it finished before the first report.
      for (const line of await progress()) expect(line).toMatch(text.progress);

      await page.getByRole('button', { name: text.open }).click();
      const opened = page.locator('.library-panel .library-class');
      await opened.waitFor();
      await expect
        .poll(() => opened.locator('.library-lines li').count(), { timeout: 30_000 })
        .toBeGreaterThan(0);
      expect(await opened.textContent()).toContain(text.course);
      await page.screenshot({ path: shot(`import-library-${lang}.png`) });
    },
    300_000,
  );

  it('en: a picked recording shows its progress on the 320x80 bar, cancels, comes back after a reload and resumes', async () => {
    backend = await startBackend({ uiDir, env: POCKETSPHINX });
    page = await open('en', PANEL);
    await page.keyboard.press('m');
    await page.locator('#import-recording').waitFor();
    await page
      .locator('#import-file')
      .setInputFiles({ name: 'Week 5 lecture.wav', mimeType: 'audio/wav', buffer: longWav });
    expect(await page.locator('#import-course').inputValue()).toBe('Week 5 lecture');
    await page.locator('#import-start').click();
    await page.locator('.import-state[data-state="running"]').waitFor({ timeout: 60_000 });
    // The import is the only thing to stop: no class controls beside it.
    expect(await page.locator('#stop-class').count()).toBe(0);

    // Back to the bar, as the app window shrinks to 320x80: the bar says how far it is.
    await page.keyboard.press('Escape');
    await page.setViewportSize(BAR);
    const line = page.locator('.bar .import-line');
    await line.waitFor();
    expect(await line.textContent()).toMatch(
      /^Importing \d+% · (about \d+ min left|less than a minute left|estimating the time left)$/,
    );
    // The status says it too (in its tooltip and to screen readers when the words do not fit).
    expect(await page.locator('.bar .status').getAttribute('aria-label')).toMatch(/^Importing/);
    const box = await line.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(BAR.width);
    expect(box!.y + box!.height).toBeLessThanOrEqual(BAR.height);
    await page.screenshot({ path: shot('import-bar-en.png') });

    // Cancel in the panel: what was recognised is kept.
    await page.setViewportSize(PANEL);
    await page.keyboard.press('m');
    await page.locator('#import-cancel').click();
    const cancelled = page.locator('.import-state[data-state="cancelled"]');
    await cancelled.waitFor({ timeout: 60_000 });
    expect(await cancelled.textContent()).toMatch(
      /^Import cancelled: Week 5 lecture\.( The \d+ lines so far are kept\.)?/,
    );
    await expect.poll(() => line.isVisible()).toBe(false);

    // A reload (or a second window) asks the backend: the cancelled import is back, with Resume.
    await page.reload();
    await page.locator('.bar[data-connection="online"]').waitFor();
    await page.keyboard.press('m');
    await page.locator('.import-state[data-state="cancelled"]').waitFor();
    await page.screenshot({ path: shot('import-cancelled-en.png') });
    await page.locator('#import-resume').click();
    await page.locator('.import-state[data-state="done"]').waitFor({ timeout: 240_000 });
    expect(await page.locator('.import-state').textContent()).toContain('Imported: Week 5 lecture');
  }, 400_000);

  it.each(['zh', 'en'] as const)(
    '%s: Cancel while the recording uploads stops the upload: nothing is imported, the form stays to try again',
    async (lang) => {
      backend = await startBackend({ uiDir, env: POCKETSPHINX });
      page = await open(lang, PANEL);
      // A slow network: the upload takes long enough to be cancelled half-way.
      const network = await context.newCDPSession(page);
      await network.send('Network.enable');
      await network.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: 256 * 1024,
      });
      await page.keyboard.press('m');
      await page.locator('#import-recording').waitFor();
      await page
        .locator('#import-file')
        .setInputFiles({ name: 'lecture.wav', mimeType: 'audio/wav', buffer: longWav });
      await page.locator('#import-start').click();
      const status = page.locator('.import-form .upload-status');
      await expect
        .poll(async () => Number(/(\d+)%/.exec((await status.textContent()) ?? '')?.[1] ?? 0), {
          timeout: 60_000,
        })
        .toBeGreaterThan(0);
      await page.locator('#import-form-cancel').click();
      await expect
        .poll(() => status.textContent())
        .toBe(
          lang === 'zh'
            ? '已取消上传，没有导入任何内容。'
            : 'Upload cancelled; nothing was imported.',
        );
      // The form is still there with the file; the backend has no import.
      expect(await page.locator('.import-form .file-info').textContent()).toContain('lecture.wav');
      expect(await page.locator('.import-state').count()).toBe(0);
      const current = await page.evaluate(async () => (await fetch('/api/import')).json());
      expect(current).toMatchObject({ import: null });
      await page.screenshot({ path: shot(`import-upload-cancelled-${lang}.png`) });

      // At full speed again, Import sends it and the import runs.
      await network.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
      await page.locator('#import-start').click();
      await page.locator('.import-state[data-state="running"]').waitFor({ timeout: 60_000 });
      await page.locator('#import-cancel').click();
      await page.locator('.import-state[data-state="cancelled"]').waitFor({ timeout: 60_000 });
    },
    180_000,
  );

  it('en: a recording dropped on the always-on-top (Picture-in-Picture) window opens its import form there', async () => {
    backend = await startBackend({ uiDir, env: POCKETSPHINX });
    page = await open('en', BAR);
    const opened = context.waitForEvent('page');
    await page.locator('.bar-actions .icon-button[title="Keep on top"]').click();
    const pip = await opened;
    await pip.locator('.app .bar').waitFor();
    expect(
      await dropFile(pip, '.bar', { name: 'Week 6.wav', type: 'audio/wav', bytes: shortWav }),
    ).toBe(TEXT.en.drop);
    const form = pip.locator('.class-panel .import-form');
    await form.waitFor();
    expect(await form.locator('.file-info').textContent()).toContain('Week 6.wav');
    expect(await pip.locator('#import-course').inputValue()).toBe('Week 6');
    await pip.close();
  });

  it.each(['zh', 'en'] as const)(
    '%s: a PDF dropped on the 320x80 bar is not a recording: the panel says so and lists the formats',
    async (lang) => {
      backend = await startBackend({ uiDir, env: POCKETSPHINX });
      page = await open(lang, BAR);
      await dropFile(page, '.bar', {
        name: 'slides.pdf',
        type: 'application/pdf',
        bytes: Buffer.from('%PDF-1.4\n%%EOF\n'),
      });
      // The class panel opens (the app window grows to 480x520).
      await page.locator('.app[data-view="panel"]').waitFor();
      await page.setViewportSize(PANEL);
      const refusal = page.locator('.class-panel .import-view .error-box');
      await refusal.waitFor();
      const words = (await refusal.textContent()) ?? '';
      expect(words).toContain(
        lang === 'zh'
          ? 'slides.pdf 不是录音文件。可以导入的格式：'
          : 'slides.pdf is not a recording.',
      );
      for (const format of ['MP3', 'M4A', 'MP4', 'WEBM', 'OGG', 'FLAC', 'WAV']) {
        expect(words).toContain(format);
      }
      expect(words).toContain(
        lang === 'zh' ? '课件请拖到“上传课件”框里。' : 'drop it on "Upload slides"',
      );
      // Nothing was sent: no form, no upload.
      expect(await page.locator('.import-form').count()).toBe(0);
      await page.screenshot({ path: shot(`import-not-recording-${lang}.png`) });
    },
    120_000,
  );

  it.each(['zh', 'en'] as const)(
    '%s: a recording dropped while a class runs gets the backend’s refusal in the UI’s language',
    async (lang) => {
      backend = await startBackend({ uiDir, env: ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=250'] });
      page = await open(lang, BAR);
      await page.setViewportSize(PANEL);
      await startClass(page, 'Live');
      await page.setViewportSize(BAR);
      await dropFile(page, '.bar', { name: 'lecture.wav', type: 'audio/wav', bytes: shortWav });
      await page.locator('.app[data-view="panel"]').waitFor();
      await page.setViewportSize(PANEL);
      await page.locator('#import-start').click();
      const refusal = page.locator('.import-form .error-box');
      await refusal.waitFor({ timeout: 60_000 });
      const message = (await refusal.locator('.error-message').textContent()) ?? '';
      expect(message).not.toBe('');
      // In the UI's language: Chinese words for zh, none for en.
      expect(/[\u4e00-\u9fff]/.test(message)).toBe(lang === 'zh');
      // The class goes on.
      expect(await page.locator('.bar').getAttribute('data-state')).toBe('running');
      await page.screenshot({ path: shot(`import-refused-${lang}.png`) });
    },
    120_000,
  );
});
