/// <reference lib="dom" />
// ▶ on a line in real Chromium against the real backend, at the panel's size (480x520), in both
// languages: a class of the library with its audio kept (espeak-ng speech, Ogg Opus as the
// recorder keeps it) plays from the tapped line's moment, the line being heard is marked as the
// audio goes on, and the strip under the panel says where it is. A class without audio shows no
// ▶, and audio that is gone says so. The running class's transcript plays its audio too, loading
// it again when the line is past what was loaded (the audio grows while the class runs).
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  browserSuite,
  openApp,
  RESULTS_DIR,
  startBackend,
  type TestBackend,
} from './support/ui-harness.ts';

const run = promisify(execFile);

/** What the teacher says, one line each: short enough for its slot. */
const SENTENCES = [
  'good morning everyone',
  'today we study trees',
  'a tree has a root',
  'leaves have no children',
  'that is all for today',
];
/** Silence before the first sentence, and the room each sentence has (it starts its slot). */
const LEAD_MS = 500;
const SLOT_MS = 3000;
/** Where line `id` (1-based) starts in the audio. */
const startOf = (id: number) => LEAD_MS + (id - 1) * SLOT_MS;

const TEXTS = {
  zh: { play: (time: string) => `从录音 ${time} 处播放这句`, noAudio: '这节课没有保存录音' },
  en: {
    play: (time: string) => `Play this line from ${time} of the class audio`,
    noAudio: 'This class has no audio kept',
  },
} as const;

let backend: TestBackend | undefined;
let page: Page | undefined;
const suite = browserSuite('playback', () => {
  const opened = { page, backend };
  [page, backend] = [undefined, undefined];
  return opened;
});
/** The whole lecture, and its first two sentences only (the audio of a class still running). */
let lectureOgg: string;
let beginningOgg: string;
let script: string;

/**
 * Speaks `texts` into an Ogg Opus file (24 kbit/s, as the recorder keeps a class): each sentence
 * at the start of its own slot, after the lead.
 */
async function spokenOgg(
  texts: readonly string[],
  name: string,
  slotMs = SLOT_MS,
  leadMs = LEAD_MS,
): Promise<string> {
  const parts: string[] = [];
  const lead = join(suite.root, `${name}-lead.wav`);
  await run('sox', [
    ...['-n', '-r', '16000', '-c', '1', '-b', '16', '-e', 'signed-integer'],
    lead,
    ...['trim', '0', String(leadMs / 1000)],
  ]);
  for (const [index, text] of texts.entries()) {
    const raw = join(suite.root, `${name}-${index}-raw.wav`);
    const slot = join(suite.root, `${name}-${index}.wav`);
    await run('espeak-ng', ['-v', 'en-us', '-s', '150', '-w', raw, text]);
    await run('sox', [
      raw,
      ...['-r', '16000', '-c', '1', '-b', '16', '-e', 'signed-integer'],
      slot,
      ...['pad', '0', String(slotMs / 1000), 'trim', '0', String(slotMs / 1000)],
    ]);
    parts.push(slot);
  }
  const wav = join(suite.root, `${name}.wav`);
  await run('sox', [lead, ...parts, wav]);
  const ogg = join(suite.root, `${name}.ogg`);
  await run('ffmpeg', ['-v', 'error', '-y', '-i', wav, '-c:a', 'libopus', '-b:a', '24k', ogg]);
  return ogg;
}

beforeAll(async () => {
  lectureOgg = await spokenOgg(SENTENCES, 'lecture');
  beginningOgg = await spokenOgg(SENTENCES.slice(0, 2), 'beginning');
  script = join(suite.root, 'script.txt');
  await writeFile(script, `${SENTENCES.join('\n')}\n`);
});

