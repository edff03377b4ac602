/// <reference lib="dom" />
// With API_TOKEN set, the real launcher opens the app window with a one-time address; real
// Chromium opening that address gets the cookie, the app works (its API calls, its live stream),
// and the address bar keeps no token. The window is a stand-in that hands its address to the test
// (this machine has no display); Chromium then opens that address as the window would.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  killAll,
  launcherEnvironment,
  listening,
  start,
  waitFor,
} from './support/processes.ts';
import { launchBrowser, startClass } from './support/ui-harness.ts';

const LAUNCHER = fileURLToPath(new URL('../bin/class-assistant.js', import.meta.url));
const TOKEN = 'browser-test-token_0123456789abcdef';

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let root: string;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterEach(async () => {
  killAll();
  await rm(root, { recursive: true, force: true });
});

afterAll(async () => {
  await browser?.close();
});

describe('the launcher with API_TOKEN set', () => {
  it('opens the window with a one-time address: the window gets its cookie, the app works, and the address bar has no token', async () => {
    root = await mkdtemp(join(tmpdir(), 'desktop-api-token-'));
    await writeFile(
      join(root, '.env'),
      `ASR_MODE=mock\nMOCK_INTERVAL_MS=250\nMOCK_LOOP=false\nAPI_TOKEN=${TOKEN}\n`,
    );
    // The stand-in window: hands its command line to the test and stays open until told.
    const standIn = join(root, 'window.sh');
    const argsFile = join(root, 'window-args.txt');
    const closeFile = join(root, 'close-window');
    await writeFile(
      standIn,
      `#!/bin/sh\nprintf '%s\\n' "$@" > "${argsFile}.part" && mv "${argsFile}.part" "${argsFile}"\nwhile [ ! -f "${closeFile}" ]; do sleep 0.1; done\n`,
    );
    await chmod(standIn, 0o755);
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const launcher = start(
      process.execPath,
      [
        LAUNCHER,
        '--port',
        String(port),
        '--settings-file',
        join(root, '.env'),
        '--data-dir',
        join(root, 'data'),
      ],
      { env: launcherEnvironment({ DISPLAY: ':77', CLASS_ASSISTANT_BROWSER: standIn }) },
    );
    const args = await waitFor(
      () => readFile(argsFile, 'utf8').catch(() => undefined),
      'the app window',
      120_000,
    );
    // The browser's command line, which every user of the computer can read, has no token.
    expect(args).not.toContain(TOKEN);
    const address = /^--app=(.+)$/m.exec(args)?.[1];
    expect(address).toMatch(new RegExp(`^${origin}/\\?token=[\\w-]+$`));
    // The backend is closed to anyone without the token.
    expect((await fetch(`${origin}/api/health`)).status).toBe(401);

    const page = await browser.context.newPage();
    try {
      await page.setViewportSize({ width: 320, height: 80 });
      await page.goto(address!);
      await page.locator('.bar[data-connection="online"]').waitFor();
      expect(page.url()).toBe(`${origin}/`);
      expect(await page.evaluate(() => window.location.href)).not.toContain('token');
      await expect.poll(() => page.locator('.status-text').textContent()).toBe('未上课');
      const cookies = await browser.context.cookies(origin);
      expect(cookies).toContainEqual(
        expect.objectContaining({
          name: `class_assistant_token_${port}`,
          httpOnly: true,
          sameSite: 'Strict',
        }),
      );
      // Page scripts cannot read it.
      expect(await page.evaluate(() => document.cookie)).toBe('');
      // The app works through the cookie: a class starts and its lines arrive live.
      await startClass(page, '物理');
      await expect
        .poll(() => page.locator('.line-text').textContent(), { timeout: 20_000 })
        .toMatch(/\S/);

      // The address was good once: another window cannot use it again, nor come in without it.
      expect((await fetch(address!, { redirect: 'manual' })).status).toBe(401);
      expect((await fetch(`${origin}/`)).status).toBe(401);
    } finally {
      await page.close();
    }

    // Closing the window stops the launcher and its backend cleanly.
    await writeFile(closeFile, '');
    expect((await launcher.exited).code).toBe(0);
    expect(launcher.output()).toContain('the window was closed: stopping the backend');
    expect(launcher.output()).not.toContain(TOKEN);
    expect(await listening(port)).toBe(false);
  }, 240_000);
});
