/// <reference lib="dom" />
// The alert a student can trust, in real Chromium against the real backend, in Chinese and
// English at the window's real sizes (320x80 and 320x156): called by name is red, loud and kept
// until "Got it"; someone else's roll call is amber, quiet and goes by itself; the card shows the
// whole line; screen readers get it as an alert; ending the class ends every alert; the caption
// size holds in the bar. Screenshots are kept in apps/desktop/test-results/.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import {
  buildUiInto,
  launchBrowser,
  openApp,
  pageErrors,
  RESULTS_DIR,
  record,
  startBackend,
  startClass,
  type TestBackend,
} from './support/ui-harness.ts';

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

/** A roll call of someone else, as the mock lecture's roll-call words hear it. */
const ROLL_CALL =
  '好，这个问题我随机点名，请学号尾号是 7 的同学回答一下，删除双向链表的节点要改几个指针？';

/** The student called by name: a line of about 80 characters, in each language. */
const CALLED = {
  zh: {
    name: '王晓明',
    text: '王晓明同学，请你来回答一下：单链表删除头节点以后，头指针应该指向哪里？如果链表里只剩下一个节点，删除它之后又要注意哪些边界情况？先想一想再说。',
  },
  en: {
    name: 'Wang Xiaoming',
    text: 'Wang Xiaoming, could you tell us where the head pointer goes after we delete the first node, and what changes when it was the only node?',
  },
} as const;

/** Longer than the card's four lines: "More" shows the rest. */
const LONG = {
  zh: `${CALLED.zh.text}请你结合刚才讲的双向链表，再说说插入和删除一个节点时前驱和后继指针分别要改几次，顺序能不能调换，为什么？`,
  en: `${CALLED.en.text} And in a doubly linked list, which pointers change, and in what order?`,
};

const TEXTS = {
  zh: { called: '叫到你了', rollCall: '老师在点名', idle: '点 ▶ 开始上课，或按 M 打开课堂面板' },
  en: {
    called: "You're being called",
    rollCall: 'Roll call in class',
    idle: 'Press ▶ to start a class, or M for the class panel',
  },
} as const;

let uiDir: string;
let buildRoot: string;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let context: BrowserContext;
let backend: TestBackend | undefined;
let page: Page | undefined;

beforeAll(async () => {
  buildRoot = await mkdtemp(join(tmpdir(), 'desktop-alert-build-'));
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
  if (closing) expect(pageErrors(closing)).toEqual([]);
});

afterAll(async () => {
  await browser?.close();
  await rm(buildRoot, { recursive: true, force: true });
});

const shot = (name: string) => join(RESULTS_DIR, name);

/** A scripted mock class: the filler lines (up to `end`) with `lines` after the fourth. */
async function scriptedClass(
  lines: string[] = [],
  intervalMs = 300,
  end = FILLER.length,
): Promise<string[]> {
  const script = join(buildRoot, `class-${Math.random().toString(36).slice(2)}.txt`);
  await writeFile(script, [...FILLER.slice(0, 4), ...lines, ...FILLER.slice(4, end)].join('\n'));
  return [
    'ASR_MODE=mock',
    `MOCK_SCRIPT=${script}`,
    `MOCK_INTERVAL_MS=${intervalMs}`,
    'MOCK_LOOP=false',
  ];
}

/** Opens the app at 320x80 in `lang` and starts a class. */
async function classIn(lang: 'zh' | 'en', env: string[]): Promise<Page> {
  backend = await startBackend({ uiDir, env });
  const opened = await openApp(context, backend);
  await opened.evaluate((value) => localStorage.setItem('class-assistant.lang', value), lang);
  await opened.reload();
  await opened.locator('.bar[data-connection="online"]').waitFor();
  await startClass(opened, lang === 'zh' ? '数据结构' : 'Data Structures');
  return opened;
}

/** Lines the backend wrote so far. */
async function written(target: TestBackend): Promise<number> {
  return ((await (await fetch(`${target.url}api/transcript`)).json()) as { total: number }).total;
}

