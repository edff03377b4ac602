/// <reference lib="dom" />
// The bar at the moment it exists for, in real Chromium against the real backend: a roll call at
// 320x80 (the window could not grow) and at 320x156, in Chinese and English, with the contrast of
// every control on the red and amber bars measured; a panel open during an alert; the student's
// own name from the first-run step; the backend frozen or killed mid-class. Screenshots are kept
// in apps/desktop/test-results/.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { raiseAlert } from './support/alerts.ts';
import {
  axeContrast,
  contrastProblems,
  endFlash,
  holdFlashAtPeak,
  overflowProblems,
} from './support/bar-checks.ts';
import { freePort, killAll, start } from './support/processes.ts';
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

const ROLL_CALL =
  '好，这个问题我随机点名，请学号尾号是 7 的同学回答一下，删除双向链表的节点要改几个指针？';
const HOMEWORK =
  '下面布置作业：实现一个循环队列，支持入队、出队和判满，这周五晚上十二点之前提交，deadline 不会延期。';
/** Lecture lines without a keyword, each different (the backend drops near-repeats). */
const FILLER = [
  '链表不一样，每个节点保存数据和指向下一个节点的指针。',
  'So inserting a node after a given node only changes two pointers.',
  '栈只允许在栈顶插入和删除，入栈叫 push，出栈叫 pop。',
  'A queue is first in, first out: we enqueue at the rear and dequeue at the front.',
  '函数调用、括号匹配、表达式求值，都用到了栈。',
  '用数组实现队列的时候，队头不断后移，前面的空间就浪费了。',
  'Another option is to keep a separate count of the elements.',
  '常见的做法是空出一个位置，rear 加一取模等于 front 就表示队满。',
  '下节课我们讲树和二叉树，请大家提前预习第五章。',
  'Binary trees have at most two children per node.',
  '二叉树的遍历有前序、中序和后序三种。',
  'A heap keeps its smallest element at the root.',
  '哈希表用散列函数把关键字映射到数组下标。',
  'Collisions are resolved by chaining or by open addressing.',
  '图可以用邻接矩阵或者邻接表来存储。',
  'Breadth-first search visits the graph level by level.',
  '排序算法里，快速排序平均是 n log n。',
  'Merge sort needs extra memory but is always n log n.',
  '最后我们回顾一下今天讲的几种线性结构。',
  'That is all for the linear structures today.',
];

let uiDir: string;
let buildRoot: string;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let context: BrowserContext;
let backend: TestBackend | undefined;
let llm: FakeOpenAIServer | undefined;
let page: Page | undefined;

