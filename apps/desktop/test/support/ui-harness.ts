/// <reference lib="dom" />
// The UI in real Chromium (Debian's, driven by playwright-core) against the real backend on a real
// socket, with a fake OpenAI-compatible server at the edge.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BuildAppOptions, buildApp } from '@class-assistant/server';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.ts';

/** apps/desktop. */
export const DESKTOP_DIR = join(import.meta.dirname, '..', '..');
/** Screenshots kept as test artifacts. */
export const RESULTS_DIR = join(DESKTOP_DIR, 'test-results');

/** Builds the UI into a folder of its own (the launcher's dist/ui is left alone). */
export async function buildUiInto(folder: string): Promise<string> {
  const { build } = await import('vite');
  await build({
    configFile: join(DESKTOP_DIR, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir: folder, emptyOutDir: true },
  });
  return folder;
}

/** A backend serving the UI, restartable on the same port and folders. */
export interface TestBackend {
  url: string;
  port: number;
  dataDir: string;
  envFile: string;
  app: Awaited<ReturnType<typeof buildApp>>;
  /** Stops it (the browser sees the backend go away). */
  stop(): Promise<void>;
  /** Starts a new backend on the same port and folders (event ids start again). */
  restart(): Promise<void>;
  /** Removes its folders. */
  dispose(): Promise<void>;
}

/** Starts the backend with these settings lines. */
export async function startBackend(options: {
  uiDir: string;
  env: string[];
  port?: number;
  /** More buildApp options (a model catalogue, recognizers…). */
  options?: Partial<BuildAppOptions>;
}): Promise<TestBackend> {
  const root = await mkdtemp(join(tmpdir(), 'desktop-ui-'));
  const dataDir = join(root, 'data');
  const envFile = join(root, '.env');
  await mkdir(dataDir, { recursive: true });
  await writeFile(envFile, `# test settings\n${options.env.join('\n')}\n`);
  let port = options.port ?? 0;
  const open = async () => {
    const app = await buildApp({
      dataDir,
      envFile,
      uiDir: options.uiDir,
      port,
      sseHeartbeatMs: 1000,
      ...options.options,
    });
    await app.listen({ host: '127.0.0.1', port });
    port = app.classAssistant.port();
    return app;
  };
  const backend: TestBackend = {
    url: '',
    port: 0,
    dataDir,
    envFile,
    app: await open(),
    async stop() {
      await backend.app.close();
    },
    async restart() {
      backend.app = await open();
    },
    async dispose() {
      await backend.app.close().catch(() => {});
      await rm(root, { recursive: true, force: true });
    },
  };
  backend.port = port;
  backend.url = `http://127.0.0.1:${port}/`;
  return backend;
}

/** What the page did that the test cannot see on screen: notifications and tones. */
export interface PageRecord {
  notifications: Array<{ title: string; body: string; requireInteraction: boolean; tag: string }>;
  tones: number;
}

const RECORDER = `
  window.__record = { notifications: [], tones: 0 };
  const Original = window.Notification;
  if (Original) {
    class Recorded extends Original {
      constructor(title, options = {}) {
        super(title, options);
        window.__record.notifications.push({ title, body: options.body || '', requireInteraction: Boolean(options.requireInteraction), tag: options.tag || '' });
      }
    }
    Object.defineProperty(Recorded, 'permission', { get: () => Original.permission });
    Recorded.requestPermission = (...args) => Original.requestPermission(...args);
    window.Notification = Recorded;
  }
  const createOscillator = AudioContext.prototype.createOscillator;
  AudioContext.prototype.createOscillator = function () {
    window.__record.tones++;
    return createOscillator.call(this);
  };
`;

/**
 * A fresh browser profile with Chromium: launch it once per file. `args` adds flags (a fake
 * microphone, for one); `locale` is the browser's language (Chinese unless told).
 */
export async function launchBrowser(
  options: {
    args?: string[] /** The browser's language (navigator.languages). */;
    locale?: string;
  } = {},
): Promise<{
  context: BrowserContext;
  close(): Promise<void>;
}> {
  const profile = await mkdtemp(join(tmpdir(), 'desktop-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS, '--autoplay-policy=no-user-gesture-required', ...(options.args ?? [])],
    // No emulated viewport: a page's size is its window's, so a popup that resizes itself (as
    // the launcher's --app window does) really changes size. openApp sets the tab's size.
    viewport: null,
    locale: options.locale ?? 'zh-CN',
  });
  await context.addInitScript(RECORDER);
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Opens the app at the bar size and waits until it is connected. */
export async function openApp(
  context: BrowserContext,
  backend: TestBackend,
  viewport = { width: 320, height: 80 },
): Promise<Page> {
  await context.grantPermissions(['notifications'], { origin: backend.url.replace(/\/$/, '') });
  const page = await context.newPage();
  await page.setViewportSize(viewport);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  (page as Page & { errors: string[] }).errors = errors;
  await page.goto(backend.url);
  await page.locator('.bar[data-connection="online"]').waitFor();
  return page;
}

/**
 * Starts a class from the class panel as a student does (M, the course name, Start) and waits
 * until the class runs and the panel has closed: the panel closes when the start is answered,
 * which can come after the class's first event on a busy machine.
 */
export async function startClass(target: Page, course: string): Promise<void> {
  await target.keyboard.press('m');
  await target.locator('#course-name').fill(course);
  await target.locator('#start-class').click();
  await target.locator('.bar[data-state="running"]').waitFor();
  await target.locator('.panel-shell').waitFor({ state: 'hidden' });
}

/** Uncaught errors of the page so far. */
export function pageErrors(page: Page): string[] {
  return (page as Page & { errors?: string[] }).errors ?? [];
}

/** The page's record of notifications and tones. */
export function record(page: Page): Promise<PageRecord> {
  return page.evaluate(() => (window as unknown as { __record: PageRecord }).__record);
}

/** What {@link browserSuite} gives a test file. */
export interface BrowserSuite {
  /** The UI built for this file. */
  readonly uiDir: string;
  /** The file's Chromium. */
  readonly context: BrowserContext;
  /** A temporary folder of the file's own (removed after it). */
  readonly root: string;
}

/**
 * The life of a browser test file: before it, the UI built into a folder of its own and
 * Chromium launched (`options` as for {@link launchBrowser}); after each test, the page and the
 * backend it opened — what `opened` hands over (and forgets) — closed, the page with no uncaught
 * error; after the file, Chromium closed and the folder removed. Call it at the top of the file.
 *
 * @example
 * let backend: TestBackend | undefined;
 * let page: Page | undefined;
 * const suite = browserSuite('pages', () => {
 *   const opened = { page, backend };
 *   [page, backend] = [undefined, undefined];
 *   return opened;
 * });
 */
export function browserSuite(
  name: string,
  opened: () => { page: Page | undefined; backend: TestBackend | undefined },
  options: Parameters<typeof launchBrowser>[0] = {},
): BrowserSuite {
  let root = '';
  let uiDir = '';
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), `desktop-${name}-`));
    uiDir = await buildUiInto(join(root, 'ui'));
    await mkdir(RESULTS_DIR, { recursive: true });
    browser = await launchBrowser(options);
  });
  afterEach(async () => {
    const { page, backend } = opened();
    await page?.close();
    await backend?.dispose();
    if (page) expect(pageErrors(page)).toEqual([]);
  });
  afterAll(async () => {
    await browser?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });
  return {
    get uiDir() {
      return uiDir;
    },
    get context() {
      if (!browser) throw new Error('the browser is launched before the first test');
      return browser.context;
    },
    get root() {
      return root;
    },
  };
}
