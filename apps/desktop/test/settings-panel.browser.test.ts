/// <reference lib="dom" />
// The settings panel at its real size (480x520) in real Chromium against the real backend, in
// Chinese and in English: a save says only what changed, by the names the student knows; the
// refusal of a moved address says once what to do; the caption text size applies to the
// transcript and is kept. Screenshots are kept in apps/desktop/test-results/.
import { readFile } from 'node:fs/promises';
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
const suite = browserSuite('settings-panel', () => {
  const opened = { page, backend };
  [page, backend] = [undefined, undefined];
  return opened;
});

const shot = (name: string) => join(RESULTS_DIR, name);

/** The app at 480x520 in `lang` with normal captions, the settings panel open. */
async function openSettings(env: string[], lang: 'zh' | 'en'): Promise<Page> {
  backend = await startBackend({ uiDir: suite.uiDir, env });
  page = await openApp(suite.context, backend, { width: 480, height: 520 });
  // The browser profile is shared by the tests: each one says what it starts from.
  await page.evaluate((lang) => {
    localStorage.setItem('class-assistant.lang', lang);
    localStorage.setItem('class-assistant.caption-size', 'normal');
  }, lang);
  await page.reload();
  await page.locator('.bar[data-connection="online"]').waitFor();
  await page.keyboard.press(',');
  await page.locator('#setting-LLM_API_KEY').waitFor();
  return page;
}

/** A key's plain name, as the backend defines it. */
async function labelOf(key: string, lang: 'zh' | 'en'): Promise<string> {
  const answer = (await (await fetch(`${backend!.url}api/settings/definitions`)).json()) as {
    definitions: Array<{ key: string; label: { zh: string; en: string } }>;
  };
  return answer.definitions.find((definition) => definition.key === key)!.label[lang];
}

/** True when the element lies inside the 480x520 window. */
async function inWindow(selector: string): Promise<boolean> {
  const box = await page!.locator(selector).boundingBox();
  return (
    box !== null &&
    box.x >= 0 &&
    box.y >= 0 &&
    box.x + box.width <= 480 &&
    box.y + box.height <= 520
  );
}

const TEXTS = {
  zh: {
    saved: ['已保存。', '下次上课生效：'],
    retype:
      '请在这次保存中重新填写 API 密钥（LLM_API_KEY）：已保存的密钥不会发往新的地址 http://127.0.0.1:9。设置没有改动。',
    larger: '特大',
  },
  en: {
    saved: ['Saved.', 'From the next class: '],
    retype:
      'Type the API key (LLM_API_KEY) again in this save: the stored one is not sent to a new address (http://127.0.0.1:9). Nothing was changed.',
    larger: 'Larger',
  },
} as const;

describe.each(['zh', 'en'] as const)('the settings panel in %s (480x520)', (lang) => {
  it('a save names only the key that changed, by its name and as the file names it', async () => {
    await openSettings(
      [
        'ASR_MODE=seed-asr',
        // The original product's names, and a model line left empty (the default is used).
        'SEED_ASR_WS_URL=ws://127.0.0.1:9/api/v3/sauc/bigmodel',
        'SEED_ASR_APP_KEY=7391046528',
        'SEED_ASR_ACCESS_KEY=access-token-0123456789',
        'LLM_MODEL=',
        'LLM_API_KEY=sk-secret-abcd1234',
      ],
      lang,
    );
    // The streaming mode is the one chosen (seed-asr is its original name): its keys show.
    await page!.locator('#setting-STREAM_ASR_APP_KEY').fill('8402157639');
    // The model typed as the default it already was: nothing changes for the student.
    await page!.locator('#setting-LLM_MODEL').fill('deepseek-chat');
    await page!.locator('#save-settings').click();
    const notice = page!.locator('.settings-panel .notice.ok');
    await notice.waitFor();
    const label = await labelOf('STREAM_ASR_APP_KEY', lang);
    const [headline, when] = TEXTS[lang].saved;
    expect(await notice.locator('p').allTextContents()).toEqual([
      headline,
      `${when}${label} (SEED_ASR_APP_KEY)`,
    ]);
    expect(await notice.isVisible()).toBe(true);
    await notice.scrollIntoViewIfNeeded();
    expect(await inWindow('.settings-panel .notice.ok')).toBe(true);
    await page!.screenshot({ path: shot(`settings-saved-one-key-${lang}.png`) });
    const saved = await readFile(backend!.envFile, 'utf8');
    expect(saved).toContain('SEED_ASR_APP_KEY=8402157639\n');
    expect(saved).not.toContain('STREAM_ASR_APP_KEY');
  });

  it('a moved AI address without its key is refused in one sentence, and the key field is where to type', async () => {
    await openSettings(['ASR_MODE=mock', 'LLM_API_KEY=sk-secret-abcd1234'], lang);
    const before = await readFile(backend!.envFile, 'utf8');
    // A closed loopback port: nothing may leave the machine.
    await page!.locator('#setting-LLM_BASE_URL').fill('http://127.0.0.1:9/v1');
    await page!.locator('#save-settings').click();
    const box = page!.locator('.settings-panel .panel-status .error-box');
    await box.waitFor();
    expect(await box.getAttribute('role')).toBe('alert');
    expect(await box.locator('.error-message').textContent()).toBe(TEXTS[lang].retype);
    // Said once in the whole panel (two addresses would have sent the key: the AI's, and the
    // online recognition's that falls back to it).
    const panelText = (await page!.locator('.settings-panel').textContent()) ?? '';
    expect(panelText.split(lang === 'zh' ? '重新填写' : 'again in this save')).toHaveLength(2);
    await expect
      .poll(() => page!.evaluate(() => document.activeElement?.id))
      .toBe('setting-LLM_API_KEY');
    await box.scrollIntoViewIfNeeded();
    expect(await inWindow('.settings-panel .panel-status .error-box')).toBe(true);
    await page!.screenshot({ path: shot(`settings-key-required-${lang}.png`) });
    expect(await readFile(backend!.envFile, 'utf8')).toBe(before);
  });

  it('the caption text size makes the transcript lines larger, and is kept after a reload', async () => {
    await openSettings(['ASR_MODE=mock', 'MOCK_INTERVAL_MS=250', 'MOCK_LOOP=false'], lang);
    await page!.keyboard.press('Escape');
    await page!.setViewportSize({ width: 480, height: 520 });
    await startClass(page!, 'Data structures');
    await page!.keyboard.press('t');
    const line = page!.locator('.transcript-lines li').first();
    await line.waitFor();
    const fontSize = () => line.evaluate((element) => getComputedStyle(element).fontSize);
    expect(await fontSize()).toBe('13px');

    await page!.locator('.tab[data-panel="settings"]').click();
    const choice = page!.locator('.caption-size label', { hasText: TEXTS[lang].larger });
    await choice.click();
    expect(await choice.locator('input').isChecked()).toBe(true);
    expect(await inWindow('.caption-size')).toBe(true);
    await page!.screenshot({ path: shot(`settings-caption-size-${lang}.png`) });
    await page!.locator('.tab[data-panel="transcript"]').click();
    await expect.poll(fontSize).toBe('18.2px');
    await page!.screenshot({ path: shot(`transcript-caption-larger-${lang}.png`) });

    await page!.reload();
    await page!.locator('.bar[data-connection="online"]').waitFor();
    await page!.keyboard.press('t');
    await line.waitFor();
    expect(await fontSize()).toBe('18.2px');
    await page!.keyboard.press(',');
    expect(await page!.locator('.caption-size input[value="larger"]').isChecked()).toBe(true);
  });
});
