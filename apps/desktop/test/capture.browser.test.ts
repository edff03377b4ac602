/// <reference lib="dom" />
// A class with AUDIO_INPUT=app in real Chromium: its fake microphone plays a WAV of espeak-ng
// speech, the page captures it (getUserMedia, the capture worklet) and streams it over the
// capture socket to the real backend, whose energy VAD and PocketSphinx turn it into transcript
// lines and a keyword alert. Then what a student must be told: a microphone that disappears,
// and a permission that was refused. Screenshots are kept in apps/desktop/test-results/.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { speechWav } from './support/speech-wav.ts';
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

/** Two sentences close together (one line, as local mode merges), a long pause, a third. */
const LECTURE = [
  { text: 'good morning everyone', pauseAfterMs: 1500 },
  { text: 'today we will talk about binary search trees', pauseAfterMs: 4500 },
  { text: 'please open your books to page ten', pauseAfterMs: 2500 },
];
const APP_CLASS = ['ASR_MODE=local', 'LOCAL_ASR_ENGINE=pocketsphinx', 'AUDIO_INPUT=app'];
/** The student's own keywords: words of the lecture PocketSphinx hears well. */
const KEYWORDS = ['books', 'page', 'morning', 'binary'];

let root: string;
let uiDir: string;
/** Chromium whose fake microphone plays the lecture, permission granted. */
let granted: Awaited<ReturnType<typeof launchBrowser>>;
/** The same microphone, the permission refused (no fake prompt that says yes). */
let refused: Awaited<ReturnType<typeof launchBrowser>>;
let backend: TestBackend | undefined;
let page: Page | undefined;

/** Keeps the page's microphone streams where the test can reach them (to make one go away). */
const KEEP_STREAMS = `
  window.__streams = [];
  const getUserMedia = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
  navigator.mediaDevices.getUserMedia = async (constraints) => {
    const stream = await getUserMedia(constraints);
    window.__streams.push(stream);
    return stream;
  };
`;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'desktop-capture-'));
  uiDir = await buildUiInto(join(root, 'ui'));
  await mkdir(RESULTS_DIR, { recursive: true });
  const lecture = await speechWav(join(root, 'lecture.wav'), LECTURE);
  const microphone = [
    '--use-fake-device-for-media-stream',
    // `%noloop`: the file plays once, then the device gives silence (a quiet room).
    `--use-file-for-fake-audio-capture=${lecture}%noloop`,
  ];
  granted = await launchBrowser({ args: [...microphone, '--use-fake-ui-for-media-stream'] });
  await granted.context.addInitScript(KEEP_STREAMS);
  refused = await launchBrowser({ args: microphone });
});

afterEach(async () => {
  // Taken over first: a teardown that outlived its hook must not clear the next test's.
  const [closing, disposing] = [page, backend];
  [page, backend] = [undefined, undefined];
  await closing?.close();
  await disposing?.dispose();
  if (closing) expect(pageErrors(closing)).toEqual([]);
});

afterAll(async () => {
  await granted?.close();
  await refused?.close();
  await rm(root, { recursive: true, force: true });
});

const shot = (name: string) => join(RESULTS_DIR, name);

async function backendWithKeywords(): Promise<TestBackend> {
  const started = await startBackend({ uiDir, env: APP_CLASS });
  await fetch(`${started.url}api/update_keywords`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ keywords: KEYWORDS }),
  });
  return started;
}

async function checkMic(current: TestBackend): Promise<Record<string, unknown>> {
  return (await (await fetch(`${current.url}api/check_mic`)).json()) as Record<string, unknown>;
}

/** Waits until the level meter of a capture view shows speech. */
async function meterMoves(view: Locator): Promise<void> {
  const level = () =>
    view.locator('.capture-level').evaluate((meter) => (meter as HTMLMeterElement).value);
  await expect.poll(level, { timeout: 15_000 }).toBeGreaterThan(0.3);
}

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z']+/)
    .filter(Boolean);

