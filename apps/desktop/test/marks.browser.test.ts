import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  browserSuite,
  openApp,
  RESULTS_DIR,
  startBackend,
  startClass,
  type TestBackend,
} from './support/ui-harness.ts';

let backend: TestBackend | undefined;
let page: Page | undefined;
const suite = browserSuite('marks', () => {
  const opened = { page, backend };
  [page, backend] = [undefined, undefined];
  return opened;
});

interface Line {
  id: number;
  timestamp: string;
  text: string;
}

const TEXTS = {
  zh: {
    heading: '★ 标记（2）',
    after: '★ 标记（3）',
    button: '标记此刻',
    toast: /^已标记 \d\d:\d\d:\d\d$/,
  },
  en: {
    heading: '★ Marked moments (2)',
    after: '★ Marked moments (3)',
    button: 'Mark this moment',
    toast: /^Marked \d\d:\d\d:\d\d$/,
  },
} as const;

/** True when the element's box lies inside the 480x520 window. */
async function inside(target: ReturnType<Page['locator']>): Promise<boolean> {
  const box = await target.boundingBox();
  return (
    box !== null &&
    box.x >= 0 &&
    box.y >= 0 &&
    box.x + box.width <= 480 &&
    box.y + box.height <= 520
  );
}

describe('★ marked moments in the library (480x520)', () => {
  for (const lang of ['zh', 'en'] as const) {
    it(`lists a class's marks with their time and line, and the running class's ★ adds one (${lang})`, async () => {
      const text = TEXTS[lang];
      backend = await startBackend({
        uiDir: suite.uiDir,
        env: ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=20', 'MOCK_LOOP=false'],
      });
      const api = async (path: string, body?: object) =>
        (await fetch(`${backend!.url}${path}`, {
          method: body ? 'POST' : 'GET',
          headers: { 'content-type': 'application/json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        }).then((response) => response.json())) as Record<string, unknown>;
      await api('api/start_monitor', { course_name: '数据结构' });
      await expect
        .poll(async () => (await api('api/monitor_status')).recognizer_state, { timeout: 20_000 })
        .toBe('ended');
      const [listed] = (await api('api/classes')).items as Array<{ id: string }>;
      const id = listed!.id;
      expect((await api('api/marks', { line_id: 5 })).status).toBe('success');
      expect((await api('api/marks', { line_id: 2, note: '这里要考' })).status).toBe('success');
      const lines = (await api(`api/classes/${id}`)).lines as Line[];
      const line = (lineId: number) => lines.find((item) => item.id === lineId)!;

      page = await openApp(suite.context, backend, { width: 480, height: 520 });
      if (lang === 'en') {
        await page.evaluate(() => localStorage.setItem('class-assistant.lang', 'en'));
        await page.reload();
        await page.locator('.bar[data-connection="online"]').waitFor();
      }
      await page.keyboard.press('l');
      await page.locator(`.library-item[data-class-id="${id}"]`).click();
      const marks = page.locator('.library-marks');
      await marks.waitFor();
      expect(await marks.locator('h4').textContent()).toBe(text.heading);
      // In the order of the class: the time and the line, the note under it.
      const items = marks.locator('li');
      expect(await items.locator('time').allTextContents()).toEqual([
        line(2).timestamp,
        line(5).timestamp,
      ]);
      expect(await items.locator('span').allTextContents()).toEqual([
        `${line(2).text}这里要考`,
        line(5).text,
      ]);
      expect(await items.first().locator('.library-mark-note').textContent()).toBe('这里要考');
      for (const item of await items.all()) {
        expect(await item.isVisible()).toBe(true);
        expect(await inside(item)).toBe(true);
      }
      await page.screenshot({ path: join(RESULTS_DIR, `library-marks-${lang}.png`) });

      // The running class: ★ marks its newest line and says when.
      const star = page.locator('.panel-content').getByRole('button', { name: text.button });
      expect(await star.isEnabled()).toBe(true);
      expect(await inside(star)).toBe(true);
      await star.click();
      const toast = page.locator('.line-text.toast.info');
      await expect.poll(() => toast.textContent()).toMatch(text.toast);
      await expect.poll(() => marks.locator('h4').textContent()).toBe(text.after);
      const newest = lines.at(-1)!;
      expect(await items.last().locator('time').textContent()).toBe(newest.timestamp);
      expect(await items.last().locator('span').textContent()).toBe(newest.text);
      await page.screenshot({ path: join(RESULTS_DIR, `library-marks-star-${lang}.png`) });
    });
  }
});

describe('★ in the bar (320x80)', () => {
  for (const lang of ['zh', 'en'] as const) {
    it(`marks the newest line of the running class in one tap, and the bar still fits (${lang})`, async () => {
      const text = TEXTS[lang];
      backend = await startBackend({
        uiDir: suite.uiDir,
        env: ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=400', 'MOCK_LOOP=true'],
      });
      page = await openApp(suite.context, backend);
      if (lang === 'en') {
        await page.evaluate(() => localStorage.setItem('class-assistant.lang', 'en'));
        await page.reload();
        await page.locator('.bar[data-connection="online"]').waitFor();
      }
      const star = page.locator('.bar').getByRole('button', { name: text.button });
      // No class, no ★: there is no moment to mark.
      expect(await star.count()).toBe(0);
      await startClass(page, '数据结构');
      const total = async () =>
        ((await (await fetch(`${backend!.url}api/transcript`)).json()) as { total: number }).total;
      await expect.poll(total, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
      await star.click();
      const toast = page.locator('.line-text.toast.info');
      await expect.poll(() => toast.textContent()).toMatch(text.toast);
      // Nothing in the top row spills out of the 320 px bar.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(320);
      const box = await star.boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(320);
      expect(box!.y + box!.height).toBeLessThanOrEqual(80);
      await page.screenshot({ path: join(RESULTS_DIR, `bar-star-${lang}-320x80.png`) });
      const [listed] = (
        (await (await fetch(`${backend.url}api/classes`)).json()) as {
          items: Array<{ id: string }>;
        }
      ).items;
      const detail = (await (await fetch(`${backend.url}api/classes/${listed!.id}`)).json()) as {
        marks: Array<{ line_id: number; text: string }>;
      };
      expect(detail.marks).toHaveLength(1);
      expect(detail.marks[0]!.text).not.toBe('');
    });
  }
});
