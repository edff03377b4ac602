/// <reference lib="dom" />
// The space each class's kept audio takes, shown in the library of the 480x520 panel window,
// the total beside the library's introduction, and the zip export offered with the class — in
// Chinese and in English. Two class folders are written as the backend keeps them, one with a
// real Ogg Opus file (made by ffmpeg), then found by a rescan. Screenshots in test-results/.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CLASS_FILES } from '@class-assistant/server/data-folder';
import type { Page } from 'playwright-core';
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

const run = promisify(execFile);

let uiDir: string;
let buildRoot: string;
let audioFile: string;
let backend: TestBackend | undefined;
let page: Page | undefined;
const browsers: Array<Awaited<ReturnType<typeof launchBrowser>>> = [];

beforeAll(async () => {
  buildRoot = await mkdtemp(join(tmpdir(), 'desktop-library-audio-'));
  uiDir = await buildUiInto(join(buildRoot, 'ui'));
  await mkdir(RESULTS_DIR, { recursive: true });
  // Seven minutes of a class's audio: mono Opus at 24 kbit/s, about 1.2 MB.
  audioFile = join(buildRoot, 'class.ogg');
  await run('ffmpeg', [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'anoisesrc=d=420:c=pink:r=16000:a=0.2',
    '-c:a',
    'libopus',
    '-b:a',
    '24k',
    '-ac',
    '1',
    audioFile,
  ]);
});

afterEach(async () => {
  const [closing, disposing] = [page, backend];
  [page, backend] = [undefined, undefined];
  await closing?.close();
  await disposing?.dispose();
  for (const browser of browsers.splice(0)) await browser.close();
  if (closing) expect(pageErrors(closing)).toEqual([]);
});

afterAll(async () => {
  await rm(buildRoot, { recursive: true, force: true });
});

const WITH_AUDIO = '20261120-140000-aud1';
const WITHOUT_AUDIO = '20261121-090000-none';

async function classFolder(target: TestBackend, id: string, course: string, audio: boolean) {
  const folder = join(target.dataDir, 'classes', id);
  await mkdir(folder, { recursive: true });
  const started = new Date(
    Number(id.slice(0, 4)),
    Number(id.slice(4, 6)) - 1,
    Number(id.slice(6, 8)),
    14,
  );
  await writeFile(
    join(folder, CLASS_FILES.transcript),
    [
      `=== 课堂记录 开始于 ${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 8)} 14:00:00 ===`,
      `课程：${course}`,
      '',
      '[14:00:02] 同学们好，今天讲矩阵的秩。',
      '',
    ].join('\n'),
  );
  await writeFile(
    join(folder, CLASS_FILES.meta),
    JSON.stringify({
      id,
      course_name: course,
      material_name: '',
      started_at: started.toISOString(),
      ended_at: new Date(started.getTime() + 600_000).toISOString(),
      line_count: 1,
      alerts: [],
      notes_file: null,
      material_file: null,
    }),
  );
  if (audio) await writeFile(join(folder, CLASS_FILES.audio), await readFile(audioFile));
}

async function openLibrary(locale: string): Promise<Page> {
  backend = await startBackend({ uiDir, env: ['ASR_MODE=mock'] });
  await classFolder(backend, WITH_AUDIO, '线性代数', true);
  await classFolder(backend, WITHOUT_AUDIO, '概率论', false);
  await backend.app.classAssistant.library.rescan();
  const browser = await launchBrowser({ locale });
  browsers.push(browser);
  const opened = await openApp(browser.context, backend, { width: 480, height: 520 });
  await opened.keyboard.press('l');
  await opened.locator(`.library-item[data-class-id="${WITH_AUDIO}"]`).waitFor();
  return opened;
}

/** "1.2 MB", as the UI writes sizes. */
const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

describe('the kept audio in the library', () => {
  it('shows each class’s audio size and the total, and exports a zip with the audio (zh)', async () => {
    page = await openLibrary('zh-CN');
    const size = (await stat(audioFile)).size;
    expect(size).toBeGreaterThan(1024 * 1024);
    const withAudio = page.locator(`.library-item[data-class-id="${WITH_AUDIO}"] .badge.audio`);
    expect(await withAudio.textContent()).toBe(`录音 ${megabytes(size)}`);
    expect(await withAudio.isVisible()).toBe(true);
    // A class without audio says nothing of it.
    expect(
      await page.locator(`.library-item[data-class-id="${WITHOUT_AUDIO}"] .badge.audio`).count(),
    ).toBe(0);
    const total = page.locator('#library-audio-total');
    expect((await total.textContent())?.trim()).toBe(`课堂录音共占 ${megabytes(size)}`);
    const box = await withAudio.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(480);
    await page.screenshot({ path: join(RESULTS_DIR, 'panel-library-audio.png') });

    await page.locator(`.library-item[data-class-id="${WITH_AUDIO}"]`).click();
    const format = page.locator('#library-export-format');
    await format.waitFor();
    expect(await format.locator('option[value="zip"]').textContent()).toBe(
      '全部打包 (ZIP，含录音)',
    );
    await format.selectOption('zip');
    const href = await page.locator('#library-export').getAttribute('href');
    expect(href).toContain('format=zip');
    const response = await fetch(new URL(href!, backend!.url));
    expect(response.headers.get('content-type')).toBe('application/zip');
    const zip = Buffer.from(await response.arrayBuffer());
    // The zip holds the audio as kept (stored, not recompressed): its bytes are in it whole.
    expect(zip.includes(await readFile(audioFile))).toBe(true);
    await page.screenshot({ path: join(RESULTS_DIR, 'panel-library-audio-export.png') });

    await page.locator('#library-back').click();
    await page.locator(`.library-item[data-class-id="${WITHOUT_AUDIO}"]`).click();
    await expect
      .poll(() => page!.locator('#library-export-format option[value="zip"]').textContent())
      .toBe('全部打包 (ZIP，无录音)');
  });

  it('says it in English with ASCII punctuation (en)', async () => {
    page = await openLibrary('en-US');
    const size = (await stat(audioFile)).size;
    const badge = await page
      .locator(`.library-item[data-class-id="${WITH_AUDIO}"] .badge.audio`)
      .textContent();
    expect(badge).toBe(`Audio ${megabytes(size)}`);
    const total = (await page.locator('#library-audio-total').textContent())?.trim();
    expect(total).toBe(`Class audio kept: ${megabytes(size)}`);
    await page.screenshot({ path: join(RESULTS_DIR, 'panel-library-audio-en.png') });
    await page.locator(`.library-item[data-class-id="${WITH_AUDIO}"]`).click();
    const option = await page.locator('#library-export-format option[value="zip"]').textContent();
    expect(option).toBe('Everything (ZIP, with audio)');
    for (const text of [badge, total, option]) expect(text).not.toMatch(/[：，。（）]/);
  });
});
