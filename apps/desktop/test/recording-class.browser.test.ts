/// <reference lib="dom" />
// A class transcribed from a recording, opened from the library in the 480x520 panel window: it
// says which recording it came from and how long it is, and its lines carry the positions in the
// recording — in Chinese and in English. The class folder is written as the backend keeps one
// (class.json with its `source`, transcript.txt), then found by a rescan. Screenshots in
// test-results/.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

let uiDir: string;
let buildRoot: string;
let backend: TestBackend | undefined;
let page: Page | undefined;
const browsers: Array<Awaited<ReturnType<typeof launchBrowser>>> = [];

beforeAll(async () => {
  buildRoot = await mkdtemp(join(tmpdir(), 'desktop-recording-'));
  uiDir = await buildUiInto(join(buildRoot, 'ui'));
  await mkdir(RESULTS_DIR, { recursive: true });
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

const CLASS_ID = '20261120-140000-rec1';

/** A finished class from `lecture 3 - matrices.mp3`, 1:02:13 long, in the backend's library. */
async function recordedClass(target: TestBackend): Promise<void> {
  const folder = join(target.dataDir, 'classes', CLASS_ID);
  await mkdir(folder, { recursive: true });
  const started = new Date(2026, 10, 20, 14, 0, 0);
  await writeFile(
    join(folder, 'transcript.txt'),
    [
      '=== 课堂记录 开始于 2026-11-20 14:00:00 ===',
      '课程：线性代数',
      '',
      '[00:00:02] 同学们好，今天讲矩阵的秩。',
      '[00:42:13] 秩等于非零行的个数。',
      '[01:02:05] 下课前留一道作业。',
      '',
    ].join('\n'),
  );
  await writeFile(
    join(folder, 'class.json'),
    JSON.stringify({
      id: CLASS_ID,
      course_name: '线性代数',
      material_name: '',
      started_at: started.toISOString(),
      ended_at: new Date(started.getTime() + 600_000).toISOString(),
      line_count: 3,
      alerts: [],
      notes_file: null,
      material_file: null,
      source: { kind: 'recording', file_name: 'lecture 3 - matrices.mp3', duration_ms: 3_733_400 },
    }),
  );
  await target.app.classAssistant.library.rescan();
}

async function openRecordedClass(locale: string): Promise<Page> {
  backend = await startBackend({ uiDir, env: ['ASR_MODE=mock'] });
  await recordedClass(backend);
  const browser = await launchBrowser({ locale });
  browsers.push(browser);
  const opened = await openApp(browser.context, backend, { width: 480, height: 520 });
  await opened.keyboard.press('l');
  await opened.locator(`.library-item[data-class-id="${CLASS_ID}"]`).click();
  await opened.locator('#library-class-source').waitFor();
  return opened;
}

describe('a class from a recording in the library', () => {
  it('says its recording and length next to the class facts, lines at their positions (zh)', async () => {
    page = await openRecordedClass('zh-CN');
    const source = page.locator('#library-class-source');
    expect(await source.textContent()).toBe('录音 lecture 3 - matrices.mp3 · 1:02:13');
    expect(await source.isVisible()).toBe(true);
    expect(await page.locator('.library-lines time').allTextContents()).toEqual([
      '00:00:02',
      '00:42:13',
      '01:02:05',
    ]);
    // It fits the window: nothing spills sideways.
    const box = await source.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(480);
    await page.screenshot({ path: join(RESULTS_DIR, 'panel-library-recording.png') });

    // A search finds the line at its position in the recording.
    await page.locator('#library-back').click();
    await page.locator('#library-search').fill('非零行');
    await expect
      .poll(() => page!.locator('.library-hit-where').allTextContents())
      .toEqual(['字幕线性代数 · 2026-11-20 14:00 · 00:42:13']);
    await page.screenshot({ path: join(RESULTS_DIR, 'panel-library-recording-search.png') });
  });

  it('says it in English with ASCII punctuation (en)', async () => {
    page = await openRecordedClass('en-US');
    const text = await page.locator('#library-class-source').textContent();
    expect(text).toBe('Recording lecture 3 - matrices.mp3 · 1:02:13');
    expect(text).not.toMatch(/[：，。（）]/);
    await page.screenshot({ path: join(RESULTS_DIR, 'panel-library-recording-en.png') });
  });
});
