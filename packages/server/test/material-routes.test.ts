import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness.ts';
import { buildOleFile, buildPdf } from './support/office-builders.ts';

const fixture = (name: string) => readFile(new URL(`./fixtures/${name}`, import.meta.url));

let harness: Harness;
let base: string;

async function upload(name: string, bytes: Uint8Array, field = 'file') {
  const form = new FormData();
  form.append(field, new Blob([bytes]), name);
  const response = await fetch(`${base}/api/upload_ppt`, { method: 'POST', body: form });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  harness = await createHarness({ env: ['ASR_MODE=mock', 'UPLOAD_MAX_MB=1'] });
  base = await harness.listen();
  await writeFile(
    join(harness.dataDir, 'current_class_material.txt'),
    'the material of the running class',
  );
});
afterAll(() => harness.close());

describe('POST /api/upload_ppt with real files over HTTP', () => {
  it('reads a .pptx, writes data/cite/<name>_<timestamp>.txt and answers the original shape', async () => {
    const { status, body } = await upload('第二讲 链表.pptx', await fixture('slides.pptx'));
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'success', kind: 'pptx', pages: 2 });
    expect(body.cite_filename).toMatch(/^第二讲_链表_\d{8}_\d{6}\.txt$/);
    const text = await readFile(
      join(harness.dataDir, 'cite', body.cite_filename as string),
      'utf8',
    );
    expect(text).toContain(
      '--- 第 1 页 ---\nSlide 1: 数据结构 — 链表 Linked lists\n备注：讲者备注：先画图再写代码。',
    );
    expect(body.text_length).toBe(text.length);
  });

  it('reads a .pdf and a .docx with Chinese and English text', async () => {
    const pdf = await upload('notes.pdf', await fixture('notes.pdf'));
    expect(pdf.status).toBe(200);
    expect(
      await readFile(join(harness.dataDir, 'cite', pdf.body.cite_filename as string), 'utf8'),
    ).toContain('期中考试范围：第一章到第七章。');
    const docx = await upload('notes.docx', await fixture('notes.docx'));
    expect(docx.status).toBe(200);
    expect(
      await readFile(join(harness.dataDir, 'cite', docx.body.cite_filename as string), 'utf8'),
    ).toContain('事件 | 概率\nP(A) | 0.3');
  });

  it('never touches the current class material', async () => {
    expect(await readFile(join(harness.dataDir, 'current_class_material.txt'), 'utf8')).toBe(
      'the material of the running class',
    );
  });

  it('lists the uploads newest first', async () => {
    const response = await fetch(`${base}/api/cite_files`);
    const body = (await response.json()) as {
      status: string;
      items: Array<{ filename: string; size: number }>;
    };
    expect(body.status).toBe('success');
    const files = await readdir(join(harness.dataDir, 'cite'));
    expect(body.items.map((item) => item.filename).sort()).toEqual(files.sort());
    expect(body.items[0]!.filename).toMatch(/^notes_/);
    expect(body.items.every((item) => item.size > 0)).toBe(true);
  });

  it('refuses files over UPLOAD_MAX_MB, by declared length and while streaming', async () => {
    const big = await upload('big.pdf', new Uint8Array(3 * 1024 * 1024));
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ code: 'UPLOAD_TOO_LARGE', hint: 'UPLOAD_MAX_MB' });
    const justOver = await upload('over.pdf', new Uint8Array(1024 * 1024 + 10_000));
    expect(justOver.status).toBe(413);
    expect(justOver.body.code).toBe('UPLOAD_TOO_LARGE');
  });

  it('answers legacy, mismatched, encrypted and corrupt files with their own codes', async () => {
    expect((await upload('lecture.ppt', buildOleFile({ encrypted: false }))).body).toMatchObject({
      code: 'UPLOAD_LEGACY_FORMAT',
    });
    expect(
      (await upload('photo.pdf', new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2]))).body,
    ).toMatchObject({
      code: 'UPLOAD_CONTENT_MISMATCH',
    });
    const encrypted = await upload('secret.pdf', buildPdf([['secret']], { encrypt: true }));
    expect([encrypted.status, encrypted.body.code]).toEqual([422, 'UPLOAD_ENCRYPTED']);
    const cut = (await fixture('notes.docx')).subarray(0, 2000);
    expect((await upload('cut.docx', cut)).body).toMatchObject({ code: 'UPLOAD_CORRUPT' });
    expect((await upload('notes.key', new Uint8Array([1]))).status).toBe(415);
  });

  it('explains a request without a file', async () => {
    const form = new FormData();
    form.append('course', 'no file here');
    const response = await fetch(`${base}/api/upload_ppt`, { method: 'POST', body: form });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'UPLOAD_MISSING_FILE', field: 'file' });
    const json = await fetch(`${base}/api/upload_ppt`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ code: 'UPLOAD_MISSING_FILE' });
  });

  it('keeps serving other requests while a file is parsed', async () => {
    const pending = upload('notes.pdf', await fixture('notes.pdf'));
    const health = await fetch(`${base}/api/health`);
    expect(health.status).toBe(200);
    expect((await pending).status).toBe(200);
  });
});
