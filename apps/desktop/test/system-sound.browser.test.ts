/// <reference lib="dom" />
// The computer's sound in the app window (an online class), in real Chromium at the panel's size:
// the student picks "Computer sound" or "Both" in the class panel, Chromium's fake screen share
// (`--use-fake-ui-for-media-stream` accepts the picker; its audio is the fake capture file, as a
// shared tab's sound would be) and fake microphone play espeak-ng speech, the page mixes them in
// its AudioContext and the real backend receives the audio. Then what the student must be told:
// a share cancelled in the picker, and a share without sound ("share audio" left unticked). A
// headless Chromium has no picker to click, so those two come from a page script that answers
// getDisplayMedia as Chromium does after those choices. Screenshots in apps/desktop/test-results/.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
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

const LECTURE = [
  { text: 'good morning everyone', pauseAfterMs: 800 },
  { text: 'today we will talk about binary search trees', pauseAfterMs: 800 },
  { text: 'please open your books to page ten', pauseAfterMs: 800 },
];
const APP_CLASS = ['ASR_MODE=local', 'LOCAL_ASR_ENGINE=pocketsphinx', 'AUDIO_INPUT=app'];

/** What Chromium answers after the student's choice in the share picker. */
const SHARE_CHOICE = `
  const getDisplayMedia = navigator.mediaDevices.getDisplayMedia.bind(navigator.mediaDevices);
  navigator.mediaDevices.getDisplayMedia = async (options) => {
    const choice = localStorage.getItem('test.shareChoice');
    if (choice === 'cancel') throw new DOMException('Permission denied by user', 'NotAllowedError');
    const stream = await getDisplayMedia(options);
    if (choice === 'no-audio') {
      for (const track of stream.getAudioTracks()) {
        track.stop();
        stream.removeTrack(track);
      }
    }
    return stream;
  };
`;

/** Keeps the captured tracks where the test can mute one (as a muted device sounds: silence). */
const KEEP_TRACKS = `
  window.__tracks = {};
  const keep = (name, open) => async (options) => {
    const stream = await open(options);
    window.__tracks[name] = stream.getAudioTracks()[0];
    return stream;
  };
  const devices = navigator.mediaDevices;
  devices.getUserMedia = keep('microphone', devices.getUserMedia.bind(devices));
  devices.getDisplayMedia = keep('system', devices.getDisplayMedia.bind(devices));
`;

let root: string;
let uiDir: string;
let chinese: Awaited<ReturnType<typeof launchBrowser>>;
let english: Awaited<ReturnType<typeof launchBrowser>>;
let backend: TestBackend | undefined;
let page: Page | undefined;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'desktop-system-sound-'));
  uiDir = await buildUiInto(join(root, 'ui'));
  await mkdir(RESULTS_DIR, { recursive: true });
  const lecture = await speechWav(join(root, 'lecture.wav'), LECTURE);
  const args = [
    '--use-fake-device-for-media-stream',
    '--use-fake-ui-for-media-stream',
    `--use-file-for-fake-audio-capture=${lecture}`,
  ];
  chinese = await launchBrowser({ args });
  english = await launchBrowser({ args, locale: 'en-US' });
  await chinese.context.addInitScript(SHARE_CHOICE);
  await english.context.addInitScript(KEEP_TRACKS);
});

afterEach(async () => {
  const [closing, disposing] = [page, backend];
  [page, backend] = [undefined, undefined];
  await closing?.close();
  await disposing?.dispose();
  if (closing) expect(pageErrors(closing)).toEqual([]);
});

afterAll(async () => {
  await chinese?.close();
  await english?.close();
  await rm(root, { recursive: true, force: true });
});

const shot = (name: string) => join(RESULTS_DIR, name);

async function checkMic(current: TestBackend): Promise<Record<string, unknown>> {
  return (await (await fetch(`${current.url}api/check_mic`)).json()) as Record<string, unknown>;
}

/** Waits until a level meter shows silence. */
async function still(meter: Locator): Promise<void> {
  await expect
    .poll(() => meter.evaluate((element) => (element as HTMLMeterElement).value), {
      timeout: 15_000,
    })
    .toBeLessThan(0.05);
}

/** Mutes one captured source and unmutes the other. */
async function only(target: Page, source: 'microphone' | 'system'): Promise<void> {
  await target.evaluate((heard) => {
    const tracks = (window as unknown as { __tracks: Record<string, MediaStreamTrack> }).__tracks;
    for (const [name, track] of Object.entries(tracks)) track.enabled = name === heard;
  }, source);
}