describe('a class listening to the app window (AUDIO_INPUT=app)', () => {
  it('is transcribed from the window’s microphone: lines and a keyword alert', async () => {
    backend = await backendWithKeywords();
    page = await openApp(granted.context, backend, { width: 480, height: 520 });
    await page.keyboard.press('m');
    const view = page.locator('.class-panel .capture-view');
    await view.waitFor();
    expect(await view.locator('.capture-status').textContent()).toBe(
      '上课时用本窗口的麦克风收音（AUDIO_INPUT=app）。',
    );
    // No "microphone check" of the backend's own device: the microphone is in this window.
    expect(await page.locator('.class-panel .check-row').count()).toBe(2);
    expect(await page.locator('.class-panel .check-row').nth(1).isHidden()).toBe(true);
    await page.screenshot({ path: shot('capture-class-panel-before.png') });

    await page.locator('#course-name').fill('Data structures');
    await page.locator('#start-class').click();
    await page.locator('.bar[data-state="running"]').waitFor();
    await page.locator('.bar[data-capture="receiving"]').waitFor({ timeout: 20_000 });
    const mic = await checkMic(backend);
    expect(mic).toMatchObject({ status: 'ok', input: 'app', in_use: true, sample_rate: 16000 });
    expect(mic.device).toMatch(/fake/i);

    // The meter moves with the speech, in the panel during class.
    await page.keyboard.press('m');
    await meterMoves(page.locator('.class-panel .capture-view'));
    expect(await page.locator('.class-panel .capture-status').textContent()).toMatch(
      /^正在收音：.*Fake/,
    );
    await page.screenshot({ path: shot('capture-class-panel-receiving.png') });
    await page.keyboard.press('Escape');

    const card = page.locator('.alert-card');
    await card.waitFor({ timeout: 45_000 });
    const chips = await card.locator('.alert-keywords .chip').allTextContents();
    expect(chips.some((chip) => KEYWORDS.includes(chip))).toBe(true);
    await page.setViewportSize({ width: 320, height: 156 });
    await page.screenshot({ path: shot('capture-bar-alert.png') });

    const transcript = async () =>
      (
        (await (await fetch(`${backend!.url}api/transcript`)).json()) as {
          entries: Array<{ text: string }>;
        }
      ).entries;
    await expect.poll(async () => (await transcript()).length, { timeout: 45_000 }).toBe(2);
    const heard = new Set(words((await transcript()).map((entry) => entry.text).join(' ')));
    const spoken = words(LECTURE.map((sentence) => sentence.text).join(' '));
    // PocketSphinx on espeak-ng speech through Chromium's fake device hears 6-11 of the 18 words
    // here from run to run, 5 when the whole suite loads both cores: at least 5 still rules out
    // noise or silence written as lines (the alert above needs a keyword heard too).
    const matched = spoken.filter((word) => heard.has(word));
    console.log(
      `heard ${matched.length} of ${spoken.length} spoken words: ${[...heard].join(' ')}`,
    );
    expect(matched.length).toBeGreaterThanOrEqual(5);
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 320, height: 80 });
    await expect
      .poll(async () => (await page!.locator('.line-text').textContent()) ?? '')
      .toBe((await transcript()).at(-1)?.text);
  }, 120_000);

  it('says so when the microphone disappears, as the backend does, and resumes on retry', async () => {
    backend = await backendWithKeywords();
    page = await openApp(granted.context, backend, { width: 480, height: 520 });
    await startClass(page, 'Data structures');
    await page.locator('.bar[data-capture="receiving"]').waitFor({ timeout: 20_000 });

    // The device goes away (unplugged): its track ends.
    await page.evaluate(() => {
      const streams = (window as unknown as { __streams: MediaStream[] }).__streams;
      for (const track of streams.at(-1)?.getAudioTracks() ?? []) {
        track.stop();
        track.dispatchEvent(new Event('ended'));
      }
    });
    const toast = page.locator('.line-text.toast.error');
    await toast.waitFor();
    expect(await toast.textContent()).toBe(
      '麦克风断开了（被拔出或被其他程序占用）：接回后会自动继续，或点“重试”。',
    );
    await page.locator('.bar[data-capture="stopped"]').waitFor();
    expect(await page.locator('.status-text').textContent()).toBe('没有收到声音');
    await page.screenshot({ path: shot('capture-bar-device-lost.png') });
    expect(await checkMic(backend)).toMatchObject({
      status: 'error',
      input: 'app',
      error_code: 'AUDIO_CAPTURE_STOPPED',
      message: expect.stringContaining(
        'The app window cannot capture: the microphone was disconnected',
      ),
    });

    await page.keyboard.press('m');
    const status = page.locator('.class-panel .capture-status');
    expect(await status.getAttribute('data-tone')).toBe('bad');
    await page.screenshot({ path: shot('capture-class-panel-device-lost.png') });
    await status.locator('button', { hasText: '重试' }).click();
    await page.locator('.bar[data-capture="receiving"]').waitFor({ timeout: 20_000 });
    expect(await checkMic(backend)).toMatchObject({ status: 'ok', input: 'app' });
  }, 90_000);

  it('says the microphone permission was refused, and the backend reports no audio', async () => {
    backend = await backendWithKeywords();
    page = await openApp(refused.context, backend, { width: 480, height: 520 });
    await startClass(page, 'Data structures');
    const toast = page.locator('.line-text.toast.error');
    await toast.waitFor({ timeout: 20_000 });
    expect(await toast.textContent()).toBe(
      '麦克风权限被拒绝：请点地址栏左侧的图标，允许本网站使用麦克风，然后点“重试”。',
    );
    await page.locator('.bar[data-capture="stopped"]').waitFor();
    expect(await page.locator('.status-text').textContent()).toBe('没有收到声音');
    expect(await checkMic(backend)).toMatchObject({
      status: 'error',
      error_code: 'AUDIO_CAPTURE_STOPPED',
      message: expect.stringContaining('the microphone permission was denied'),
    });
    await page.keyboard.press('m');
    expect(await page.locator('.class-panel .capture-status').textContent()).toBe(
      '麦克风权限被拒绝：请点地址栏左侧的图标，允许本网站使用麦克风，然后点“重试”。 重试',
    );
    await page.screenshot({ path: shot('capture-class-panel-permission-denied.png') });
  }, 60_000);

  it('settings: the student picks the device and tests it; nothing is sent without a class', async () => {
    backend = await backendWithKeywords();
    page = await openApp(granted.context, backend, { width: 480, height: 520 });
    await page.keyboard.press(',');
    const view = page.locator('.settings-panel .capture-view');
    await view.waitFor();
    await view.locator('.capture-test').click();
    await expect
      .poll(() => view.locator('.capture-status').textContent(), { timeout: 10_000 })
      .toMatch(/^测试中：.*Fake.*（不会发送）$/);
    // Allowed once, the devices have names.
    await expect
      .poll(() => view.locator('.capture-device option').allTextContents())
      .toContain('Fake Audio Input 1');
    await meterMoves(view);
    await page.screenshot({ path: shot('capture-settings-test.png') });

    await view.locator('.capture-device').selectOption({ label: 'Fake Audio Input 1' });
    await expect
      .poll(() => view.locator('.capture-status').textContent())
      .toBe('测试中：Fake Audio Input 1（不会发送）');
    expect(
      await page.evaluate(() => localStorage.getItem('class-assistant.captureDevice')),
    ).not.toBe('');
    expect(backend.app.classAssistant.capture.status()).toMatchObject({
      state: 'off',
      connected: false,
    });
    await view.locator('.capture-test').click();
    expect(await view.locator('.capture-status').textContent()).toBe(
      '上课时用本窗口的麦克风收音（AUDIO_INPUT=app）。',
    );
    await page.evaluate(() => localStorage.removeItem('class-assistant.captureDevice'));
  });
});
