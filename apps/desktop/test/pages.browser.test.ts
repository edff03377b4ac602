/// <reference lib="dom" />
// The page the teacher is on, in real Chromium against the real backend, in Chinese and English:
// a mock class whose script walks a deck chosen as its material — the 320x80 bar shows "第 N 页"
// as the teacher moves on, a tap opens that page's text (480x520), the transcript and the
// library's class label where the page changes, and search hits name their page. Screenshots in
// apps/desktop/test-results/.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  browserSuite,
  openApp,
  RESULTS_DIR,
  startBackend,
  type TestBackend,
} from './support/ui-harness.ts';

/** The deck as an upload's material text: a marker before each slide. */
const DECK = [
  '--- 第 1 页 ---\n栈 Stack\n后进先出 LIFO：只在栈顶 push 和 pop\n',
  '--- 第 2 页 ---\n队列 Queue\n先进先出 FIFO：队头出队，队尾入队\n',
  '--- 第 3 页 ---\n循环队列 Circular queue\n取模回绕；判满时牺牲一个单元\n',
  '--- 第 4 页 ---\n二叉树 Binary tree\n左子树、右子树；满二叉树与完全二叉树\n',
].join('\n');

/** The teacher's lines, walking the deck (in their own words), with an aside. */
const LECTURE = [
  '今天先讲栈，栈顶这个位置很重要',
  '后进先出，就是 LIFO',
  '后面的同学安静一点',
  '接下来是队列，先进先出',
  '出队在队头，入队在队尾',
  '循环队列怎么判满呢',
  '要取模，还要牺牲一个单元',
  '二叉树分左子树和右子树',
  '满二叉树和完全二叉树不一样',
];

const TEXTS = {
  zh: { page: (n: number) => `第 ${n} 页`, of: '第 4 页 / 共 4 页', here: '老师正在讲这一页' },
  en: { page: (n: number) => `p. ${n}`, of: 'Page 4 of 4', here: 'The teacher is on this page' },
} as const;

let backend: TestBackend | undefined;
let page: Page | undefined;
const suite = browserSuite('pages', () => {
  const opened = { page, backend };
  [page, backend] = [undefined, undefined];
  return opened;
});

const shot = (name: string) => join(RESULTS_DIR, name);

/** True when the element's box lies inside the window. */
function inWindow(locator: ReturnType<Page['locator']>): Promise<boolean> {
  return locator.evaluate((element) => {
    const box = element.getBoundingClientRect();
    return (
      box.width > 0 &&
      box.left >= 0 &&
      box.top >= 0 &&
      box.right <= window.innerWidth &&
      box.bottom <= window.innerHeight
    );
  });
}

describe('the page the teacher is on', () => {
  for (const lang of ['zh', 'en'] as const) {
    it(`shows in the bar as the teacher moves on, opens the page on a tap, and labels the transcript, the library and search (${lang})`, async () => {
      const text = TEXTS[lang];
      const script = join(suite.root, `lecture-${lang}.txt`);
      await writeFile(script, `${LECTURE.join('\n')}\n`);
      backend = await startBackend({
        uiDir: suite.uiDir,
        // Slow enough to see each page in the bar.
        env: ['ASR_MODE=mock', `MOCK_SCRIPT=${script}`, 'MOCK_INTERVAL_MS=600', 'MOCK_LOOP=false'],
      });
      await mkdir(join(backend.dataDir, 'cite'), { recursive: true });
      await writeFile(join(backend.dataDir, 'cite', 'deck_20261127_101500.txt'), DECK);

      page = await openApp(suite.context, backend);
      await page.evaluate((value) => localStorage.setItem('class-assistant.lang', value), lang);
      await page.reload();
      await page.locator('.bar[data-connection="online"]').waitFor();
      // No class: no page in the bar.
      expect(await page.locator('.page-chip').count()).toBe(0);

      // The class, with the deck as its material, started from the class panel.
      await page.keyboard.press('m');
      await page.locator('#course-name').fill('数据结构');
      await page.locator('#cite-file').selectOption('deck_20261127_101500.txt');
      await page.locator('#start-class').click();
      await page.locator('.bar[data-state="running"]').waitFor();
      await page.locator('.panel-shell').waitFor({ state: 'hidden' });
      await page.setViewportSize({ width: 320, height: 80 });

      // The bar follows the teacher: page 1, then 2, 3 and 4, on screen at 320x80.
      const chip = page.locator('.page-chip');
      await page.locator('.page-chip', { hasText: text.page(1) }).waitFor();
      expect(await inWindow(chip)).toBe(true);
      await page.screenshot({ path: shot(`pages-bar-1-${lang}.png`) });
      await page.locator('.page-chip', { hasText: text.page(2) }).waitFor();
      await page.locator('.page-chip', { hasText: text.page(3) }).waitFor();
      expect(await inWindow(chip)).toBe(true);
      await page.screenshot({ path: shot(`pages-bar-3-${lang}.png`) });

      // Once the lecture is over the teacher stays on page 4: a tap opens it, title and text.
      await page.locator('.page-chip', { hasText: text.page(4) }).waitFor();
      await expect
        .poll(
          async () =>
            (await fetch(`${backend!.url}api/monitor_status`).then((r) => r.json()))
              .recognizer_state,
          { timeout: 30_000 },
        )
        .toBe('ended');
      await chip.click();
      await page.setViewportSize({ width: 480, height: 520 });
      const panel = page.locator('.material-panel');
      await panel.waitFor();
      await expect.poll(() => panel.locator('h3').textContent()).toBe('二叉树 Binary tree');
      expect(await panel.locator('.material-page-text').textContent()).toBe(
        '左子树、右子树；满二叉树与完全二叉树',
      );
      expect(await panel.locator('.material-page-number').textContent()).toBe(text.of);
      expect(await panel.locator('.teacher-here').textContent()).toBe(text.here);
      expect(await inWindow(panel.locator('.material-page-text'))).toBe(true);
      await page.screenshot({ path: shot(`pages-material-${lang}.png`) });
      // ‹ reads the page before; the way back follows the teacher again.
      await panel.locator('.material-nav .icon-button').first().click();
      await expect.poll(() => panel.locator('h3').textContent()).toBe('循环队列 Circular queue');
      expect(await panel.locator('.teacher-here').count()).toBe(0);
      await panel.locator('.material-nav .link-button').click();
      await expect.poll(() => panel.locator('h3').textContent()).toBe('二叉树 Binary tree');

      // The transcript labels the lines where the page changed.
      await page.keyboard.press('t');
      const labels = page.locator('.transcript-panel .page-label');
      await expect.poll(() => labels.allTextContents()).toEqual([1, 2, 3, 4].map(text.page));
      await page.screenshot({ path: shot(`pages-transcript-${lang}.png`) });

      // The library's class and search show the pages too.
      await fetch(`${backend.url}api/stop_monitor?with_summary=false`, { method: 'POST' });
      await page.keyboard.press('l');
      await page.locator('.library-item').first().click();
      await expect
        .poll(() => page!.locator('.library-lines .page-label').allTextContents())
        .toEqual([1, 2, 3, 4].map(text.page));
      await page.locator('#library-back').click();
      await page.locator('#library-search').fill('牺牲');
      const hit = page.locator('.library-hit').first();
      await hit.waitFor();
      expect(await hit.locator('.library-hit-where').textContent()).toContain(text.page(3));
      await page.screenshot({ path: shot(`pages-search-${lang}.png`) });
    });
  }
});