async function api<T>(path: string, body?: object): Promise<T> {
  const response = await fetch(`${backend!.url}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return (await response.json()) as T;
}

/** A backend whose mock class says the script (SENTENCES unless told), one line each. */
async function mockBackend(loop: boolean, lines = script): Promise<TestBackend> {
  return startBackend({
    uiDir: suite.uiDir,
    env: [
      'ASR_MODE=mock',
      `MOCK_SCRIPT=${lines}`,
      `MOCK_INTERVAL_MS=${loop ? 400 : 20}`,
      `MOCK_LOOP=${loop}`,
    ],
  });
}

/** A finished class of the library saying SENTENCES; its folder. */
async function finishedClass(): Promise<{ id: string; folder: string }> {
  await api('api/start_monitor', { course_name: '数据结构' });
  await expect
    .poll(
      async () => (await api<{ recognizer_state: string }>('api/monitor_status')).recognizer_state,
      {
        timeout: 30_000,
      },
    )
    .toBe('ended');
  await api('api/stop_monitor?with_summary=false', {});
  const { items } = await api<{ items: Array<{ id: string }> }>('api/classes');
  const id = items[0]!.id;
  return { id, folder: join(backend!.dataDir, 'classes', id) };
}

/** Gives lines 1…count the start of their sentence, as the recorder does. */
async function writeLineStarts(folder: string, count: number): Promise<void> {
  const records = Array.from({ length: count }, (_, index) =>
    JSON.stringify({ id: index + 1, audio_ms: startOf(index + 1) }),
  );
  await writeFile(join(folder, 'lines.jsonl'), `${records.join('\n')}\n`);
}

async function openPage(lang: 'zh' | 'en'): Promise<Page> {
  const opened = await openApp(suite.context, backend!, { width: 480, height: 520 });
  if (lang === 'en') {
    await opened.evaluate(() => localStorage.setItem('class-assistant.lang', 'en'));
    await opened.reload();
    await opened.locator('.bar[data-connection="online"]').waitFor();
  }
  return opened;
}

/** Opens the class in the library panel (L unless it is open, then the class). */
async function openClass(target: Page, id: string): Promise<void> {
  if ((await target.locator('.tab.selected[data-panel="library"]').count()) === 0) {
    await target.keyboard.press('l');
  }
  await target.locator(`.library-item[data-class-id="${id}"]`).click();
  await target.locator('.library-lines').waitFor();
}

/** The window's <audio> element as the test reads it. */
function audioState(target: Page) {
  return target.evaluate(() => {
    const audio = document.getElementById('class-audio') as HTMLAudioElement;
    return {
      src: audio.src,
      time: audio.currentTime,
      paused: audio.paused,
      ready: audio.readyState,
    };
  });
}

/** Notes where the window's <audio> element is each time it starts playing (see `starts`). */
async function recordStarts(target: Page): Promise<void> {
  await target.evaluate(() => {
    const audio = document.getElementById('class-audio') as HTMLAudioElement;
    const starts: Array<{ at: number; src: string }> = [];
    (window as unknown as { __starts: typeof starts }).__starts = starts;
    audio.addEventListener('playing', () =>
      starts.push({ at: audio.currentTime, src: audio.currentSrc }),
    );
  });
}

/**
 * Where the audio was each time it started playing, seconds; only those of `src` when given
 * (a busy machine can resume the audio loaded before once more, after a stall).
 */
async function starts(target: Page, src?: string): Promise<number[]> {
  const all = await target.evaluate(
    () => (window as unknown as { __starts: Array<{ at: number; src: string }> }).__starts,
  );
  return all.filter((start) => src === undefined || start.src === src).map((start) => start.at);
}

/** True when the element lies inside the window and above the player strip. */
async function aboveStrip(target: Page, selector: string): Promise<boolean> {
  const box = await target.locator(selector).boundingBox();
  const strip = await target.locator('.player-strip').boundingBox();
  return (
    box !== null &&
    strip !== null &&
    box.y >= 0 &&
    box.y + box.height <= strip.y + 0.5 &&
    strip.y + strip.height <= 520
  );
}

describe('▶ on a line of the library (480x520)', () => {
  for (const lang of ['zh', 'en'] as const) {
    it(`plays the class audio from line 2's moment, marks the line heard and follows it (${lang})`, async () => {
      backend = await mockBackend(false);
      const { id, folder } = await finishedClass();
      await writeLineStarts(folder, SENTENCES.length);
      await run('cp', [lectureOgg, join(folder, 'audio.ogg')]);
      page = await openPage(lang);
      await recordStarts(page);
      await openClass(page, id);

      const line = (n: number) => page!.locator(`.library-lines li[data-line-id="${n}"]`);
      expect(await line(2).locator('span').textContent()).toBe(SENTENCES[1]);
      // Its ▶ is named by where the line starts in the class audio.
      const play = page.getByRole('button', { name: TEXTS[lang].play('0:03'), exact: true });
      expect(await play.count()).toBe(1);
      // From the keyboard: the ▶ takes the focus and Enter plays.
      await play.focus();
      await page.keyboard.press('Enter');

      // The audio jumped to line 2's start and really plays on from there.
      await expect.poll(async () => (await starts(page!)).length).toBeGreaterThan(0);
      const [from] = await starts(page);
      expect((await audioState(page)).src).toContain(`/api/classes/${id}/audio`);
      expect(from).toBeGreaterThanOrEqual(startOf(2) / 1000 - 0.3);
      expect(from).toBeLessThanOrEqual(startOf(2) / 1000 + 0.3);
      await expect
        .poll(async () => (await audioState(page!)).time, { timeout: 20_000 })
        .toBeGreaterThan(from! + 0.5);
      expect((await audioState(page)).paused).toBe(false);

      // Line 2 is the one heard; the strip says where the audio is.
      await expect.poll(() => line(2).getAttribute('aria-current')).toBe('true');
      expect(await page.locator('.library-lines li.heard').count()).toBe(1);
      await expect
        .poll(() => page!.locator('#player-position').textContent())
        .toMatch(/^0:0[3-6] \/ 0:1[56]$/);
      expect(await aboveStrip(page, '.library-lines li[data-line-id="2"]')).toBe(true);
      await page.screenshot({ path: join(RESULTS_DIR, `playback-line-${lang}.png`) });

      // Once the audio passes line 3's start, line 3 is the one heard.
      await expect
        .poll(() => line(3).getAttribute('aria-current'), { timeout: 20_000 })
        .toBe('true');
      expect(await line(2).getAttribute('aria-current')).toBeNull();
      expect((await audioState(page)).time).toBeGreaterThanOrEqual(startOf(3) / 1000);

      // Pause holds the audio; stop takes the strip away.
      await page.locator('#player-toggle').click();
      await expect.poll(async () => (await audioState(page!)).paused).toBe(true);
      const held = (await audioState(page)).time;
      await page.locator('#player-toggle').waitFor();
      expect(Math.abs((await audioState(page)).time - held)).toBeLessThan(0.05);
      await page.locator('#player-stop').click();
      await page.locator('.player-strip').waitFor({ state: 'detached' });
      expect(await page.locator('.library-lines li.heard').count()).toBe(0);
    });

    it(`shows no ▶ for a class without audio, and says so when its audio is gone (${lang})`, async () => {
      backend = await mockBackend(false);
      const { id, folder } = await finishedClass();
      page = await openPage(lang);
      await openClass(page, id);
      expect(await page.locator('.library-lines li').count()).toBe(SENTENCES.length);
      expect(await page.locator('.line-play').count()).toBe(0);

      // Lines that know their moment, but the audio file is gone.
      await writeLineStarts(folder, SENTENCES.length);
      await page.locator('#library-back').click();
      await openClass(page, id);
      expect(await page.locator('.line-play').count()).toBe(SENTENCES.length);
      await page.locator('.library-lines li[data-line-id="2"] .line-play').click();
      const message = page.locator('.player-strip .player-message');
      await expect
        .poll(() => message.locator('span').first().textContent())
        .toBe(TEXTS[lang].noAudio);
      expect(await aboveStrip(page, '.library-lines li[data-line-id="1"]')).toBe(true);
      await page.screenshot({ path: join(RESULTS_DIR, `playback-no-audio-${lang}.png`) });
    });
  }
});

