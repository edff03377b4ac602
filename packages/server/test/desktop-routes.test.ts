import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness.ts';

let harness: Harness | undefined;
const folders: string[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function builtUi(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'class-assistant-ui-'));
  folders.push(folder);
  await mkdir(join(folder, 'assets'));
  await writeFile(join(folder, 'index.html'), '<!doctype html><title>课堂助手</title><p>bar</p>');
  await writeFile(join(folder, 'assets', 'index-3f2a.js'), 'console.log("ui")');
  return folder;
}

describe('the UI at /', () => {
  it('serves a built UI: the page revalidated, hashed assets cached for good', async () => {
    harness = await createHarness({ options: { uiDir: await builtUi() } });
    const page = await harness.request({ url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('<title>课堂助手</title>');
    expect(page.headers['cache-control']).toBe('no-cache');
    const script = await harness.request({ url: '/assets/index-3f2a.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('keeps the API, /docs and JSON 404s beside the UI, and never leaves the folder', async () => {
    harness = await createHarness({ options: { uiDir: await builtUi() } });
    expect((await harness.request({ url: '/api/health' })).json()).toMatchObject({
      status: 'healthy',
    });
    expect((await harness.request({ url: '/docs/json' })).statusCode).toBe(200);
    const missing = await harness.request({ url: '/api/nothing-here' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ status: 'error', code: 'NOT_FOUND' });
    const traversal = await harness.request({ url: '/assets/..%2f..%2f..%2fetc%2fpasswd' });
    expect(traversal.statusCode).toBe(404);
    expect(traversal.body).not.toContain('root:');
  });

  it('answers a repeated request with 304, HEAD without a body, and hides dotfiles', async () => {
    const folder = await builtUi();
    await writeFile(join(folder, '.env'), 'LLM_API_KEY=secret');
    await mkdir(join(folder, 'help'));
    await writeFile(join(folder, 'help', 'index.html'), '<p>help</p>');
    harness = await createHarness({ options: { uiDir: folder } });
    const first = await harness.request({ url: '/assets/index-3f2a.js' });
    expect(first.headers.etag).toMatch(/^W\/"/);
    const again = await harness.request({
      url: '/assets/index-3f2a.js',
      headers: { 'if-none-match': String(first.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const since = await harness.request({
      url: '/',
      headers: { 'if-modified-since': String(first.headers['last-modified']) },
    });
    expect(since.statusCode).toBe(304);
    const head = await harness.request({ method: 'HEAD', url: '/assets/index-3f2a.js' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String('console.log("ui")'.length));
    expect(head.body).toBe('');
    expect((await harness.request({ url: '/help/' })).body).toBe('<p>help</p>');
    for (const url of ['/.env', '/%2eenv', '/assets/../.env']) {
      const hidden = await harness.request({ url });
      expect(hidden.statusCode).toBe(404);
      expect(hidden.body).not.toContain('secret');
    }
  });

  it('shows the landing page without a UI, and says how to build one when the folder is empty', async () => {
    harness = await createHarness();
    const landing = await harness.request({ url: '/' });
    expect(landing.statusCode).toBe(200);
    expect(landing.body).toContain('The backend is running.');
    expect(landing.body).toContain('href="/docs"');
    await harness.close();

    const empty = await mkdtemp(join(tmpdir(), 'class-assistant-ui-'));
    folders.push(empty);
    harness = await createHarness({ options: { uiDir: empty } });
    const page = await harness.request({ url: '/' });
    expect(page.body).toContain('has no index.html');
    expect(page.body).toContain('pnpm --filter @class-assistant/desktop build');
  });
});

describe('POST /api/shutdown', () => {
  it('answers 202 to the right token and then asks the owning process to stop', async () => {
    let requested = 0;
    harness = await createHarness({
      options: { requestShutdown: () => requested++, shutdownToken: 'the-token-of-this-run' },
    });
    for (const token of [undefined, '', 'the-token-of-another-run', 'the-token-of-this-ru']) {
      const refused = await harness.request({
        method: 'POST',
        url: '/api/shutdown',
        ...(token === undefined ? {} : { headers: { 'x-shutdown-token': token } }),
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'SHUTDOWN_FORBIDDEN' });
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(requested).toBe(0);
    const response = await harness.request({
      method: 'POST',
      url: '/api/shutdown',
      headers: { 'x-shutdown-token': 'the-token-of-this-run' },
    });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ status: 'stopping', message: 'The backend is stopping.' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(requested).toBe(1);
  });

  it('is refused from a foreign origin and unavailable in an embedded server', async () => {
    let requested = 0;
    harness = await createHarness({
      options: { requestShutdown: () => requested++, shutdownToken: 'the-token' },
    });
    const foreign = await harness.request({
      method: 'POST',
      url: '/api/shutdown',
      headers: { origin: 'https://attacker.example', 'x-shutdown-token': 'the-token' },
    });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
    await harness.close();
    expect(requested).toBe(0);

    harness = await createHarness();
    const embedded = await harness.request({ method: 'POST', url: '/api/shutdown' });
    expect(embedded.statusCode).toBe(501);
    expect(embedded.json()).toMatchObject({ status: 'error', code: 'SHUTDOWN_UNAVAILABLE' });
  });
});

describe('GET /api/notes', () => {
  it('lists the notes newest first with their course and reads one', async () => {
    harness = await createHarness();
    const summaries = join(harness.dataDir, 'summaries');
    await writeFile(join(summaries, '数据结构_20260307_101500.md'), '# 数据结构\n\n- 链表\n');
    await writeFile(join(summaries, '课堂笔记_20260308_090000.md'), '# 课堂笔记\n');
    await writeFile(join(summaries, 'readme.txt'), 'not notes');
    await utimes(join(summaries, '数据结构_20260307_101500.md'), 1_700_000_000, 1_700_000_000);
    await utimes(join(summaries, '课堂笔记_20260308_090000.md'), 1_800_000_000, 1_800_000_000);

    const list = (await harness.request({ url: '/api/notes' })).json();
    expect(list.status).toBe('success');
    expect(
      list.items.map((item: { filename: string; course_name: string }) => [
        item.filename,
        item.course_name,
      ]),
    ).toEqual([
      ['课堂笔记_20260308_090000.md', ''],
      ['数据结构_20260307_101500.md', '数据结构'],
    ]);
    expect(list.items[1]).toMatchObject({ size: 25, updated_at_iso: '2023-11-14T22:13:20.000Z' });

    const note = await harness.request({
      url: `/api/notes/${encodeURIComponent('数据结构_20260307_101500.md')}`,
    });
    expect(note.statusCode).toBe(200);
    expect(note.json()).toMatchObject({
      status: 'success',
      filename: '数据结构_20260307_101500.md',
      course_name: '数据结构',
      content: '# 数据结构\n\n- 链表\n',
    });
  });

  it('refuses names outside data/summaries and says when a note is gone', async () => {
    harness = await createHarness();
    await writeFile(join(harness.dataDir, 'secret.md'), 'outside');
    const outside = await harness.request({
      url: `/api/notes/${encodeURIComponent('../secret.md')}`,
    });
    expect(outside.statusCode).toBe(400);
    expect(outside.json()).toMatchObject({ code: 'NOTES_FILENAME_INVALID', field: 'filename' });
    const text = await harness.request({ url: '/api/notes/keywords.txt' });
    expect(text.json()).toMatchObject({ code: 'NOTES_FILENAME_INVALID' });
    const gone = await harness.request({ url: '/api/notes/old_20200101_000000.md' });
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ code: 'NOTES_NOT_FOUND' });
    expect((await harness.request({ url: '/api/notes' })).json()).toEqual({
      status: 'success',
      items: [],
    });
  });
});
