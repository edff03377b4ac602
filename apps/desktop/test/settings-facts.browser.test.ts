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

let backend: TestBackend | undefined;
let page: Page | undefined;
const suite = browserSuite('settings-facts', () => {
  const opened = { page, backend };
  [page, backend] = [undefined, undefined];
  return opened;
});

const shot = (name: string) => join(RESULTS_DIR, name);

/** The help under a key in the settings form. */
const helpOf = (key: string) =>
  page!.locator('.setting', { has: page!.locator(`#setting-${key}`) }).locator('.setting-help');

/** What the backend says about a key, straight from its answer. */
async function definitionOf(key: string) {
  const answer = (await (await fetch(`${backend!.url}api/settings/definitions`)).json()) as {
    definitions: Array<{
      key: string;
      label: { zh: string; en: string };
      descriptions: { zh: string; en: string };
      choices?: Array<{ value: string; label: { zh: string; en: string } }>;
    }>;
  };
  return answer.definitions.find((definition) => definition.key === key)!;
}

describe('the settings panel', () => {
  it('offers every mode the backend runs, and names and describes keys and choices as the backend does, in both languages', async () => {
    backend = await startBackend({ uiDir: suite.uiDir, env: ['ASR_MODE=mock'] });
    page = await openApp(suite.context, backend, { width: 480, height: 520 });
    await page.keyboard.press(',');
    // One choice per mode, named by the backend: both online services are there.
    const dashscope = page.locator('label[for="hearing-dashscope"]');
    await dashscope.waitFor();
    expect(await dashscope.textContent()).toContain('在线识别 · 阿里云百炼');
    expect(await page.locator('#hearing-mock').isChecked()).toBe(true);
    await dashscope.click();
    expect(await page.locator('#setting-ASR_MODE').inputValue()).toBe('dashscope');
    expect(await page.locator('label[for="setting-DASHSCOPE_API_KEY"]').textContent()).toContain(
      'API 密钥',
    );

    // A key with a fixed set of values is a list of the backend's choices, with their names.
    const engine = await definitionOf('LOCAL_ASR_ENGINE');
    await page.locator('#settings-advanced > summary').click();
    await page.locator('details[data-group="recognition"] summary').click();
    const select = page.locator('select#setting-LOCAL_ASR_ENGINE');
    expect(await select.locator('option').allTextContents()).toEqual([
      `默认：auto — ${engine.choices![0]!.label.zh}`,
      ...engine.choices!.map((choice) =>
        choice.label.zh === choice.value ? choice.value : `${choice.value} — ${choice.label.zh}`,
      ),
    ]);
    expect(await page.locator('label[for="setting-LOCAL_ASR_ENGINE"]').textContent()).toContain(
      engine.label.zh,
    );
    expect(await page.locator('details[data-group="audio"] summary').textContent()).toBe('音频');
    // What the key does, in Chinese too.
    expect(await helpOf('LOCAL_ASR_ENGINE').textContent()).toBe(engine.descriptions.zh);
    await page.screenshot({ path: shot('panel-settings-modes-zh.png') });
    await helpOf('LOCAL_ASR_ENGINE').scrollIntoViewIfNeeded();
    await page.screenshot({ path: shot('panel-settings-help-zh.png') });

    // The same names in English once the student switches.
    await page.locator('.app-settings select').selectOption('en');
    await expect
      .poll(() => page!.locator('label[for="hearing-dashscope"]').textContent())
      .toContain('Online · Alibaba Cloud Model Studio');
    expect(await page.locator('label[for="hearing-local"]').textContent()).toContain(
      'Offline, on this computer',
    );
    await page.locator('#settings-advanced > summary').click();
    await page.locator('details[data-group="recognition"] summary').click();
    expect(await page.locator('label[for="setting-LOCAL_ASR_ENGINE"]').textContent()).toContain(
      engine.label.en,
    );
    expect(
      await page.locator('select#setting-LOCAL_ASR_ENGINE option').allTextContents(),
    ).toContain(
      `pocketsphinx — ${engine.choices!.find((choice) => choice.value === 'pocketsphinx')!.label.en}`,
    );
    expect(await helpOf('LOCAL_ASR_ENGINE').textContent()).toBe(engine.descriptions.en);
    await page.screenshot({ path: shot('panel-settings-modes-en.png') });
    await helpOf('LOCAL_ASR_ENGINE').scrollIntoViewIfNeeded();
    await page.screenshot({ path: shot('panel-settings-help-en.png') });
  });
});

describe('the class panel', () => {
  /** The microphone row of the class panel once its check has answered. */
  async function microphoneRow(env: string[]): Promise<string> {
    backend = await startBackend({ uiDir: suite.uiDir, env });
    page = await openApp(suite.context, backend, { width: 480, height: 520 });
    await page.keyboard.press('m');
    const row = page.locator('.class-panel .check-row').nth(1);
    await row.waitFor({ state: 'visible', timeout: 30_000 });
    // What the check says, without the way out the row may offer.
    const buttons = (await row.locator('button').allTextContents()).join('');
    const text = ((await row.textContent()) ?? '').replace(buttons, '');
    await page.close();
    await backend.dispose();
    [page, backend] = [undefined, undefined];
    return text;
  }

  it('checks the microphone for the online service of Alibaba Cloud as for offline recognition', async () => {
    // This machine has no microphone: the check says so, the same way for both modes.
    const local = await microphoneRow(['ASR_MODE=local']);
    expect(local).toMatch(/^(!麦克风.+|✓麦克风可用)/);
    const dashscope = await microphoneRow([
      'ASR_MODE=dashscope',
      'DASHSCOPE_API_KEY=sk-test-0123456789abcdef',
      // Nothing may leave the machine: the service's address is a closed loopback port.
      'DASHSCOPE_WS_URL=ws://127.0.0.1:9/api-ws/v1/inference',
    ]);
    expect(dashscope).toBe(local);
  });
});