describe('following the audio in a long class (480x520)', () => {
  it('keeps the line heard in view, but leaves a student who scrolled away where they are', async () => {
    // Thirty short lines, one every half second of the audio: more than the panel shows.
    const colours = ['red', 'green', 'blue', 'black', 'white', 'yellow'];
    const things = ['tree', 'graph', 'stack', 'queue', 'heap'];
    const lines = things.flatMap((thing) => colours.map((colour) => `the ${colour} ${thing}`));
    const longScript = join(suite.root, 'long-script.txt');
    await writeFile(longScript, `${lines.join('\n')}\n`);
    backend = await mockBackend(false, longScript);
    const { id, folder } = await finishedClass();
    const records = lines.map((_, index) =>
      JSON.stringify({ id: index + 1, audio_ms: index * 500 }),
    );
    await writeFile(join(folder, 'lines.jsonl'), `${records.join('\n')}\n`);
    await run('cp', [lectureOgg, join(folder, 'audio.ogg')]);
    page = await openPage('zh');
    await openClass(page, id);
    const heardId = () =>
      page!.evaluate(() => {
        const heard = document.querySelector<HTMLElement>('.library-lines li.heard');
        return heard ? Number(heard.dataset.lineId) : 0;
      });
    /** Whether line `n` lies inside the visible part of the panel's scrolling box. */
    const shown = (n: number) =>
      page!.evaluate((lineId) => {
        const box = document.querySelector('.panel-content')!.getBoundingClientRect();
        const line = document
          .querySelector(`.library-lines li[data-line-id="${lineId}"]`)!
          .getBoundingClientRect();
        return line.top >= box.top - 1 && line.bottom <= box.bottom + 1;
      }, n);
    await page.locator('.library-lines li[data-line-id="4"] .line-play').click();
    await expect.poll(heardId).toBeGreaterThanOrEqual(4);
    // The audio moves down the lines past the bottom of the panel: the line heard stays in view.
    await expect.poll(heardId, { timeout: 20_000 }).toBeGreaterThanOrEqual(20);
    expect(await shown(await heardId())).toBe(true);
    await page.screenshot({ path: join(RESULTS_DIR, 'playback-follow-zh.png') });

    // The student scrolls back up to read: playback goes on, the panel stays where they are.
    const panel = await page.locator('.panel-content').boundingBox();
    await page.mouse.move(panel!.x + 100, panel!.y + 100);
    await page.mouse.wheel(0, -5000);
    await expect
      .poll(() => page!.evaluate(() => document.querySelector('.panel-content')!.scrollTop))
      .toBe(0);
    const left = await heardId();
    await expect.poll(heardId, { timeout: 20_000 }).toBeGreaterThanOrEqual(left + 2);
    expect(await page.evaluate(() => document.querySelector('.panel-content')!.scrollTop)).toBe(0);
    expect(await shown(await heardId())).toBe(false);
  });
});