/** The element's box, inside the window or not. */
function inWindow(locator: ReturnType<Page['locator']>): Promise<boolean> {
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

/** True when the element shows all of its text (nothing clamped away). */
function wholeText(locator: ReturnType<Page['locator']>): Promise<boolean> {
  return locator.evaluate((element) => element.scrollHeight <= element.clientHeight + 1);
}

function background(target: Page, selector: string): Promise<string> {
  return target.locator(selector).evaluate((element) => getComputedStyle(element).backgroundColor);
}

/** Counts changes of the window title from now on (a blinking title changes every 0.8 s). */
function countTitleChanges(target: Page): Promise<void> {
  return target.evaluate(() => {
    const win = window as unknown as { __titleChanges: number };
    win.__titleChanges = 0;
    new MutationObserver(() => {
      win.__titleChanges++;
    }).observe(document.head, { childList: true, subtree: true, characterData: true });
  });
}

function titleChanges(target: Page): Promise<number> {
  return target.evaluate(() => (window as unknown as { __titleChanges: number }).__titleChanges);
}

/** Contrast of every control and text at rest and at the flash's brightest frame. */
async function contrastHolds(target: Page, label: string): Promise<void> {
  await target.evaluate(() => {
    const bar = document.querySelector('.bar');
    bar?.classList.remove('flash');
    void (bar as HTMLElement | null)?.offsetWidth;
    bar?.classList.add('flash');
  });
  expect(await holdFlashAtPeak(target)).toBe(1);
  expect(await contrastProblems(target), `${label} flash`).toEqual([]);
  await endFlash(target);
  expect(await contrastProblems(target), label).toEqual([]);
  expect(await axeContrast(target, '.bar-area'), `${label} axe`).toEqual([]);
}

describe('called by name, in both languages', () => {
  for (const lang of ['zh', 'en'] as const) {
    it(`${lang}: red, loud, announced and kept until Got it; the card shows the whole line with the name marked`, async () => {
      page = await classIn(lang, await scriptedClass([], 700));
      await expect.poll(() => written(backend!), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      const { name, text } = CALLED[lang];
      raiseAlert(backend!, { level: 'danger', keywords: [name], text, for_you: true });

      // 320x80: the bar is the alert, red, and screen readers are told.
      const bar = page.locator('.bar[data-alert-kind="for-you"]');
      await bar.waitFor({ timeout: 10_000 });
      expect(await bar.getAttribute('data-alert-place')).toBe('bar');
      const alert = page.getByRole('alert');
      expect(await alert.count()).toBe(1);
      expect(await alert.textContent()).toBe(text);
      expect(await alert.locator('mark').first().textContent()).toBe(name);
      expect(await page.locator('.alert-badge').getAttribute('title')).toBe(
        `${TEXTS[lang].called}: ${name}`,
      );
      await endFlash(page);
      expect(await background(page, '.bar')).toBe('rgb(127, 29, 29)');
      expect(await overflowProblems(page)).toEqual([]);
      expect(await inWindow(page.locator('.bar-actions .pill-button.rescue'))).toBe(true);
      expect(await inWindow(page.locator('.bar-actions .pill-button.dismiss'))).toBe(true);
      // The loud sound (four notes) and a notification that stays.
      await expect.poll(async () => (await record(page!)).tones).toBeGreaterThanOrEqual(4);
      await expect
        .poll(async () => (await record(page!)).notifications.map((n) => n.title))
        .toContain(`🔴 ${TEXTS[lang].called}`);
      await contrastHolds(page, `${lang} called 320x80`);
      await page.screenshot({ path: shot(`alert-called-${lang}-320x80.png`) });

      // The class goes on; the question stays.
      const before = await written(backend!);
      await expect.poll(() => written(backend!), { timeout: 10_000 }).toBeGreaterThan(before + 1);
      expect(await page.getByRole('alert').textContent()).toBe(text);

      // 320x156: the card, with the whole line and no "More".
      await page.setViewportSize({ width: 320, height: 156 });
      const card = page.locator('.alert-card[data-kind="for-you"]');
      await card.waitFor();
      expect(await page.getByRole('alert').count()).toBe(1);
      expect(await page.getByRole('alert').locator('.alert-title').textContent()).toBe(
        TEXTS[lang].called,
      );
      expect(await card.locator('.alert-words').textContent()).toBe(text);
      expect(await card.locator('.alert-words mark').first().textContent()).toBe(name);
      expect(await wholeText(card.locator('.alert-text'))).toBe(true);
      expect(await inWindow(card.locator('.alert-text'))).toBe(true);
      expect(await card.locator('.alert-expand').isHidden()).toBe(true);
      expect(await background(page, '.alert-card')).toBe('rgb(69, 10, 10)');
      expect(await overflowProblems(page)).toEqual([]);
      await contrastHolds(page, `${lang} called 320x156`);
      await page.screenshot({ path: shot(`alert-called-${lang}-320x156.png`) });

      // A line longer than the card: "More" shows the rest.
      raiseAlert(backend!, { level: 'danger', keywords: [name], text: LONG[lang], for_you: true });
      await expect.poll(() => card.locator('.alert-words').textContent()).toBe(LONG[lang]);
      const more = page.locator('.alert-card .alert-expand');
      await more.waitFor();
      expect(await more.textContent()).toBe(lang === 'zh' ? '展开' : 'More');
      expect(await wholeText(page.locator('.alert-card .alert-text'))).toBe(false);
      await more.click();
      expect(await wholeText(page.locator('.alert-card .alert-text'))).toBe(true);
      expect(await inWindow(page.locator('.alert-card .alert-text'))).toBe(true);
      await page.screenshot({ path: shot(`alert-called-long-${lang}-320x156.png`) });

      // Got it.
      await page.keyboard.press('Escape');
      await expect.poll(() => page!.locator('.bar').getAttribute('data-alert-kind')).toBe(null);
      expect(await page.getByRole('alert').count()).toBe(0);
    });
  }
});

describe('someone else’s roll call, in both languages', () => {
  for (const lang of ['zh', 'en'] as const) {
    it(`${lang}: amber, one soft note, no notification, announced, and gone by itself`, async () => {
      // Only lines without attention words after it (the last filler line sounds like 期中).
      page = await classIn(lang, await scriptedClass([ROLL_CALL], 300, 12));
      const bar = page.locator('.bar[data-alert-kind="roll-call"]');
      await bar.waitFor({ timeout: 20_000 });
      expect(await bar.getAttribute('data-alert-place')).toBe('bar');
      expect(await page.locator('.alert-badge-title').textContent()).toBe(TEXTS[lang].rollCall);
      expect(await page.getByRole('alert').textContent()).toBe(ROLL_CALL);
      await endFlash(page);
      expect(await background(page, '.bar')).toBe('rgb(124, 45, 18)');
      expect(await overflowProblems(page)).toEqual([]);
      await expect.poll(async () => (await record(page!)).tones).toBe(1);
      expect((await record(page)).notifications).toEqual([]);
      await contrastHolds(page, `${lang} roll call 320x80`);
      await page.screenshot({ path: shot(`alert-roll-call-${lang}-320x80.png`) });

      await page.setViewportSize({ width: 320, height: 156 });
      const card = page.locator('.alert-card[data-kind="roll-call"]');
      await card.waitFor();
      expect(await card.locator('.alert-title').textContent()).toBe(TEXTS[lang].rollCall);
      expect(await page.getByRole('alert').locator('.alert-words').textContent()).toBe(ROLL_CALL);
      expect(await wholeText(card.locator('.alert-text'))).toBe(true);
      expect(await card.locator('.alert-expand').isHidden()).toBe(true);
      expect(await background(page, '.alert-card')).toBe('rgb(67, 20, 7)');
      expect(await overflowProblems(page)).toEqual([]);
      await contrastHolds(page, `${lang} roll call 320x156`);
      await page.screenshot({ path: shot(`alert-roll-call-${lang}-320x156.png`) });

      // Nobody has to tap it away (20 s).
      await page.locator('.alert-card').waitFor({ state: 'detached', timeout: 40_000 });
      expect(await page.locator('.bar').getAttribute('data-alert')).toBe(null);
      expect(await page.getByRole('alert').count()).toBe(0);
      expect((await record(page)).notifications).toEqual([]);
    });
  }
});

describe('ending the class ends the alert, in both languages', () => {
  for (const lang of ['zh', 'en'] as const) {
    it(`${lang}: a red alert, the class stopped from elsewhere: the plain idle bar at 320x80, the title still`, async () => {
      page = await classIn(lang, await scriptedClass());
      await expect.poll(() => written(backend!), { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
      const { name, text } = CALLED[lang];
      raiseAlert(backend!, { level: 'danger', keywords: [name], text, for_you: true });
      await page.locator('.bar[data-alert-kind="for-you"]').waitFor({ timeout: 10_000 });
      await countTitleChanges(page);
      await expect.poll(() => titleChanges(page!), { timeout: 10_000 }).toBeGreaterThan(1);

      // Stopped by another window (or the backend itself): the same live event reaches this one.
      const stopped = await fetch(`${backend!.url}api/stop_monitor?with_summary=false`, {
        method: 'POST',
      });
      expect(stopped.ok).toBe(true);
      await page.locator('.bar[data-state="idle"]').waitFor({ timeout: 10_000 });
      expect(await page.locator('.bar').getAttribute('data-alert')).toBe(null);
      expect(await page.getByRole('alert').count()).toBe(0);
      expect(await page.locator('.line-text').textContent()).toBe(TEXTS[lang].idle);
      expect(await page.locator('.bar-actions .pill-button.dismiss').count()).toBe(0);
      expect(await overflowProblems(page)).toEqual([]);
      const appName = await page.evaluate(() => document.title);
      expect(appName).not.toContain('【');
      // The title no longer blinks: no change for three blink periods.
      await countTitleChanges(page);
      await page.waitForTimeout(2500);
      expect(await titleChanges(page)).toBe(0);
      expect(await page.evaluate(() => document.title)).toBe(appName);
      await page.screenshot({ path: shot(`alert-ended-with-class-${lang}-320x80.png`) });
    });
  }
});

describe('the caption size in the 320x80 bar, in both languages', () => {
  for (const lang of ['zh', 'en'] as const) {
    it(`${lang}: the line grows with each step and the bar still holds it`, async () => {
      page = await classIn(lang, await scriptedClass([], 200));
      await expect.poll(() => written(backend!), { timeout: 10_000 }).toBeGreaterThanOrEqual(4);
      const sizes = { normal: 13.5, large: 16.2, larger: 18.9 } as const;
      for (const [size, pixels] of Object.entries(sizes)) {
        await page.evaluate((value) => {
          localStorage.setItem('class-assistant.caption-size', value);
        }, size);
        await page.reload();
        await page.locator('.bar[data-state="running"]').waitFor();
        await expect.poll(() => page!.locator('.line-text:not(.hint)').textContent()).not.toBe('');
        const measured = await page.locator('.bar').evaluate((bar) => {
          const line = bar.querySelector('.bar-line') as HTMLElement;
          const lineBox = line.getBoundingClientRect();
          const barBox = bar.getBoundingClientRect();
          return {
            fontSize: Number.parseFloat(getComputedStyle(line).fontSize),
            lineBottom: lineBox.bottom,
            barBottom: barBox.bottom,
            barHeight: barBox.height,
          };
        });
        expect(measured.fontSize).toBeCloseTo(pixels, 1);
        // The line stays inside the bar, and the bar inside the window.
        expect(measured.lineBottom).toBeLessThanOrEqual(measured.barBottom);
        expect(measured.barHeight).toBe(80);
        expect(await overflowProblems(page)).toEqual([]);
        await page.screenshot({ path: shot(`bar-caption-${size}-${lang}-320x80.png`) });
      }
    });
  }
});