beforeAll(async () => {
  buildRoot = await mkdtemp(join(tmpdir(), 'desktop-bar-build-'));
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
  killAll();
  if (closing) expect(pageErrors(closing)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await rm(buildRoot, { recursive: true, force: true });
});

const shot = (name: string) => join(RESULTS_DIR, name);

/** A scripted class: a few lines, then `alert` (one alert only), then the class goes on. */
async function scriptedClass(alert: string, intervalMs = 250): Promise<string[]> {
  const script = join(buildRoot, `class-${Math.random().toString(36).slice(2)}.txt`);
  // Four lines, the alert, then the class goes on.
  await writeFile(script, [...FILLER.slice(0, 4), alert, ...FILLER.slice(4)].join('\n'));
  return [
    'ASR_MODE=mock',
    `MOCK_SCRIPT=${script}`,
    `MOCK_INTERVAL_MS=${intervalMs}`,
    'MOCK_LOOP=false',
  ];
}

async function useLanguage(target: Page, lang: 'zh' | 'en'): Promise<void> {
  await target.evaluate((value) => localStorage.setItem('class-assistant.lang', value), lang);
  await target.reload();
  await target.locator('.bar[data-connection="online"]').waitFor();
}

/** True when the element's box is inside the window. */
function onScreen(target: Page, selector: string): Promise<boolean> {
  return visibleInWindow(target.locator(selector));
}

function visibleInWindow(locator: ReturnType<Page['locator']>): Promise<boolean> {
  return locator.evaluate((element) => {
    const box = element.getBoundingClientRect();
    return (
      box.width > 0 &&
      box.height > 0 &&
      box.left >= 0 &&
      box.top >= 0 &&
      box.right <= window.innerWidth &&
      box.bottom <= window.innerHeight
    );
  });
}

async function transcriptTexts(target: TestBackend): Promise<string[]> {
  const answer = (await (await fetch(`${target.url}api/transcript`)).json()) as {
    entries: Array<{ text: string }>;
  };
  return answer.entries.map((entry) => entry.text);
}

describe('a roll call at the size the window has', () => {
  it('at 320x80 the bar shows the question until Got it, Rescue one tap away; at 320x156 the card has its own', async () => {
    // A class without roll-call words; the roll call names the student (the backend says so).
    backend = await startBackend({ uiDir, env: await scriptedClass(FILLER[4]!) });
    page = await openApp(context, backend);
    await startClass(page, '数据结构');
    await expect
      .poll(async () => (await transcriptTexts(backend!)).length, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(1);
    raiseAlert(backend, {
      level: 'danger',
      keywords: ['点名', '同学回答'],
      text: ROLL_CALL,
      for_you: true,
    });
    // A browser tab cannot grow: the window stays 320x80 and the bar itself is the alert.
    const bar = page.locator('.bar[data-alert="danger"]');
    await bar.waitFor({ timeout: 20_000 });
    expect(await bar.getAttribute('data-alert-place')).toBe('bar');
    expect(await page.locator('.alert-card').isHidden()).toBe(true);
    expect(await page.locator('.alert-badge-title').textContent()).toBe('叫到你了');
    expect(await page.locator('.bar-line').textContent()).toBe(ROLL_CALL);
    const rescue = page.locator('.bar-actions .pill-button.rescue');
    expect(await rescue.isEnabled()).toBe(true);
    expect(await onScreen(page, '.bar-actions .pill-button.rescue')).toBe(true);
    expect(await onScreen(page, '.bar-actions .pill-button.dismiss')).toBe(true);
    expect(await overflowProblems(page)).toEqual([]);
    // The class goes on; the question stays.
    await expect
      .poll(async () => (await transcriptTexts(backend!)).length, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(7);
    expect(await page.locator('.bar-line').textContent()).toBe(ROLL_CALL);
    await endFlash(page);
    await page.screenshot({ path: shot('bar-alert-roll-call-320x80.png') });

    // The window gets the alert size: the card, with the line, its keywords and its own Rescue.
    await page.setViewportSize({ width: 320, height: 156 });
    const card = page.locator('.alert-card[data-level="danger"]');
    await card.waitFor();
    expect(await page.locator('.bar').getAttribute('data-alert-place')).toBe('card');
    expect(await card.locator('.alert-title').textContent()).toBe('叫到你了');
    expect(await card.locator('.alert-words').textContent()).toBe(ROLL_CALL);
    // The keyword chips collapse to what fits, every keyword in the tooltip.
    expect(await card.locator('.alert-keywords').getAttribute('title')).toBe('点名, 同学回答');
    expect(await card.locator('.alert-keywords .chip').allTextContents()).toEqual(['点名', '+1']);
    expect(await onScreen(page, '.alert-card .alert-rescue')).toBe(true);
    expect(await overflowProblems(page)).toEqual([]);
    // The bar above goes on with the class.
    await expect
      .poll(() => page!.locator('.bar-line').textContent(), { timeout: 10_000 })
      .not.toBe(ROLL_CALL);
    await page.screenshot({ path: shot('bar-alert-roll-call-320x156.png') });

    // The whole line is in the card: no "More" (a longer line: alert.browser.test.ts).
    expect(await card.locator('.alert-expand').isHidden()).toBe(true);
    const text = card.locator('.alert-text');
    expect(await text.evaluate((element) => element.scrollHeight <= element.clientHeight + 1)).toBe(
      true,
    );
    expect(await onScreen(page, '.alert-card .alert-text')).toBe(true);

    // One tap: the rescue panel opens and asks (the AI is not set up here, and says so).
    await card.locator('.alert-rescue').click();
    await expect.poll(() => page!.locator('.tab.selected').textContent()).toBe('救场');
    await page.locator('.rescue-panel .error-box').waitFor();
    // Got it: the alert is gone, the bar follows the class again.
    await page.keyboard.press('Escape');
    await expect.poll(() => page!.locator('.bar').getAttribute('data-alert')).toBe(null);
  });

  it('a panel open during an alert keeps its 520 px, its chat input and its newest line on screen', async () => {
    llm = await createFakeOpenAIServer({
      chat: [
        {
          type: 'text',
          content:
            '{"question": "链表和数组有什么不同？", "context": "老师在讲链表。", "answer": "链表插入快，数组按下标访问快。"}',
          chunkSize: 12,
          delayMs: 10,
        },
      ],
    });
    backend = await startBackend({
      uiDir,
      env: [
        ...(await scriptedClass(ROLL_CALL, 600)),
        `LLM_BASE_URL=${llm.baseURL}`,
        'LLM_API_KEY=sk-test',
        'LLM_MODEL=class-model',
      ],
    });
    page = await openApp(context, backend, { width: 480, height: 520 });
    await startClass(page, '数据结构');
    await expect
      .poll(async () => (await transcriptTexts(backend!)).length)
      .toBeGreaterThanOrEqual(1);
    await page.keyboard.press('r');
    const input = page.locator('.rescue-panel .chat-input');
    await input.waitFor({ timeout: 10_000 });
    const shell = page.locator('.panel-shell');
    const before = await shell.boundingBox();
    expect(before).toMatchObject({ y: 80, height: 440 });

    await page.locator('.bar[data-alert="danger"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('.bar').getAttribute('data-alert-place')).toBe('bar');
    expect(await shell.boundingBox()).toEqual(before);
    expect(await onScreen(page, '.rescue-panel .chat-input')).toBe(true);
    expect(await onScreen(page, '.bar-actions .pill-button.rescue')).toBe(true);
    await endFlash(page);
    await page.screenshot({ path: shot('panel-rescue-during-alert.png') });

    // The transcript: the roll call and the newest line, on screen.
    await page.keyboard.press('t');
    const rollCall = page.locator('.transcript-lines li', { hasText: ROLL_CALL });
    await rollCall.waitFor();
    expect(await visibleInWindow(rollCall)).toBe(true);
    expect(await visibleInWindow(page.locator('.transcript-lines li').last())).toBe(true);
    expect(await shell.boundingBox()).toEqual(before);
    await page.screenshot({ path: shot('panel-transcript-during-alert.png') });
  });
});

describe('320 px in Chinese and English', () => {
  for (const lang of ['zh', 'en'] as const) {
    it(`${lang}: nothing overflows at 320x80 and 320x156, ☰ always visible, the course shortened with its full name in a tooltip`, async () => {
      backend = await startBackend({ uiDir, env: await scriptedClass(ROLL_CALL, 700) });
      page = await openApp(context, backend);
      await useLanguage(page, lang);
      const course =
        lang === 'zh' ? '数据结构与算法分析（第二版）' : 'Data Structures and Algorithm Analysis';
      const check = async (state: string) => {
        expect(await overflowProblems(page!), state).toEqual([]);
        expect(await onScreen(page!, '.bar-actions .icon-button.menu'), state).toBe(true);
        await page!.screenshot({ path: shot(`bar-320-${lang}-${state}.png`) });
      };
      await check('idle');
      await page.keyboard.press('m');
      await page.locator('#course-name').fill(course);
      await page.locator('#start-class').click();
      await page.locator('.bar[data-state="running"]').waitFor();
      await expect.poll(() => page!.locator('.line-text').textContent()).not.toBe('');
      await check('running');
      // The course: a few characters and an ellipsis, or (when even that does not fit) only in
      // the tooltip of the status; its full name is always in a tooltip.
      expect(await page.locator('.status').getAttribute('title')).toContain(course);
      expect(await page.locator('.course').getAttribute('title')).toBe(course);
      const courseShown = await page.locator('.course').isVisible();
      if (courseShown) {
        expect(
          await page.locator('.course').evaluate((element) => element.clientWidth),
        ).toBeGreaterThanOrEqual(36);
      }

      await page.locator('.bar[data-alert="danger"]').waitFor({ timeout: 20_000 });
      await endFlash(page);
      await check('alert-320x80');
      await page.setViewportSize({ width: 320, height: 156 });
      await page.locator('.alert-card').waitFor();
      await check('alert-320x156');
      await page.keyboard.press('Escape');
      await page.setViewportSize({ width: 320, height: 80 });
      await backend.stop();
      await page.locator('.bar[data-connection="offline"]').waitFor({ timeout: 10_000 });
      await check('offline');
    });
  }
});

describe('contrast on the alert bars', () => {
  const levels = [
    { level: 'danger', line: ROLL_CALL },
    { level: 'warning', line: HOMEWORK },
  ] as const;
  for (const { level, line } of levels) {
    it(`${level}: every control and text at least 4.5:1, at rest and at the flash's brightest, at 320x80 and 320x156`, async () => {
      backend = await startBackend({ uiDir, env: await scriptedClass(line) });
      page = await openApp(context, backend);
      await startClass(page, '数据结构');
      await page.locator(`.bar[data-alert="${level}"]`).waitFor({ timeout: 20_000 });
      for (const size of [80, 156]) {
        await page.setViewportSize({ width: 320, height: size });
        await expect
          .poll(() => page!.locator('.bar').getAttribute('data-alert-place'))
          .toBe(size === 80 ? 'bar' : 'card');
        // The flash is held at its brightest frame…
        await page.evaluate(() => {
          const bar = document.querySelector('.bar');
          bar?.classList.remove('flash');
          void (bar as HTMLElement | null)?.offsetWidth;
          bar?.classList.add('flash');
        });
        expect(await holdFlashAtPeak(page)).toBe(1);
        expect(await contrastProblems(page), `${level} ${size} flash`).toEqual([]);
        // …and the bar at rest, also as axe-core judges the text.
        await endFlash(page);
        expect(await contrastProblems(page), `${level} ${size}`).toEqual([]);
        expect(await axeContrast(page, '.bar-area'), `${level} ${size} axe`).toEqual([]);
        await page.screenshot({ path: shot(`bar-contrast-${level}-320x${size}.png`) });
      }
    });
  }
});

describe('the student’s name', () => {
  it('is asked on first use and fires an alert when the mock lecture says it (a homophone), the student-number digits too', async () => {
    backend = await startBackend({
      uiDir,
      env: ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=500', 'MOCK_LOOP=false'],
    });
    page = await openApp(context, backend, { width: 480, height: 520 });
    await page.keyboard.press('m');
    const step = page.locator('.class-panel .name-step.first-run');
    await step.waitFor();
    expect(await step.locator('.name-step-title').textContent()).toBe('先告诉我你的名字');
    await page.locator('#first-run-name').fill('王晓明');
    await page.locator('#first-run-digits').fill('7');
    await page.screenshot({ path: shot('panel-class-first-run.png') });
    await page.locator('#first-run-save').click();
    await step.waitFor({ state: 'hidden' });
    // Saved as the backend's settings, whose roll-call words they are (not custom keywords).
    const settings = (await (await fetch(`${backend!.url}api/settings`)).json()) as {
      effective: Record<string, string>;
    };
    expect(settings.effective.STUDENT_NAME).toBe('王晓明');
    expect(settings.effective.STUDENT_NUMBER_DIGITS).toBe('7');
    const keywords = (await (await fetch(`${backend!.url}api/keywords`)).json()) as {
      custom: string[];
      student: string[];
    };
    expect(keywords.student).toEqual(expect.arrayContaining(['王晓明', '尾号是 7', '尾号是7']));
    expect(keywords.custom).toEqual([]);
    // It stays answered: the class panel opens straight to the class.
    await page.reload();
    await page.keyboard.press('m');
    await page.locator('#course-name').waitFor();
    expect(await page.locator('.class-panel .name-step.first-run').isHidden()).toBe(true);

    await page.locator('#course-name').fill('数据结构');
    await page.locator('#start-class').click();
    await page.setViewportSize({ width: 320, height: 156 });
    // The lecture calls 王小明 (the recognizer's characters), which sounds like 王晓明.
    const nameAlert = async () =>
      (await record(page!)).notifications.find((notification) =>
        notification.body.includes('王小明'),
      );
    await expect.poll(nameAlert, { timeout: 30_000 }).toBeTruthy();
    expect((await nameAlert())?.body).toMatch(/^可能叫到你了：王晓明\n王小明，你来说说/);
    expect(await page.locator('.alert-card .alert-keywords .chip').allTextContents()).toContain(
      '王晓明',
    );
    await endFlash(page);
    await page.screenshot({ path: shot('bar-alert-name.png') });
    // The roll call by the last digits of the student number fired too.
    const rollCall = (await record(page)).notifications.find((notification) =>
      notification.body.includes('尾号是 7 的同学'),
    );
    expect(rollCall?.body.split('\n')[0]).toContain('尾号是 7');
  });

  it('moves a name an earlier version kept in the browser to the settings, once, out of the custom keywords', async () => {
    backend = await startBackend({
      uiDir,
      env: ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=500', 'MOCK_LOOP=false'],
    });
    const base = backend.url;
    // What an earlier version left: the profile in the browser, its words as custom keywords.
    const earlierWords = ['王晓明', '尾号7', '尾号 7', '尾号七', '尾号是7', '尾号是 7', '尾号是七'];
    await fetch(`${base}api/update_keywords`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ keywords: [...earlierWords, 'Wang'] }),
    });
    await context.addInitScript(
      ({ origin }) => {
        if (location.origin !== origin || sessionStorage.getItem('seeded')) return;
        sessionStorage.setItem('seeded', 'yes');
        localStorage.setItem('class-assistant.student', '{"name":"王晓明","digits":"7"}');
        localStorage.setItem('class-assistant.studentAsked', 'true');
        localStorage.setItem('class-assistant.customKeywords', '["Wang"]');
      },
      { origin: base.replace(/\/$/, '') },
    );
    page = await openApp(context, backend, { width: 480, height: 520 });
    const view = async () => {
      const settings = (await (await fetch(`${base}api/settings`)).json()) as {
        effective: Record<string, string>;
      };
      const keywords = (await (await fetch(`${base}api/keywords`)).json()) as {
        custom: string[];
      };
      return {
        name: settings.effective.STUDENT_NAME,
        digits: settings.effective.STUDENT_NUMBER_DIGITS,
        custom: keywords.custom,
      };
    };
    await expect
      .poll(view, { timeout: 20_000 })
      .toEqual({ name: '王晓明', digits: '7', custom: ['Wang'] });
    // The browser forgets the profile once the backend has taken it (just after the keywords).
    await expect
      .poll(() => page!.evaluate(() => localStorage.getItem('class-assistant.student')))
      .toBe('{}');
    // The keywords panel's "My name" reads the settings; the other word stays the student's.
    await page.reload();
    await page.keyboard.press('k');
    await expect.poll(() => page!.locator('#my-name-name').inputValue()).toBe('王晓明');
    expect(await page.locator('#my-name-digits').inputValue()).toBe('7');
    await page.screenshot({ path: shot('panel-keywords-name-moved.png') });
  });
});

describe('honest status with a backend process', () => {
  /**
   * The real backend program serving the UI, on a port of its own — or on the `port` and `root`
   * of one that was killed (the launcher starting it again).
   */
  async function backendProcess(
    settings: string[],
    again: { root: string; port: number } | undefined = undefined,
  ) {
    const root = again?.root ?? (await mkdtemp(join(tmpdir(), 'desktop-process-')));
    await writeFile(join(root, '.env'), `${settings.join('\n')}\n`);
    const port = again?.port ?? (await freePort());
    const running = start(process.execPath, [
      join(DESKTOP_DIR, '..', '..', 'packages', 'server', 'bin', 'class-assistant-backend.js'),
      '--port',
      String(port),
      '--settings-file',
      join(root, '.env'),
      '--data-dir',
      join(root, 'data'),
      '--ui-dir',
      uiDir,
    ]);
    const url = `http://127.0.0.1:${port}/`;
    await expect
      .poll(async () => (await fetch(`${url}api/health`).catch(() => undefined))?.ok, {
        timeout: 20_000,
      })
      .toBe(true);
    return { running, url, root, port };
  }

  /** Milliseconds from `since` until the bar said offline (recorded in the page). */
  async function offlineAfter(target: Page, since: number): Promise<number> {
    await target.locator('.bar[data-connection="offline"]').waitFor({ timeout: 10_000 });
    const at = await target.evaluate(
      () => (window as unknown as { __offlineAt: number }).__offlineAt,
    );
    return at - since;
  }

  function watchOffline(target: Page): Promise<void> {
    return target.evaluate(() => {
      const bar = document.querySelector('.bar');
      const win = window as unknown as { __offlineAt: number };
      win.__offlineAt = 0;
      new MutationObserver(() => {
        if (bar?.getAttribute('data-connection') === 'offline' && !win.__offlineAt) {
          win.__offlineAt = Date.now();
        }
      }).observe(bar!, { attributes: true, attributeFilter: ['data-connection'] });
    });
  }

  it('shows a frozen backend offline within a second (its heartbeats stop) and a killed one at once; AI panels say so', async () => {
    llm = await createFakeOpenAIServer({
      chat: () => ({
        type: 'text',
        content:
          '{"question": "链表插入要改几个指针？", "context": "老师在讲链表。", "answer": "两个。"}',
      }),
    });
    const server = await backendProcess([
      ...(await scriptedClass(FILLER[0]!, 400)),
      `LLM_BASE_URL=${llm.baseURL}`,
      'LLM_API_KEY=sk-test',
      'LLM_MODEL=class-model',
    ]);
    try {
      page = await context.newPage();
      await context.grantPermissions(['notifications'], { origin: server.url.replace(/\/$/, '') });
      await page.setViewportSize({ width: 320, height: 80 });
      await page.goto(server.url);
      await page.locator('.bar[data-connection="online"]').waitFor();
      await startClass(page, '数据结构');
      const written = async () =>
        ((await (await fetch(`${server.url}api/transcript`)).json()) as { total: number }).total;
      await expect.poll(written, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);

      // Frozen (as a hung process, or a network that stopped): no socket closes; the heartbeats
      // (every 0.4 s) stop; a second without one is offline.
      await watchOffline(page);
      const frozenAt = Date.now();
      process.kill(server.running.child.pid!, 'SIGSTOP');
      const frozen = await offlineAfter(page, frozenAt);
      expect(frozen).toBeLessThan(1300);
      expect(await page.locator('.status-text').textContent()).toBe('后端离线');
      process.kill(server.running.child.pid!, 'SIGCONT');
      await page.locator('.bar[data-connection="online"]').waitFor({ timeout: 15_000 });

      // The rescue panel with an answer on screen… then the backend is killed.
      await page.setViewportSize({ width: 480, height: 520 });
      await page.keyboard.press('r');
      await expect
        .poll(async () => (await page!.locator('.rescue-answer').textContent())?.trim(), {
          timeout: 10_000,
        })
        .toBe('两个。');
      await watchOffline(page);
      const killedAt = Date.now();
      server.running.child.kill('SIGKILL');
      const killed = await offlineAfter(page, killedAt);
      expect(killed).toBeLessThan(1000);
      const notice = page.locator('.rescue-panel .offline-notice');
      await notice.waitFor();
      expect(await notice.textContent()).toMatch(/^后端离线：现在无法救场。/);
      // The answer on screen is marked as being from before.
      expect(await notice.locator('.stale-note').textContent()).toBe(
        '下面是后端离线前的回答，可能已经过时。',
      );
      expect(await page.locator('.rescue-result').getAttribute('class')).toContain('stale');
      expect(await page.locator('.rescue-panel .button.primary.big').isDisabled()).toBe(true);
      expect(await page.locator('.rescue-panel .chat-input').isDisabled()).toBe(true);
      await page.screenshot({ path: shot('panel-rescue-offline.png') });
      await page.setViewportSize({ width: 320, height: 80 });
      expect(await page.locator('.offline-text').textContent()).toMatch(
        /^后端没有响应，正在自动重连…（\d+ 秒后重试）$/,
      );
      expect(await page.locator('.bar-actions .pill-button.rescue').isDisabled()).toBe(true);
      await page.screenshot({ path: shot('bar-backend-killed.png') });
      console.log(`offline after: frozen ${frozen} ms, killed ${killed} ms`);
    } finally {
      server.running.child.kill('SIGKILL');
      await rm(server.root, { recursive: true, force: true });
    }
  });

  for (const lang of ['zh', 'en'] as const) {
    it(`${lang}: says once, without a tap, that the class went on after the backend was killed and started again`, async () => {
      const settings = await scriptedClass(FILLER[0]!, 300);
      const first = await backendProcess(settings);
      let second: Awaited<ReturnType<typeof backendProcess>> | undefined;
      try {
        page = await context.newPage();
        await context.grantPermissions(['notifications'], { origin: first.url.replace(/\/$/, '') });
        await page.setViewportSize({ width: 320, height: 80 });
        await page.goto(first.url);
        await page.locator('.bar[data-connection="online"]').waitFor();
        await useLanguage(page, lang);
        await startClass(page, '数据结构');
        const written = async () =>
          ((await (await fetch(`${first.url}api/transcript`)).json()) as { total: number }).total;
        await expect.poll(written, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);

        first.running.child.kill('SIGKILL');
        await first.running.exited;
        await page.locator('.bar[data-connection="offline"]').waitFor({ timeout: 10_000 });
        // The launcher starts the backend again on the same folder and port; the page reconnects.
        second = await backendProcess(settings, { root: first.root, port: first.port });
        await page
          .locator('.bar[data-connection="online"][data-state="running"]')
          .waitFor({ timeout: 30_000 });
        const toast = page.locator('.bar-line .line-text.toast');
        await toast.waitFor({ timeout: 15_000 });
        const status = (await (await fetch(`${second.url}api/monitor_status`)).json()) as {
          interruption: { seconds: number; resumed: boolean };
        };
        expect(status.interruption.resumed).toBe(true);
        const { seconds } = status.interruption;
        await expect
          .poll(async () => toast.textContent(), { timeout: 10_000 })
          .toBe(
            lang === 'zh'
              ? `后端意外退出，已自动接着记录，中断 ${seconds} 秒`
              : `The backend stopped unexpectedly; recording went on after a ${seconds} s gap`,
          );
        expect(await page.locator('.status-text').textContent()).toBe(
          lang === 'zh' ? '监听中' : 'Listening',
        );
        // Said whole in the 320x80 bar: nothing cut, nothing outside the window.
        expect(
          await page
            .locator('.bar-line')
            .evaluate((element) => element.scrollHeight <= element.clientHeight + 1),
        ).toBe(true);
        expect(await overflowProblems(page)).toEqual([]);
        await page.screenshot({ path: shot(`bar-class-resumed-${lang}.png`) });
        // Told once: the page opened again does not say it again, and the class goes on.
        await page.reload();
        await page.locator('.bar[data-connection="online"][data-state="running"]').waitFor();
        await page.locator('.bar-line .line-text:not(.hint)').waitFor();
        expect(await page.locator('.bar-line .line-text.toast').count()).toBe(0);
      } finally {
        first.running.child.kill('SIGKILL');
        second?.running.child.kill('SIGKILL');
        await second?.running.exited;
        await rm(first.root, { recursive: true, force: true });
      }
    });
  }
});