describe('▶ in the running class (480x520)', () => {
  it('plays the live transcript from a line, loading the grown audio for a later line', async () => {
    backend = await mockBackend(true);
    await api('api/start_monitor', { course_name: '数据结构' });
    await expect
      .poll(async () => (await api<{ total: number }>('api/transcript')).total, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(SENTENCES.length);
    await api('api/pause_monitor', {});
    const { items } = await api<{ items: Array<{ id: string; live: boolean }> }>('api/classes');
    const live = items.find((item) => item.live)!;
    const folder = join(backend.dataDir, 'classes', live.id);
    // The recorder has written the first two sentences so far and stamped the lines.
    await run('cp', [beginningOgg, join(folder, 'audio.ogg')]);
    for (let id = 1; id <= SENTENCES.length; id++) {
      backend.app.classAssistant.library.setLineExtras!(id, { audio_ms: startOf(id) });
    }

    page = await openPage('en');
    await recordStarts(page);
    await page.keyboard.press('t');
    const line = (n: number) => page!.locator(`.transcript-panel li[data-id="${n}"]`);
    await line(1).locator('.line-play').click();
    await expect.poll(() => line(1).getAttribute('aria-current')).toBe('true');
    const first = await audioState(page);
    expect(first.src).toContain(`/api/classes/${live.id}/audio`);
    await expect.poll(async () => (await audioState(page!)).time).toBeGreaterThan(0.2);

    // Line 4 is past the audio loaded: the file has grown since, and it is loaded again.
    await run('cp', [lectureOgg, join(folder, 'audio.ogg')]);
    await line(4).locator('.line-play').click();
    await expect.poll(async () => (await audioState(page!)).src).not.toBe(first.src);
    const reloaded = (await audioState(page)).src;
    await expect.poll(async () => (await starts(page!, reloaded)).length).toBeGreaterThan(0);
    // The grown file started at line 4's moment (not at the end of the audio loaded before, nor
    // at 0).
    const from = (await starts(page, reloaded))[0]!;
    expect(from).toBeGreaterThanOrEqual(startOf(4) / 1000 - 0.3);
    expect(from).toBeLessThanOrEqual(startOf(4) / 1000 + 0.3);
    await expect
      .poll(async () => (await audioState(page!)).time, { timeout: 20_000 })
      .toBeGreaterThan(from + 0.3);
    await expect.poll(() => line(4).getAttribute('aria-current')).toBe('true');
    expect(await aboveStrip(page, '.transcript-panel li[data-id="4"]')).toBe(true);
    await page.screenshot({ path: join(RESULTS_DIR, 'playback-live-en.png') });

    // Back to the bar: no player there, and the audio stops.
    await page.keyboard.press('Escape');
    await page.locator('.panel-shell').waitFor({ state: 'hidden' });
    await expect.poll(async () => (await audioState(page!)).paused).toBe(true);
  });
});

describe('a class that listened to a recording, end to end (480x520)', () => {
  it('keeps its audio as it heard it, and ▶ on a line plays from where the backend says its speech starts', async () => {
    // The lecture as a file the class listens to (PocketSphinx, as fast as it recognises): the
    // backend keeps its audio and gives each line its place in it — nothing made by the test.
    // Sentences 6 s apart, so that no two are merged into one line, after 2 s of silence (the
    // recogniser's voice detector learns the room's noise in its first second).
    const slotMs = 6000;
    const leadMs = 2000;
    await spokenOgg(SENTENCES, 'recording', slotMs, leadMs);
    const sentenceAt = (index: number) => leadMs + index * slotMs;
    backend = await startBackend({
      uiDir: suite.uiDir,
      env: [
        'ASR_MODE=local',
        'LOCAL_ASR_ENGINE=pocketsphinx',
        `AUDIO_INPUT=file:${join(suite.root, 'recording.wav')}`,
        'AUDIO_FILE_PACE=fast',
      ],
    });
    await api('api/start_monitor', { course_name: 'trees' });
    await expect
      .poll(
        async () =>
          (await api<{ recognizer_state: string }>('api/monitor_status')).recognizer_state,
        { timeout: 120_000 },
      )
      .toBe('ended');
    await api('api/stop_monitor?with_summary=false', {});
    const { items } = await api<{ items: Array<{ id: string; audio_bytes: number | null }> }>(
      'api/classes',
    );
    const { id, audio_bytes } = items[0]!;
    expect(audio_bytes).toBeGreaterThan(10_000);
    const { lines } = await api<{ lines: Array<{ id: number; audio_ms: number | null }> }>(
      `api/classes/${id}`,
    );
    // Each line starts where one of the sentences does.
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) {
      const nearest = Math.min(
        ...SENTENCES.map((_, index) => Math.abs((line.audio_ms ?? -1e9) - sentenceAt(index))),
      );
      expect(nearest).toBeLessThanOrEqual(500);
    }

    page = await openPage('en');
    await recordStarts(page);
    await openClass(page, id);
    const chosen = lines[1]!;
    const at = chosen.audio_ms! / 1000;
    const label = `${Math.floor(at / 60)}:${String(Math.floor(at % 60)).padStart(2, '0')}`;
    await page.getByRole('button', { name: TEXTS.en.play(label), exact: true }).click();
    await expect.poll(async () => (await starts(page!)).length).toBeGreaterThan(0);
    const [from] = await starts(page);
    expect(Math.abs(from! - at)).toBeLessThanOrEqual(0.3);
    await expect
      .poll(async () => (await audioState(page!)).time, { timeout: 20_000 })
      .toBeGreaterThan(from! + 0.5);
    await expect
      .poll(() =>
        page!
          .locator(`.library-lines li[data-line-id="${chosen.id}"]`)
          .getAttribute('aria-current'),
      )
      .toBe('true');
    await page.screenshot({ path: join(RESULTS_DIR, 'playback-recording-en.png') });
  });
});