/** Waits until a level meter shows sound. */
async function moves(meter: Locator): Promise<void> {
  await expect
    .poll(() => meter.evaluate((element) => (element as HTMLMeterElement).value), {
      timeout: 15_000,
    })
    .toBeGreaterThan(0.3);
}

/** Opens the class panel and picks a source. */
async function pickSource(target: Page, source: 'microphone' | 'system' | 'both') {
  await target.keyboard.press('m');
  const view = target.locator('.class-panel .capture-view');
  await view.waitFor();
  await view.locator('.capture-source').selectOption(source);
  return view;
}

/** The backend hears sound from the window: its running capture has a level above silence. */
async function backendHears(current: TestBackend): Promise<Record<string, unknown>> {
  let mic: Record<string, unknown> = {};
  await expect
    .poll(
      async () => {
        mic = await checkMic(current);
        return Number(mic.level ?? 0);
      },
      { timeout: 20_000 },
    )
    .toBeGreaterThan(100);
  return mic;
}

describe('the computer’s sound in the app window', () => {
  it('zh: Computer sound is captured from a shared screen, its meter moves, the backend hears it', async () => {
    backend = await startBackend({ uiDir, env: APP_CLASS });
    page = await openApp(chinese.context, backend, { width: 480, height: 520 });
    await page.evaluate(() => localStorage.removeItem('test.shareChoice'));
    const view = await pickSource(page, 'system');
    expect(await view.locator('.capture-source option:checked').textContent()).toBe(
      '电脑声音（在线课）',
    );
    // No microphone to choose for the computer's sound; one meter, the computer's.
    expect(await view.locator('.capture-device').isHidden()).toBe(true);
    expect(await view.locator('.capture-level').getAttribute('data-source')).toBe('system');
    await page.screenshot({ path: shot('system-sound-panel-zh.png') });
    await page.keyboard.press('Escape');

    await startClass(page, '在线课');
    await page.locator('.bar[data-capture="receiving"]').waitFor({ timeout: 20_000 });
    const mic = await backendHears(backend);
    expect(mic).toMatchObject({ status: 'ok', input: 'app', in_use: true });
    expect(mic.device).toMatch(/^Computer sound \(/);
    await page.keyboard.press('m');
    await moves(page.locator('.class-panel .capture-level[data-source="system"]'));
    expect(await page.locator('.class-panel .capture-status').textContent()).toMatch(
      /^正在收音：Computer sound/,
    );
    await page.screenshot({ path: shot('system-sound-receiving-zh.png') });

    // The choice is kept for the next time the window opens.
    await page.reload();
    await page.keyboard.press('m');
    expect(await page.locator('.class-panel .capture-source').inputValue()).toBe('system');
  }, 90_000);

  it('en: Both mixes the microphone and the computer sound, a meter for each', async () => {
    backend = await startBackend({ uiDir, env: APP_CLASS });
    page = await openApp(english.context, backend, { width: 480, height: 520 });
    const view = await pickSource(page, 'both');
    expect(await view.locator('.capture-meter span').allTextContents()).toEqual([
      'Microphone',
      'Computer sound (online class)',
    ]);
    await page.keyboard.press('Escape');
    await startClass(page, 'Online class');
    await page.locator('.bar[data-capture="receiving"]').waitFor({ timeout: 20_000 });
    const mic = await backendHears(backend);
    expect(mic.device).toMatch(/^Fake.* \+ Computer sound \(/);
    await page.keyboard.press('m');
    const panel = page.locator('.class-panel');
    const microphone = panel.locator('.capture-level[data-source="microphone"]');
    const system = panel.locator('.capture-level[data-source="system"]');
    await moves(microphone);
    await moves(system);
    expect(await panel.locator('.capture-status').textContent()).toMatch(
      /^Capturing: Fake.* \+ Computer sound/,
    );
    await page.screenshot({ path: shot('system-sound-both-en.png') });
    // Each source reaches the backend through the mix: with the other one muted, it is heard.
    await only(page, 'system');
    await still(microphone);
    await moves(system);
    await backendHears(backend);
    await only(page, 'microphone');
    await still(system);
    await moves(microphone);
    await backendHears(backend);
  }, 90_000);

  it('zh: a cancelled share and a share without sound are explained, and Retry recovers', async () => {
    backend = await startBackend({ uiDir, env: APP_CLASS });
    page = await openApp(chinese.context, backend, { width: 480, height: 520 });
    await page.evaluate(() => localStorage.setItem('test.shareChoice', 'cancel'));
    await pickSource(page, 'system');
    await page.keyboard.press('Escape');
    await startClass(page, '在线课');
    const toast = page.locator('.line-text.toast.error');
    await toast.waitFor({ timeout: 20_000 });
    expect(await toast.textContent()).toBe(
      '没有共享电脑声音（已取消或被拒绝）：点“重试”，选择播放网课的屏幕或标签页，并勾选“共享音频”。',
    );
    expect(await checkMic(backend)).toMatchObject({
      status: 'error',
      message: expect.stringContaining('sharing the computer sound was refused or cancelled'),
    });

    // Shared again, but without its sound.
    await page.evaluate(() => localStorage.setItem('test.shareChoice', 'no-audio'));
    await page.keyboard.press('m');
    const status = page.locator('.class-panel .capture-status');
    await status.locator('button', { hasText: '重试' }).click();
    await expect
      .poll(() => status.textContent(), { timeout: 15_000 })
      .toBe(
        '共享的画面没有声音：点“重试”，重新共享时勾选“共享系统音频”或“共享标签页音频”（只共享一个窗口时没有声音）。 重试',
      );
    await expect
      .poll(async () => (await checkMic(backend!)).message, { timeout: 10_000 })
      .toContain('carries no sound');
    await page.screenshot({ path: shot('system-sound-no-audio-zh.png') });

    // Shared with its sound: the class hears it.
    await page.evaluate(() => localStorage.removeItem('test.shareChoice'));
    await status.locator('button', { hasText: '重试' }).click();
    await page.locator('.bar[data-capture="receiving"]').waitFor({ timeout: 20_000 });
    await backendHears(backend);
  }, 90_000);
});

describe('Linux with a sound server: the backend records the computer sound', () => {
  let pulse: ChildProcess | undefined;
  const saved = process.env.XDG_RUNTIME_DIR;

  beforeAll(async () => {
    // A private PulseAudio (a null sink as the output), found where a desktop session's is.
    const runtime = join(root, 'pulse-runtime');
    await mkdir(runtime, { recursive: true });
    await chmod(runtime, 0o700);
    const script = join(root, 'default.pa');
    await writeFile(
      script,
      'load-module module-native-protocol-unix auth-anonymous=1\nload-module module-null-sink sink_name=speakers\n',
    );
    const environment = { ...process.env, XDG_RUNTIME_DIR: runtime, HOME: root };
    pulse = spawn(
      'pulseaudio',
      ['-n', '--daemonize=no', '--exit-idle-time=-1', '--disallow-exit', '-F', script],
      { env: environment, stdio: 'ignore' },
    );
    const answers = () =>
      promisify(execFile)('pactl', ['info'], { env: environment }).then(
        () => true,
        () => false,
      );
    const since = Date.now();
    while (!(await answers())) {
      if (Date.now() - since > 30_000) throw new Error('the private PulseAudio did not answer');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    process.env.XDG_RUNTIME_DIR = runtime;
  }, 60_000);

  afterAll(async () => {
    if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
    else process.env.XDG_RUNTIME_DIR = saved;
    if (pulse && pulse.exitCode === null) {
      const exited = new Promise((resolve) => pulse!.once('exit', resolve));
      pulse.kill('SIGTERM');
      await exited;
    }
  });

  it('zh: the window offers a tab’s sound and the backend’s own capture, which sets AUDIO_INPUT=system', async () => {
    backend = await startBackend({ uiDir, env: APP_CLASS });
    page = await openApp(chinese.context, backend, { width: 480, height: 520 });
    const view = await pickSource(page, 'system');
    await expect
      .poll(() => view.locator('.capture-source option:checked').textContent())
      .toBe('浏览器标签页的声音');
    const hint = view.locator('.capture-hint');
    expect(await hint.textContent()).toContain('后端可以直接录下电脑播放的所有声音');
    await hint.locator('button', { hasText: '让后端录电脑声音' }).click();
    await expect
      .poll(() => hint.textContent())
      .toContain('已设置 AUDIO_INPUT=system，下一节课生效。');
    expect(await readFile(backend.envFile, 'utf8')).toMatch(/^AUDIO_INPUT=system$/m);
    await page.screenshot({ path: shot('system-sound-linux-backend-zh.png') });
  }, 60_000);
});
