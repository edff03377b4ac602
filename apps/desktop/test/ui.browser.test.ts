/// <reference lib="dom" />
// The floating-window UI in real Chromium against the real backend: what a student sees and does.
// Screenshots are kept in apps/desktop/test-results/.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  buildUiInto,
  DESKTOP_DIR,
  launchBrowser,
  openApp,
  pageErrors,
  RESULTS_DIR,
  record,
  startBackend,
  startClass,
  type TestBackend,
} from './support/ui-harness.ts';

const FAST_CLASS = ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=250', 'MOCK_LOOP=false'];

let uiDir: string;
let buildRoot: string;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let context: BrowserContext;
let llm: FakeOpenAIServer | undefined;
let backend: TestBackend | undefined;
let page: Page | undefined;

beforeAll(async () => {
  buildRoot = await mkdtemp(join(tmpdir(), 'desktop-ui-build-'));
  uiDir = await buildUiInto(join(buildRoot, 'ui'));
  await mkdir(RESULTS_DIR, { recursive: true });
  browser = await launchBrowser();
  context = browser.context;
});

afterEach(async () => {
  // Taken over first: a teardown that outlived its hook must not clear the next test's.
  const [closing, disposing, stopping] = [page, backend, llm];
  [page, backend, llm] = [undefined, undefined, undefined];
  await closing?.close();
  await disposing?.dispose();
  await stopping?.close();
  if (closing) expect(pageErrors(closing)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await rm(buildRoot, { recursive: true, force: true });
});

const shot = (name: string) => join(RESULTS_DIR, name);

/** A 16 kHz mono WAV: half a second of silence, a 1.5 s tone (a "phrase"), 1.5 s of silence. */
function toneRecording(): Buffer {
  const rate = 16_000;
  const samples = new Int16Array(rate * 3.5);
  for (let index = rate * 0.5; index < rate * 2; index++) {
    samples[index] = Math.round(6000 * Math.sin((2 * Math.PI * 220 * index) / rate));
  }
  const data = Buffer.from(samples.buffer);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

describe('the bar', () => {
  it('is 320x80, says it is ready and fits without overflow', async () => {
    backend = await startBackend({ uiDir, env: FAST_CLASS });
    page = await openApp(context, backend);
    await expect.poll(() => page!.locator('.status-text').textContent()).toBe('未上课');
    expect(await page.locator('.line-text').textContent()).toBe(
      '点 ▶ 开始上课，或按 M 打开课堂面板',
    );
    const box = await page.locator('.bar').boundingBox();
    expect(box).toMatchObject({ x: 0, y: 0, width: 320, height: 80 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(320);
    await page.screenshot({ path: shot('bar-320x80.png') });
  });

  it('runs a mock class: the newest line and the live partial text appear and move on', async () => {
    backend = await startBackend({ uiDir, env: FAST_CLASS });
    page = await openApp(context, backend);
    await startClass(page, '数据结构');
    expect(await page.locator('.course').textContent()).toBe('数据结构');
    // The panel closed: back to the bar size.
    expect(await page.locator('.panel-shell').isHidden()).toBe(true);
    const seen = new Set<string>();
    await expect
      .poll(
        async () => {
          seen.add((await page!.locator('.line-text').textContent()) ?? '');
          return seen.size;
        },
        { timeout: 15_000 },
      )
      .toBeGreaterThanOrEqual(4);
    expect([...seen]).toContain(
      'Today we continue with linked lists, and then move on to stacks and queues.',
    );
    await expect
      .poll(() => page!.locator('.partial-text').textContent(), { timeout: 10_000 })
      .toMatch(/…$/);
    await page.screenshot({ path: shot('bar-class-running.png') });

    await page.setViewportSize({ width: 480, height: 520 });
    await page.keyboard.press('t');
    await expect
      .poll(() => page!.locator('.transcript-lines li').count(), { timeout: 15_000 })
      .toBeGreaterThanOrEqual(5);
    const first = await page.locator('.transcript-lines li').first().textContent();
    expect(first).toMatch(/^\d\d:\d\d:\d\d好，同学们我们开始上课/);
    // The text still being recognised is upright (a slanted CJK line is a synthetic italic).
    expect(
      await page.locator('.bar .partial-text').evaluate((e) => getComputedStyle(e).fontStyle),
    ).toBe('normal');
    await page.screenshot({ path: shot('panel-transcript.png') });

    // Ending the class asks first; then the bar says what to do next, not an old line.
    await page.keyboard.press('m');
    await page.locator('#stop-class').click();
    const question = page.locator('.stop-question');
    await question.waitFor();
    expect(await question.locator('p').textContent()).toBe('确定下课吗？下课后不再收音。');
    await page.screenshot({ path: shot('panel-class-stop-confirm.png') });
    await question.locator('button', { hasText: '取消' }).click();
    expect(await page.locator('.bar').getAttribute('data-state')).toBe('running');
    await page.locator('#with-notes').uncheck();
    await page.locator('#stop-class').click();
    await page.locator('#stop-confirm').click();
    await page.locator('.bar[data-state="idle"]').waitFor();
    expect(await page.locator('.line-text').textContent()).toBe(
      '点 ▶ 开始上课，或按 M 打开课堂面板',
    );
  });

  it('flashes, grows and rings softly on a roll call of someone else, differently for attention', async () => {
    backend = await startBackend({
      uiDir,
      env: ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=250', 'MOCK_LOOP=false'],
    });
    page = await openApp(context, backend);
    await startClass(page, '数据结构');
    const bar = page.locator('.bar[data-alert="danger"]');
    await bar.waitFor({ timeout: 20_000 });
    expect(await bar.getAttribute('class')).toContain('flash');
    // The app asks for 320x156; this tab cannot grow, so the bar itself shows the alert.
    expect(await page.locator('.app').getAttribute('data-view')).toBe('alert');
    expect(await bar.getAttribute('data-alert-place')).toBe('bar');
    // Nobody has told the backend the student's name: the roll call is someone else's.
    expect(await bar.getAttribute('data-alert-kind')).toBe('roll-call');
    expect(await page.locator('.alert-badge-title').textContent()).toBe('老师在点名');
    expect(await page.locator('.bar-line mark').first().textContent()).toBe('点名');
    // Given the room, the card shows below the bar.
    await page.setViewportSize({ width: 320, height: 156 });
    const card = page.locator('.alert-card[data-level="danger"]');
    await card.waitFor();
    expect(await card.locator('.alert-title').textContent()).toBe('老师在点名');
    expect(await card.locator('.alert-keywords .chip').allTextContents()).toContain('点名');
    expect(await card.locator('.alert-text mark').first().textContent()).toBeTruthy();
    await page.screenshot({ path: shot('bar-alert-roll-call.png') });
    // One soft note, and no system notification for someone else's roll call.
    await expect.poll(async () => (await record(page!)).tones).toBeGreaterThanOrEqual(1);
    expect((await record(page)).notifications).toEqual([]);

    // Later in the lecture: homework and exams, the gentler attention level.
    await page.locator('.alert-card[data-level="warning"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('.alert-card .alert-title').textContent()).toBe('注意');
    await page.screenshot({ path: shot('bar-alert-attention.png') });
    const warning = (await record(page)).notifications.find((n) => n.title === '🟡 注意');
    expect(warning).toMatchObject({ requireInteraction: false, tag: 'class-assistant-warning' });

    await page.keyboard.press('Escape');
    await expect.poll(() => page!.locator('.app').getAttribute('data-view')).toBe('bar');
  });

  it('shows the backend going away, counts down the retry, and reconnects when it is back', async () => {
    backend = await startBackend({ uiDir, env: FAST_CLASS });
    page = await openApp(context, backend);
    await startClass(page, '数据结构');
    await expect
      .poll(() => page!.locator('.line-text').textContent(), { timeout: 10_000 })
      .not.toBe('');
    await backend.stop();
    await page.locator('.bar[data-connection="offline"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('.status-text').textContent()).toBe('后端离线');
    expect(await page.locator('.offline-text').textContent()).toMatch(
      /^后端没有响应，正在自动重连…（\d+ 秒后重试）$/,
    );
    expect(await page.locator('.bar-actions .pill-button.rescue').isDisabled()).toBe(true);
    await page.screenshot({ path: shot('bar-backend-offline.png') });

    // The student restarts the app: a new backend on the same port, its ids counting from 1.
    await backend.restart();
    await page.locator('.bar[data-connection="online"]').waitFor({ timeout: 20_000 });
    await expect.poll(() => page!.locator('.line-text').textContent()).toBe('后端已重新连接');
    // The old class ended with the old backend; the new one is idle.
    await expect.poll(() => page!.locator('.status-text').textContent()).toBe('未上课');
    await startClass(page, '第二节');
    await expect.poll(() => page!.locator('.course').textContent()).toBe('第二节');
    // The bar follows the new class: it shows the newest line the new backend wrote.
    const newest = async () => {
      const transcript = (await (await fetch(`${backend!.url}api/transcript`)).json()) as {
        course_name: string;
        entries: Array<{ text: string }>;
      };
      return transcript.course_name === '第二节' && transcript.entries.length > 0
        ? (await page!.locator('.line-text').textContent()) === transcript.entries.at(-1)?.text
        : false;
    };
    await expect.poll(newest, { timeout: 15_000 }).toBe(true);
  });
  it('keeps the bar on top in a Picture-in-Picture window and takes it back when that closes', async () => {
    backend = await startBackend({ uiDir, env: FAST_CLASS });
    page = await openApp(context, backend);
    const opened = context.waitForEvent('page');
    await page.locator('.bar-actions .icon-button[title="置顶小窗"]').click();
    const pip = await opened;
    await pip.locator('.app .bar').waitFor();
    expect(await page.locator('.app').count()).toBe(0);
    expect(await pip.evaluate(() => [window.innerWidth, window.innerHeight])).toEqual([320, 80]);
    expect(await pip.locator('.icon-button.active').getAttribute('title')).toBe('退出置顶');
    // Shortcuts work in the floating window, which grows for the panel (Chromium caps a
    // Picture-in-Picture window to part of the screen: 800x600 in headless mode).
    await pip.keyboard.press(',');
    await expect.poll(() => pip.locator('.app').getAttribute('data-view')).toBe('panel');
    await expect.poll(() => pip.evaluate(() => window.innerHeight > 300)).toBe(true);
    await pip.close();
    await page.locator('.app .bar').waitFor();
    expect(await page.locator('.icon-button[title="置顶小窗"]').count()).toBe(1);
  });
});

describe('the panels (480x520)', () => {
  it('settings: the main keys as a form, secrets masked, the other lines kept, saved', async () => {
    backend = await startBackend({
      uiDir,
      env: [...FAST_CLASS, 'LLM_API_KEY=sk-secret-abcd1234', '# my own note', 'EXTRA_OPTION=kept'],
    });
    page = await openApp(context, backend, { width: 480, height: 520 });
    await page.keyboard.press(',');
    const key = page.locator('#setting-LLM_API_KEY');
    await key.waitFor();
    expect(await key.getAttribute('type')).toBe('password');
    expect(await key.inputValue()).toBe('••••••••1234');
    expect(await page.locator('#setting-ASR_MODE').inputValue()).toBe('mock');
    expect(await page.locator('.extra-lines').inputValue()).toContain(
      '# my own note\nEXTRA_OPTION=kept',
    );
    const box = await page.locator('.app').boundingBox();
    expect(box).toMatchObject({ width: 480, height: 520 });
    await page.screenshot({ path: shot('panel-settings-480x520.png') });

    // Plain words in the UI's language; the keys themselves only under Advanced.
    expect(await page.locator('label[for="setting-LLM_API_KEY"]').textContent()).toContain(
      'API 密钥',
    );
    expect(await page.locator('#hearing-mock').isChecked()).toBe(true);
    expect(await page.locator('label[for="hearing-local"]').textContent()).toContain(
      '本机离线识别',
    );
    expect(await page.locator('.extra-lines').isVisible()).toBe(false);
    await page.locator('#setting-LLM_MODEL').fill('class-model');
    await page.locator('#save-settings').click();
    await expect
      .poll(() => page!.locator('.settings-panel .notice.ok').textContent())
      .toContain('已保存。立即生效：模型 (LLM_MODEL)');
    const { readFile } = await import('node:fs/promises');
    const saved = await readFile(backend.envFile, 'utf8');
    expect(saved).toContain('LLM_MODEL=class-model');
    expect(saved).toContain('LLM_API_KEY=sk-secret-abcd1234');
    expect(saved).toContain('# my own note\nEXTRA_OPTION=kept');

    await page.locator('#settings-advanced > summary').click();
    await page.locator('details[data-group="mock"] summary').click();
    await page.locator('#setting-MOCK_INTERVAL_MS').fill('soon');
    await page.locator('#save-settings').click();
    await expect
      .poll(() => page!.locator('.field-error:not([hidden])').textContent())
      // The UI sends its language: the backend answers the field's problem in Chinese.
      .toBe('应为 1 到 600000 之间的整数，当前为 "soon"');
    expect(await page.locator('.settings-panel .error-box').textContent()).toContain(
      '有设置不正确，没有保存：',
    );
  });

  it('settings: a folder at the settings path is named in the panel, and the app keeps working', async () => {
    backend = await startBackend({ uiDir, env: FAST_CLASS });
    // Something that is not a file where the settings file should be.
    await rm(backend.envFile);
    await mkdir(backend.envFile);
    page = await openApp(context, backend, { width: 480, height: 520 });
    await page.keyboard.press(',');
    // The settings read answers 409 with what is there and what to do, in the UI's language.
    await expect
      .poll(() => page!.locator('.settings-panel .error-box').textContent())
      .toContain('是一个文件夹，不是普通文件');
    expect(await page.locator('.settings-panel .error-box').textContent()).toContain(
      '请删除或移走它',
    );
    // And /api/health's settings problem is listed with what is not configured, in Chinese too.
    await expect
      .poll(() => page!.locator('.settings-panel .not-configured').textContent())
      .toContain('是一个文件夹，不是普通文件');
    expect(await page.locator('.settings-panel .not-configured').textContent()).not.toContain(
      'Settings:',
    );
    await page.screenshot({ path: shot('panel-settings-file-unusable.png') });
  });

  it('start class: uploads a deck with progress and picks it as the material', async () => {
    backend = await startBackend({ uiDir, env: FAST_CLASS });
    page = await openApp(context, backend, { width: 480, height: 520 });
    await page.keyboard.press('m');
    await page.locator('.class-panel .check.ok').waitFor();
    expect(await page.locator('.class-panel .check-row').first().textContent()).toContain(
      '演示模式',
    );
    await page
      .getByLabel('上传课件')
      .setInputFiles(join(DESKTOP_DIR, 'test', 'fixtures', 'slides.pptx'));
    await expect
      .poll(() => page!.locator('.upload-status').textContent(), { timeout: 20_000 })
      .toBe('已读取 slides.pptx：2 页，128 字');
    expect(await page.locator('#cite-file').inputValue()).toMatch(/^slides_\d{8}_\d{6}\.txt$/);
    // Listed by the name it was uploaded with and its slides, not the stored file name.
    expect(await page.locator('#cite-file option:checked').textContent()).toMatch(
      /^slides（2 页） {2}· {2}\d\d-\d\d \d\d:\d\d$/,
    );
    await page.locator('#course-name').fill('数据结构');
    await page.screenshot({ path: shot('panel-class-uploaded.png') });
    await page.locator('#start-class').click();
    await page.locator('.bar[data-state="running"]').waitFor();
    const status = await (await fetch(`${backend.url}api/monitor_status`)).json();
    expect(status).toMatchObject({
      course_name: '数据结构',
      cite_filename: expect.stringMatching(/^slides_/),
    });
  });

  it('a recognizer that cannot run offers the demo mode, which then starts the class', async () => {
    backend = await startBackend({ uiDir, env: ['ASR_MODE=local', 'MOCK_INTERVAL_MS=250'] });
    page = await openApp(context, backend, { width: 480, height: 520 });
    await page.keyboard.press('m');
    await page.locator('#start-class').click();
    const error = page.locator('.class-panel .panel-status .error-box');
    await error.waitFor();
    expect(await error.locator('.error-message').textContent()).toBe('当前识别方式不可用。');
    expect(await error.locator('.error-detail').textContent()).toContain('ASR_MODE=mock');
    await page.screenshot({ path: shot('panel-class-recognizer-unavailable.png') });
    await error.locator('button', { hasText: '改用演示模式' }).click();
    await page.locator('.bar[data-state="running"]').waitFor({ timeout: 10_000 });
  });

  it('a recognizer that fails mid-class shows its own message, naming the setting to fix', async () => {
    // ASR_MODE=cloud listening to a recording, against a transcription service that refuses
    // the key: the recognizer reports a fatal error while the class runs.
    llm = await createFakeOpenAIServer({ apiKey: 'sk-right-key' });
    const recording = join(buildRoot, 'tone.wav');
    await writeFile(recording, toneRecording());
    backend = await startBackend({
      uiDir,
      env: [
        'ASR_MODE=cloud',
        `CLOUD_ASR_BASE_URL=${llm.baseURL}`,
        'CLOUD_ASR_API_KEY=sk-wrong-key',
        `AUDIO_INPUT=file:${recording}`,
        'AUDIO_FILE_PACE=fast',
        'VAD_CALIBRATION_SECONDS=0',
      ],
    });
    page = await openApp(context, backend);
    await startClass(page, '数据结构');
    const toast = page.locator('.line-text.toast.error');
    await toast.waitFor({ timeout: 20_000 });
    const text = (await toast.textContent()) ?? '';
    // A fatal failure: the toast says the class stopped listening, with the mode's name as the
    // settings show it, and that the lines are kept.
    expect(text).toMatch(/^识别中途停止了（云端转写）：/);
    expect(text).toContain('CLOUD_ASR_API_KEY');
    expect(text).toContain('已有的字幕都保留着');
    await page.screenshot({ path: shot('bar-recognizer-failed.png') });
  });

  it('rescue: the fake LLM’s answer streams in, then a follow-up question is answered', async () => {
    const answer =
      '{"question": "删除双向链表的节点要改几个指针？", "context": "老师在讲双向链表的删除。", "answer": "两个：前驱节点的 next 和后继节点的 prev。", "lines": [2]}';
    llm = await createFakeOpenAIServer({
      chat: [
        { type: 'text', content: answer, chunkSize: 6, delayMs: 40 },
        {
          type: 'text',
          content: '因为每个节点只有 **两个** 指向它的指针。',
          chunkSize: 4,
          delayMs: 30,
        },
      ],
    });
    backend = await startBackend({
      uiDir,
      env: [
        'ASR_MODE=mock',
        'MOCK_INTERVAL_MS=100',
        `LLM_BASE_URL=${llm.baseURL}`,
        'LLM_API_KEY=sk-test',
        'LLM_MODEL=class-model',
      ],
    });
    page = await openApp(context, backend);
    await startClass(page, '数据结构');
    const transcriptTotal = async () =>
      ((await (await fetch(`${backend!.url}api/transcript`)).json()) as { total: number }).total;
    await expect.poll(transcriptTotal, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    await page.setViewportSize({ width: 480, height: 520 });
    await page.keyboard.press('r');
    const partials = new Set<string>();
    await expect
      .poll(
        async () => {
          const text = ((await page!.locator('.rescue-answer').textContent()) ?? '').trim();
          if (text !== '') partials.add(text);
          return text;
        },
        { timeout: 20_000, interval: 20 },
      )
      .toBe('两个：前驱节点的 next 和后继节点的 prev。');
    // It was written out piece by piece, not shown at the end in one go.
    expect(partials.size).toBeGreaterThanOrEqual(3);
    expect(await page.locator('.rescue-question').textContent()).toBe(
      '删除双向链表的节点要改几个指针？',
    );
    expect(await page.locator('.rescue-context').textContent()).toBe('老师在讲双向链表的删除。');
    expect(llm.chatRequests[0]?.body.stream).toBe(true);
    // What the answer is based on: the span, and the line the model named, with its time.
    expect(await page.locator('.rescue-panel .sources-span').textContent()).toMatch(
      /^基于 \d\d:\d\d–\d\d:\d\d 的字幕（\d+ 行）$/,
    );
    const cited = page.locator('.rescue-panel .sources-label + .source-lines .source-line');
    expect(await cited.count()).toBe(1);
    expect(await cited.locator('time').textContent()).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(await cited.locator('span').textContent()).toBe(
      'Today we continue with linked lists, and then move on to stacks and queues.',
    );
    await page.screenshot({ path: shot('panel-rescue.png') });
    // Tapping it opens the line in the transcript.
    await cited.click();
    await expect.poll(() => page!.locator('.tab.selected').textContent()).toBe('字幕');
    const revealed = page.locator('.transcript-lines li.revealed');
    await revealed.waitFor();
    expect(await revealed.getAttribute('data-id')).toBe('2');
    expect(
      await revealed.evaluate((element) => {
        const box = element.getBoundingClientRect();
        return box.top >= 0 && box.bottom <= window.innerHeight;
      }),
    ).toBe(true);
    await page.screenshot({ path: shot('panel-transcript-source.png') });
    await page.locator('.tab[data-panel="rescue"]').click();

    await page.locator('.rescue-panel .chat-input').fill('为什么是两个？');
    await page.keyboard.press('Enter');
    await expect
      .poll(
        async () => (await page!.locator('.rescue-panel .chat-turn.assistant').innerHTML()).trim(),
        { timeout: 20_000 },
      )
      .toBe('<p>因为每个节点只有 <strong>两个</strong> 指向它的指针。</p>');
    const followUp = llm.chatRequests[1]?.body.messages?.at(-1)?.content as string;
    expect(followUp).toContain('为什么是两个？');

    // Esc leaves the chat: the next key is a shortcut, not text typed into the hidden input.
    await page.locator('.rescue-panel .chat-input').focus();
    await page.keyboard.press('Escape');
    await page.keyboard.press('t');
    await expect.poll(() => page!.locator('.tab.selected').textContent()).toBe('字幕');
    expect(await page.locator('.rescue-panel .chat-input').inputValue()).toBe('');
  });

  it('catch-up: says the span it covers and the slide pages it used', async () => {
    llm = await createFakeOpenAIServer({
      chat: [
        {
          type: 'text',
          content: '### 现在讲到\n双向链表的删除（资料第 2 页）。\n\n### 作业与截止时间\n暂未提到',
          chunkSize: 8,
          delayMs: 10,
        },
      ],
    });
    backend = await startBackend({
      uiDir,
      env: [
        'ASR_MODE=mock',
        'MOCK_INTERVAL_MS=100',
        `LLM_BASE_URL=${llm.baseURL}`,
        'LLM_API_KEY=sk-test',
        'LLM_MODEL=class-model',
      ],
    });
    const { readFile } = await import('node:fs/promises');
    const form = new FormData();
    form.append(
      'file',
      new Blob([await readFile(join(DESKTOP_DIR, 'test', 'fixtures', 'slides.pptx'))]),
      'slides.pptx',
    );
    const uploaded = (await (
      await fetch(`${backend.url}api/upload_ppt`, { method: 'POST', body: form })
    ).json()) as { cite_filename: string };
    page = await openApp(context, backend, { width: 480, height: 520 });
    await page.keyboard.press('m');
    await page.locator('#course-name').fill('数据结构');
    await expect.poll(() => page!.locator('#cite-file option').count()).toBeGreaterThanOrEqual(2);
    await page.locator('#cite-file').selectOption(uploaded.cite_filename);
    await page.locator('#start-class').click();
    await page.locator('.bar[data-state="running"]').waitFor();
    const total = async () =>
      ((await (await fetch(`${backend!.url}api/transcript`)).json()) as { total: number }).total;
    await expect.poll(total, { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
    await page.keyboard.press('c');
    const span = page.locator('.catchup-panel .sources-span');
    await span.waitFor({ timeout: 20_000 });
    expect(await span.textContent()).toMatch(
      /^基于 \d\d:\d\d–\d\d:\d\d 的字幕（\d+ 行） · 课件第 1–2 页$/,
    );
    expect(await page.locator('.catchup-summary').textContent()).toContain(
      '双向链表的删除（资料第 2 页）。',
    );
    // One name for the feature: the bar's button, the tab and the panel's button.
    expect(await page.locator('.bar-actions .pill-button.catchup').getAttribute('aria-label')).toBe(
      '跟进度',
    );
    expect(await page.locator('.tab.selected').textContent()).toBe('跟进度');
    expect((await page.locator('.catchup-panel .button.primary.big').textContent())?.trim()).toBe(
      '跟进度',
    );
    await page.screenshot({ path: shot('panel-catchup.png') });
    // Every line it read is listed; each opens in the transcript.
    await page.locator('.catchup-panel .sources-all summary').click();
    const lines = page.locator('.catchup-panel .sources-all .source-line');
    expect(await lines.count()).toBeGreaterThanOrEqual(4);
    const id = await lines.first().getAttribute('data-id');
    await lines.first().click();
    await page.locator(`.transcript-lines li.revealed[data-id="${id}"]`).waitFor();
  });

  it('notes: lists and renders the notes, and writes new ones as they stream in', async () => {
    llm = await createFakeOpenAIServer({
      chat: [
        {
          type: 'text',
          content: '# 数据结构 课堂笔记\n\n## 要点\n- **循环队列** 判满\n- 作业：周五前提交',
          chunkSize: 8,
          delayMs: 20,
        },
      ],
    });
    backend = await startBackend({
      uiDir,
      env: [
        ...FAST_CLASS,
        `LLM_BASE_URL=${llm.baseURL}`,
        'LLM_API_KEY=sk-test',
        'LLM_MODEL=class-model',
      ],
    });
    const { utimes, writeFile } = await import('node:fs/promises');
    const old = join(backend.dataDir, 'summaries', '线性代数_20260301_080000.md');
    await writeFile(old, '# 线性代数\n\n1. 矩阵乘法\n2. 行列式\n');
    await utimes(old, 1_700_000_000, 1_700_000_000);
    page = await openApp(context, backend, { width: 480, height: 520 });
    await page.keyboard.press('n');
    await expect
      .poll(async () => (await page!.locator('.notes-content').innerHTML()).replaceAll('\n', ''))
      .toBe('<h3>线性代数</h3><ol><li>矩阵乘法</li><li>行列式</li></ol>');
    const options = await page.locator('.notes-panel select option').allTextContents();
    expect(options).toHaveLength(1);
    expect(options[0]).toMatch(/^线性代数 · 2023-11-1[45] \d\d:\d\d$/);

    // A class, then notes written now.
    await startClass(page, '数据结构');
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${backend!.url}api/transcript`)).json()) as { total: number })
            .total,
      )
      .toBeGreaterThanOrEqual(2);
    await page.keyboard.press('n');
    await page.locator('.notes-panel .button.primary').click();
    await expect
      .poll(() => page!.locator('.notes-panel select option').count(), { timeout: 20_000 })
      .toBe(2);
    expect(await page.locator('.notes-panel select').inputValue()).toMatch(
      /^数据结构_\d{8}_\d{6}\.md$/,
    );
    expect(await page.locator('.notes-content h4').textContent()).toBe('要点');
    expect(await page.locator('.notes-content li strong').textContent()).toBe('循环队列');
    await page.screenshot({ path: shot('panel-notes.png') });
  });

  it('library: classes by course, search hits that open the class at the line, export, notes, delete', async () => {
    llm = await createFakeOpenAIServer({
      chat: () => ({
        type: 'text',
        content: '# 课堂笔记\n\n## 要点\n- **双向链表** 删除改两个指针',
      }),
    });
    backend = await startBackend({
      uiDir,
      env: [
        'ASR_MODE=mock',
        'MOCK_INTERVAL_MS=20',
        'MOCK_LOOP=false',
        `LLM_BASE_URL=${llm.baseURL}`,
        'LLM_API_KEY=sk-test',
        'LLM_MODEL=class-model',
      ],
    });
    const call = async (path: string, method = 'POST', body: object = {}) =>
      (await fetch(`${backend!.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(method === 'GET' ? {} : { body: JSON.stringify(body) }),
      }).then((response) => response.json())) as Record<string, unknown>;
    for (const course of ['数据结构', 'Algorithms']) {
      await call('api/start_monitor', 'POST', { course_name: course });
      await expect
        .poll(async () => (await call('api/monitor_status', 'GET')).recognizer_state, {
          timeout: 20_000,
        })
        .toBe('ended');
      await call('api/stop_monitor?with_summary=false');
    }
    await backend.app.classAssistant.library.ready();

    page = await openApp(context, backend, { width: 480, height: 520 });
    await page.keyboard.press('l');
    await expect
      .poll(() => page!.locator('.library-course h4').allTextContents())
      .toEqual(['Algorithms · 1', '数据结构 · 1']);
    expect(await page.locator('.library-item .badge.alert').first().textContent()).toBe('4 次提醒');
    await page.screenshot({ path: shot('panel-library.png') });

    // Search: hits with the words marked; a hit opens its class at that line.
    await page.locator('#library-search').fill('随机点名');
    await expect.poll(() => page!.locator('.library-hit').count()).toBe(2);
    expect(await page.locator('.library-hit mark').allTextContents()).toEqual([
      '随机点名',
      '随机点名',
    ]);
    await page.locator('#library-course').selectOption('数据结构');
    await expect.poll(() => page!.locator('.library-hit').count()).toBe(1);
    await page.screenshot({ path: shot('panel-library-search.png') });
    await page.locator('.library-hit').first().click();
    const target = page.locator('.library-lines li.target');
    await target.waitFor();
    expect(await target.textContent()).toContain('随机点名');
    expect(await target.getAttribute('class')).toContain('alert-line danger');
    expect(await target.locator('.alert-keywords').textContent()).toContain('点名');
    expect(await target.isVisible()).toBe(true);
    await page.screenshot({ path: shot('panel-library-class.png') });

    // Export as subtitles.
    await page.locator('#library-export-format').selectOption('srt');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('#library-export').click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^数据结构_\d{8}-\d{6}-[a-z0-9]{4}\.srt$/);
    const { readFile } = await import('node:fs/promises');
    // The first cue at the first line, seconds into the class (later on a busy machine).
    expect(await readFile(await download.path(), 'utf8')).toMatch(/^1\n00:00:0\d,\d{3} --> /);

    // Notes for this past class, streamed in.
    await page.locator('#library-notes').click();
    await expect
      .poll(() => page!.locator('.library-notes li strong').textContent(), { timeout: 20_000 })
      .toBe('双向链表');

    // Delete, after a confirmation.
    await page.locator('#library-delete').click();
    await page.locator('.library-confirm').waitFor();
    expect(await page.locator('.library-confirm p').textContent()).toMatch(/^删除“数据结构”/);
    await page.screenshot({ path: shot('panel-library-delete.png') });
    await page.locator('#library-delete-confirm').click();
    // Back to the search, without the deleted class.
    await expect
      .poll(() => page!.locator('.library-hit-where').allTextContents())
      .toEqual([expect.stringMatching(/^字幕Algorithms · /)]);
    await page.locator('#library-search').fill('');
    await expect
      .poll(() => page!.locator('.library-course h4').allTextContents())
      .toEqual(['Algorithms · 1']);
    expect((await call('api/classes', 'GET')).total).toBe(1);
  });

  it('ask: each lookup of the class agent shows as a chip, then the answer; the settings show where the MCP token is and copy the command that prints it', async () => {
    const answer = '链表插入要改两个指针。\n\n依据：第 2 页；[课堂第 1 行]';
    llm = await createFakeOpenAIServer({
      chat: ({ body }) =>
        body.messages?.some((message) => message.role === 'tool')
          ? { type: 'text', content: answer, chunkSize: 4, delayMs: 20 }
          : {
              type: 'tool-calls',
              calls: [
                { name: 'material_page', arguments: '{"page": 2}' },
                { name: 'class_search', arguments: '{"query": "链表"}' },
              ],
              delayMs: 300,
            },
    });
    backend = await startBackend({
      uiDir,
      env: [...FAST_CLASS, `LLM_BASE_URL=${llm.baseURL}`, 'LLM_API_KEY=sk-test', 'LLM_MODEL=m'],
    });
    await fetch(`${backend.url}api/start_monitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ course_name: '数据结构' }),
    });
    page = await openApp(context, backend, { width: 480, height: 520 });
    await page.keyboard.press('a');
    const input = page.locator('.ask-panel .chat-input');
    await input.waitFor();
    expect(await input.getAttribute('placeholder')).toMatch(/^比如：第 12 页讲了什么？/);
    await input.fill('第 2 页讲了什么？');
    await page.keyboard.press('Enter');
    const chips = page.locator('.ask-panel .tool-chip');
    await expect
      .poll(() => chips.allTextContents(), { timeout: 10_000 })
      .toEqual(['查阅第 2 页', '搜索：链表']);
    await expect
      .poll(() => page!.locator('.ask-panel .chat-turn.assistant').textContent(), {
        timeout: 10_000,
      })
      .toMatch(/^链表插入要改两个指针。\s*依据：第 2 页；\[课堂第 1 行\]\s*$/);
    // Done: no chip is still running.
    expect(await page.locator('.ask-panel .tool-chip.running').count()).toBe(0);
    await page.screenshot({ path: shot('panel-ask.png') });
    const asked = llm.chatRequests.at(-1)!.body.messages!;
    expect(asked.filter((message) => message.role === 'tool')).toHaveLength(2);
    // Nothing wider than the window.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(480);
    const panel = page.locator('.ask-panel');
    expect(await panel.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(
      true,
    );

    // Settings: the MCP group shows the address, where the token is kept and the command that
    // prints it (copied with one click) — never the token, which would reach every local user.
    const origin = backend.url.replace(/\/$/, '');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    await page.keyboard.press('Escape');
    await page.keyboard.press(',');
    await page.locator('#settings-mcp summary').click();
    await page.locator('.mcp-copy').waitFor();
    expect(await page.locator('.mcp-url').textContent()).toBe(`${origin}/mcp`);
    expect(await page.locator('.mcp-token-file').textContent()).toBe(
      join(backend.dataDir, 'mcp-token'),
    );
    const command = await page.locator('.mcp-token-command').textContent();
    expect(command).toMatch(/class-assistant-backend\.js mcp token --data-dir /);
    expect(await page.locator('.mcp-copy').textContent()).toBe('复制命令');
    const token = backend.app.classAssistant.mcpToken;
    expect(await page.content()).not.toContain(token);
    await page.locator('.mcp-copy').click();
    await expect.poll(() => page!.locator('.mcp-copied').textContent()).toBe('已复制');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(command);
    // The copied command, pasted into a shell, prints the token.
    const printed = await new Promise<string>((resolve, reject) =>
      execFile('/bin/sh', ['-c', copied], (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    expect(printed).toBe(`${token}\n`);
    await page.screenshot({ path: shot('panel-settings-mcp.png') });
  });

  it('keywords: the student’s own words alert, and come back after the backend restarts', async () => {
    backend = await startBackend({ uiDir, env: FAST_CLASS });
    page = await openApp(context, backend, { width: 480, height: 520 });
    await page.keyboard.press('k');
    await page.locator('.keywords-panel .chip.danger').first().waitFor();
    await page.locator('#keyword-input').fill('张三, Zhang San');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page!.locator('.keywords-panel .chip.mine').allTextContents())
      .toEqual(['张三', 'Zhang San']);
    const server = async () =>
      ((await (await fetch(`${backend!.url}api/keywords`)).json()) as { custom: string[] }).custom;
    expect(await server()).toEqual(['张三', 'Zhang San']);
    await page.screenshot({ path: shot('panel-keywords.png') });

    // The backend keeps custom words in memory only; the app gives them back after a restart.
    await backend.stop();
    await page.locator('.bar[data-connection="offline"]').waitFor({ timeout: 15_000 });
    await backend.restart();
    await page.locator('.bar[data-connection="online"]').waitFor({ timeout: 20_000 });
    await expect.poll(server, { timeout: 10_000 }).toEqual(['张三', 'Zhang San']);

    await page.locator('.keywords-panel .chip.mine .chip-remove').first().click();
    await expect.poll(server).toEqual(['Zhang San']);
  });

  it('an LLM that is not configured gets a clear message and a way to the settings', async () => {
    backend = await startBackend({ uiDir, env: [...FAST_CLASS, 'LLM_API_KEY='] });
    page = await openApp(context, backend, { width: 480, height: 520 });
    await page.keyboard.press('c');
    const error = page.locator('.catchup-panel .error-box');
    await error.waitFor();
    expect(await error.locator('.error-message').textContent()).toBe(
      'AI 助手还没有设置好：请在“设置 → AI 助手”里填写 API 密钥（LLM_API_KEY）。',
    );
    await error.locator('button', { hasText: '打开设置' }).click();
    await page.locator('#setting-LLM_API_KEY').waitFor();
    expect(await page.locator('.not-configured').textContent()).toContain('LLM_API_KEY');
  });

  it('switches to English and back, and the window follows the panel in an app window', async () => {
    backend = await startBackend({ uiDir, env: FAST_CLASS });
    page = await openApp(context, backend, { width: 480, height: 520 });
    await page.keyboard.press(',');
    await page.locator('.app-settings select').selectOption('en');
    await expect.poll(() => page!.locator('.tab.selected').textContent()).toBe('Settings');
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 320, height: 80 });
    expect(await page.locator('.status-text').textContent()).toBe('No class');
    await page.screenshot({ path: shot('bar-english.png') });
    await page.evaluate(() => localStorage.setItem('class-assistant.lang', 'zh'));

    // A popup stands in for the launcher's --app window: there the page may resize itself.
    const [popup] = await Promise.all([
      context.waitForEvent('page'),
      page.evaluate((url) => window.open(url, 'bar', 'popup,width=320,height=80'), backend.url),
    ]);
    await popup.locator('.bar[data-connection="online"]').waitFor();
    const inner = () => popup.evaluate(() => [window.innerWidth, window.innerHeight]);
    await expect.poll(inner).toEqual([320, 80]);
    await popup.keyboard.press(',');
    await expect.poll(inner).toEqual([480, 520]);
    await popup.keyboard.press('Escape');
    await expect.poll(inner).toEqual([320, 80]);
    await popup.close();
  });
});

/** Debian's PocketSphinx US English model (pocketsphinx-en-us), zipped as a downloadable model. */
async function pocketsphinxModelArchive(folder: string): Promise<Buffer> {
  const { ZipFile } = await import('yazl');
  const { readdir } = await import('node:fs/promises');
  const source = '/usr/share/pocketsphinx/model/en-us';
  const zip = new ZipFile();
  for (const entry of await readdir(source, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name === 'en-us-phone.lm.bin') continue;
    const path = join(entry.parentPath, entry.name);
    zip.addFile(path, `${folder}/${path.slice(source.length + 1)}`);
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A model host on a loopback port serving one archive, slowly enough to watch the progress. */
async function modelHost(file: string, archive: Buffer, bytesPerSecond: number) {
  const { createServer } = await import('node:http');
  const server = createServer((request, response) => {
    if (request.url !== `/models/${file}`) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, {
      'content-type': 'application/zip',
      'content-length': archive.length,
    });
    void (async () => {
      const piece = 256 * 1024;
      for (let at = 0; at < archive.length && !response.destroyed; at += piece) {
        response.write(archive.subarray(at, at + piece));
        await new Promise((resolve) => setTimeout(resolve, (piece / bytesPerSecond) * 1000));
      }
      response.end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/models`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** espeak-ng speech as a 16 kHz mono WAV, with a second of silence around it. */
async function spokenLecture(path: string, text: string): Promise<void> {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const run = promisify(execFile);
  const raw = `${path}.raw.wav`;
  await run('espeak-ng', ['-v', 'en-us', '-s', '150', '-w', raw, text]);
  await run('sox', [
    raw,
    '-r',
    '16000',
    '-c',
    '1',
    '-b',
    '16',
    '-e',
    'signed-integer',
    path,
    'pad',
    '1',
    '2',
  ]);
}

describe('listening offline out of the box', () => {
  it('local mode without a model: the class panel downloads one with a progress bar, then the class starts and transcribes', async () => {
    const { createHash } = await import('node:crypto');
    const { createRecognizerRegistry, defaultRecognizerDefinitions } = await import(
      '@class-assistant/server'
    );
    const archive = await pocketsphinxModelArchive('pocketsphinx-en-us');
    const host = await modelHost('pocketsphinx-en-us.zip', archive, 6 * 1024 * 1024);
    const catalogue = [
      {
        id: 'pocketsphinx-en-us',
        name: 'pocketsphinx-en-us',
        engine: 'pocketsphinx' as const,
        language: 'en' as const,
        languages: ['en'],
        sizeBytes: archive.length,
        diskBytes: null,
        description: 'US English (PocketSphinx)',
        licence: 'BSD-2-Clause',
        streaming: true,
        publishedAccuracy: [],
        packaging: 'zip' as const,
        files: [
          {
            name: 'pocketsphinx-en-us.zip',
            sizeBytes: archive.length,
            sha256: createHash('sha256').update(archive).digest('hex'),
          },
        ],
        // Fetched from MODELS_BASE_URL (the student's mirror) only.
        sources: [],
      },
    ];
    const lecture = join(buildRoot, 'lecture.wav');
    await spokenLecture(
      lecture,
      'good morning everyone. today we will talk about binary search trees.',
    );
    try {
      backend = await startBackend({
        uiDir,
        env: [
          'ASR_MODE=local',
          'LOCAL_ASR_LANGUAGE=en',
          `MODELS_BASE_URL=${host.baseUrl}`,
          `AUDIO_INPUT=file:${lecture}`,
          'AUDIO_FILE_PACE=fast',
        ],
        options: {
          modelCatalogue: catalogue,
          // A machine without the system's PocketSphinx model: the model must be downloaded.
          recognizers: createRecognizerRegistry(
            defaultRecognizerDefinitions({ local: { systemPocketsphinxModels: [], catalogue } }),
          ),
        },
      });
      page = await openApp(context, backend, { width: 480, height: 520 });
      await page.keyboard.press('m');
      const offer = page.locator('.class-panel .model-offer');
      await offer.waitFor();
      // The offer fills in once the settings and the catalogue are read.
      await expect.poll(() => offer.locator('.model-offer-title').textContent()).toContain('英文');
      expect(await page.locator('#class-language').inputValue()).toBe('en');
      const button = offer.locator('.model-download[data-model="pocketsphinx-en-us"]');
      await button.waitFor();
      expect(await button.textContent()).toBe(
        `下载并开始上课（${(archive.length / 1024 / 1024).toFixed(1)} MB）`,
      );
      await page.locator('#course-name').fill('Algorithms');
      await button.click();
      // The progress bar moves while the model arrives.
      await expect
        .poll(
          async () =>
            Number(await page!.locator('.class-panel .model-progress').getAttribute('value')),
          {
            timeout: 15_000,
          },
        )
        .toBeGreaterThan(0.2);
      expect(await page.locator('.class-panel .model-progress').isVisible()).toBe(true);
      expect(await page.locator('.class-panel .model-status').textContent()).toMatch(
        /^正在下载 pocketsphinx-en-us：\d+%/,
      );
      await page.screenshot({ path: shot('panel-class-model-download.png') });

      // Installed, then the class starts by itself and the recording is transcribed.
      await page.locator('.bar[data-state="running"]').waitFor({ timeout: 60_000 });
      expect(
        existsSync(join(backend.dataDir, 'models', 'pocketsphinx-en-us', 'en-us.lm.bin')),
      ).toBe(true);
      const status = await (await fetch(`${backend.url}api/monitor_status`)).json();
      expect(status).toMatchObject({ asr_mode: 'local', course_name: 'Algorithms' });
      await expect
        .poll(
          async () => {
            const answer = (await (await fetch(`${backend!.url}api/transcript`)).json()) as {
              entries: Array<{ text: string }>;
            };
            return answer.entries.map((entry) => entry.text).join(' ');
          },
          { timeout: 60_000 },
        )
        .toMatch(/morning|today|binary|search|trees/);
      await page.screenshot({ path: shot('panel-class-model-listening.png') });
    } finally {
      await host.close();
    }
  });

  it('settings: cloud presets fill the address and model; a model added by URL is listed and removed', async () => {
    const { createHash } = await import('node:crypto');
    const { ZipFile } = await import('yazl');
    const zip = new ZipFile();
    zip.addBuffer(Buffer.from('a made-up acoustic model'), 'vosk-model-small-xx/am/final.mdl');
    zip.addBuffer(Buffer.from('--sample-frequency=16000\n'), 'vosk-model-small-xx/conf/mfcc.conf');
    zip.end();
    const chunks: Buffer[] = [];
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
    const archive = Buffer.concat(chunks);
    const host = await modelHost('mine.zip', archive, 10 * 1024 * 1024);
    backend = await startBackend({ uiDir, env: FAST_CLASS });
    page = await openApp(context, backend, { width: 480, height: 520 });
    await page.keyboard.press(',');
    // Offline recognition shows the models this computer has.
    await page.locator('label[for="hearing-local"]').click();
    await expect
      .poll(() => page!.locator('.models-section').textContent())
      .toContain('还没有安装模型。');
    await page.locator('.models-section summary').click();
    await page.locator('#model-url').fill(`${host.baseUrl}/mine.zip`);
    await page.locator('#model-sha256').fill(createHash('sha256').update(archive).digest('hex'));
    await page.locator('#model-name').fill('my-model');
    await page.locator('#model-add').click();
    await expect
      .poll(() => page!.locator('.models-section .notice.ok').textContent(), { timeout: 30_000 })
      .toBe('已安装：my-model');
    const row = page.locator('.model-row[data-model="my-model"]');
    expect(await row.textContent()).toContain('zh · vosk');
    await row.locator('button').click();
    await expect
      .poll(() => page!.locator('.models-section').textContent())
      .toContain('还没有安装模型。');
    expect(existsSync(join(backend.dataDir, 'models', 'my-model'))).toBe(false);
    await host.close();

    await page.locator('label[for="hearing-cloud"]').click();
    expect(await page.locator('#setting-ASR_MODE').inputValue()).toBe('cloud');
    await page.locator('.cloud-presets button[data-preset="groq"]').click();
    expect(await page.locator('#setting-CLOUD_ASR_BASE_URL').inputValue()).toBe(
      'https://api.groq.com/openai/v1',
    );
    expect(await page.locator('#setting-CLOUD_ASR_MODEL').inputValue()).toBe(
      'whisper-large-v3-turbo',
    );
    expect(await page.locator('.cloud-presets a').getAttribute('href')).toBe(
      'https://console.groq.com/keys',
    );
    await page.screenshot({ path: shot('panel-settings-cloud-presets.png') });
  });
});

/** A model host on a loopback port serving files under /<name>/resolve/rev/, slowly enough to watch. */
async function filesHost(name: string, files: Record<string, Buffer>, bytesPerSecond: number) {
  const { createServer } = await import('node:http');
  const requests: string[] = [];
  const prefix = `/${name}/resolve/rev/`;
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    const file = request.url?.startsWith(prefix)
      ? files[request.url.slice(prefix.length)]
      : undefined;
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-length': file.length });
    void (async () => {
      const piece = 128 * 1024;
      for (let at = 0; at < file.length && !response.destroyed; at += piece) {
        response.write(file.subarray(at, at + piece));
        await new Promise((resolve) => setTimeout(resolve, (piece / bytesPerSecond) * 1000));
      }
      response.end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}${prefix.slice(0, -1)}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('model sources in the class panel', () => {
  const files = {
    'model.int8.onnx': Buffer.alloc(3 * 1024 * 1024, 7),
    'tokens.txt': Buffer.from('<blk> 0\n你 1\n好 2\n'),
  };
  const digest = async (data: Buffer) =>
    (await import('node:crypto')).createHash('sha256').update(data).digest('hex');

  async function catalogue(first: string, second: string, options: { unchecked?: boolean } = {}) {
    const { folderSource } = await import('@class-assistant/server');
    return [
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
        files: [
          {
            name: 'model.int8.onnx',
            sizeBytes: files['model.int8.onnx'].length,
            sha256: options.unchecked ? null : await digest(files['model.int8.onnx']),
            ...(options.unchecked ? { nullWhy: 'no published value' } : {}),
          },
          {
            name: 'tokens.txt',
            sizeBytes: files['tokens.txt'].length,
            sha256: await digest(files['tokens.txt']),
          },
        ],
        sources: [
          folderSource('official', 'official', { zh: '官方源', en: 'the official host' }, first),
          folderSource('modelscope', 'modelscope', { zh: 'ModelScope', en: 'ModelScope' }, second),
        ],
      },
    ];
  }

  const installed = async () => {
    const list = (await (await fetch(`${backend!.url}api/models`)).json()) as {
      items: Array<{ id: string; installed: boolean }>;
    };
    return list.items.find((item) => item.id === 'test-sense-voice')?.installed;
  };

  it('offers recognizers only: a punctuation model in the catalogue is not a choice', async () => {
    const { folderSource } = await import('@class-assistant/server');
    const [recognizer] = await catalogue('http://127.0.0.1:9/a', 'http://127.0.0.1:9/b');
    const punctuation = {
      ...recognizer!,
      id: 'test-punct',
      name: 'sherpa-onnx-test-punct',
      role: 'punctuation' as const,
      recommended: false,
      description: 'a made-up punctuation model',
      sources: [
        folderSource(
          'official',
          'official',
          { zh: '官方源', en: 'official' },
          'http://127.0.0.1:9/p',
        ),
      ],
    };
    backend = await startBackend({
      uiDir,
      env: ['ASR_MODE=local', 'LOCAL_ASR_LANGUAGE=zh'],
      options: { modelCatalogue: [recognizer!, punctuation] },
    });
    const listed = (await (await fetch(`${backend.url}api/models`)).json()) as {
      items: Array<{ id: string; role: string }>;
    };
    expect(listed.items.map((item) => [item.id, item.role])).toEqual([
      ['test-sense-voice', 'recognizer'],
      ['test-punct', 'punctuation'],
    ]);
    page = await openApp(context, backend, { width: 480, height: 520 });
    await page.keyboard.press('m');
    const offer = page.locator('.class-panel .model-offer');
    await offer.locator('.model-choice[data-model="test-sense-voice"]').waitFor();
    expect(
      await offer
        .locator('.model-choice')
        .evaluateAll((items) => items.map((item) => item.getAttribute('data-model'))),
    ).toEqual(['test-sense-voice']);
  });

  it('a download whose first source is dead shows the switch and the source, and ends installed', async () => {
    const live = await filesHost('live', files, 2 * 1024 * 1024);
    const { createServer } = await import('node:net');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    try {
      backend = await startBackend({
        uiDir,
        env: ['ASR_MODE=local', 'LOCAL_ASR_LANGUAGE=zh'],
        options: {
          modelCatalogue: await catalogue(
            `http://127.0.0.1:${deadPort}/dead/resolve/rev`,
            live.baseUrl,
          ),
        },
      });
      page = await openApp(context, backend, { width: 480, height: 520 });
      await page.keyboard.press('m');
      const offer = page.locator('.class-panel .model-offer');
      const choice = offer.locator('.model-choice[data-model="test-sense-voice"]');
      await choice.waitFor();
      expect(await choice.textContent()).toContain('推荐');
      expect(await choice.textContent()).toContain('整句出字');
      expect(
        await offer
          .locator('#model-source option')
          .evaluateAll((options) =>
            options.map((option) => (option as HTMLOptionElement).textContent),
          ),
      ).toEqual(['自动（依次尝试）', '官方源', 'ModelScope']);
      await choice.locator('.model-download').click();
      await expect
        .poll(() => offer.locator('.model-notice').textContent(), { timeout: 30_000 })
        .toBe('官方源无法连接，正在改用 ModelScope…');
      expect(await offer.locator('.model-source').textContent()).toBe('来源：ModelScope');
      await page.screenshot({ path: shot('panel-class-model-source-switch.png') });
      await expect.poll(installed, { timeout: 60_000 }).toBe(true);
      expect(live.requests.sort()).toEqual([
        '/live/resolve/rev/model.int8.onnx',
        '/live/resolve/rev/tokens.txt',
      ]);
      expect(
        existsSync(join(backend.dataDir, 'models', 'sherpa-onnx-test-sense-voice', 'tokens.txt')),
      ).toBe(true);
    } finally {
      await live.close();
    }
  });

  it('picking a source uses it, and a model without a published checksum asks first', async () => {
    const first = await filesHost('first', files, 8 * 1024 * 1024);
    const second = await filesHost('second', files, 8 * 1024 * 1024);
    try {
      backend = await startBackend({
        uiDir,
        env: ['ASR_MODE=local', 'LOCAL_ASR_LANGUAGE=zh'],
        options: {
          modelCatalogue: await catalogue(first.baseUrl, second.baseUrl, { unchecked: true }),
        },
      });
      page = await openApp(context, backend, { width: 480, height: 520 });
      await page.keyboard.press('m');
      const offer = page.locator('.class-panel .model-offer');
      const choice = offer.locator('.model-choice[data-model="test-sense-voice"]');
      await choice.waitFor();
      expect(await choice.textContent()).toContain('无校验值');
      await offer.locator('#model-source').selectOption('modelscope');
      // The first time the student declines: nothing is downloaded.
      const asked: string[] = [];
      page.once('dialog', (dialog) => {
        asked.push(dialog.message());
        void dialog.dismiss();
      });
      await choice.locator('.model-download').click();
      await expect.poll(() => asked.length).toBe(1);
      expect(asked[0]).toBe(
        'sherpa-onnx-test-sense-voice 有文件没有公开的 SHA-256 校验值（model.int8.onnx），下载后无法确认它就是发布的文件。仍要下载吗？',
      );
      expect(first.requests).toEqual([]);
      expect(second.requests).toEqual([]);
      page.once('dialog', (dialog) => void dialog.accept());
      await choice.locator('.model-download').click();
      await expect.poll(installed, { timeout: 60_000 }).toBe(true);
      expect(first.requests).toEqual([]);
      expect(second.requests.sort()).toEqual([
        '/second/resolve/rev/model.int8.onnx',
        '/second/resolve/rev/tokens.txt',
      ]);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
