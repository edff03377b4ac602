import { readFile } from 'node:fs/promises';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import {
  buildOleFile,
  buildPdf,
  buildPptx,
  lectureSlides,
} from '../../test/support/office-builders.ts';
import { isServerError } from '../errors.ts';
import { extractMaterial } from './extract-material.ts';
import { openOfficeZip } from './office-zip.ts';
import { DEFAULT_ZIP_LIMITS, formatBytes, inspectZip } from './zip-guard.ts';

const fixture = async (name: string) =>
  new Uint8Array(await readFile(new URL(`../../test/fixtures/${name}`, import.meta.url)));

async function failure(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; status: number }> {
  try {
    await promise;
  } catch (error) {
    if (isServerError(error))
      return { code: error.code, message: error.message, status: error.statusCode };
    throw error;
  }
  throw new Error('expected a failure');
}

/** Rewrites the declared uncompressed size of `name` in the local header and the directory. */
function forgeUncompressedSize(bytes: Uint8Array, name: string, size: number): Uint8Array {
  const copy = bytes.slice();
  const view = new DataView(copy.buffer);
  const encoded = Buffer.from(name);
  for (let offset = 0; offset + 46 < copy.length; offset++) {
    const signature = view.getUint32(offset, true);
    if (
      signature === 0x04034b50 &&
      Buffer.from(copy.subarray(offset + 30, offset + 30 + encoded.length)).equals(encoded)
    ) {
      view.setUint32(offset + 22, size, true);
    }
    if (
      signature === 0x02014b50 &&
      Buffer.from(copy.subarray(offset + 46, offset + 46 + encoded.length)).equals(encoded)
    ) {
      view.setUint32(offset + 24, size, true);
    }
  }
  return copy;
}

describe('extractMaterial with the real LibreOffice fixtures', () => {
  it('reads a .pptx in slide order with speaker notes and page markers', async () => {
    const material = await extractMaterial('slides.pptx', await fixture('slides.pptx'));
    expect(material).toEqual({
      kind: 'pptx',
      pages: 2,
      text: [
        '--- 第 1 页 ---',
        'Slide 1: 数据结构 — 链表 Linked lists',
        '备注：讲者备注：先画图再写代码。',
        '',
        '--- 第 2 页 ---',
        'Slide 2: 栈与队列 Stacks and queues',
        '作业：实现一个循环队列，周五截止。',
        '',
      ].join('\n'),
    });
  });

  it('reads a .docx with its table and page break', async () => {
    const material = await extractMaterial('notes.docx', await fixture('notes.docx'));
    expect(material.pages).toBe(2);
    expect(material.text).toBe(
      [
        '--- 第 1 页 ---',
        "Lecture 7 — Probability: Bayes' theorem",
        '贝叶斯定理把先验概率和似然结合起来，得到后验概率。',
        '事件 | 概率',
        'P(A) | 0.3',
        'P(B|A) | 0.8',
        '',
        '--- 第 2 页 ---',
        'Page two: conditional independence and the naive Bayes classifier.',
        '期中考试范围：第一章到第七章。',
        '',
      ].join('\n'),
    );
  });

  it('reads a .pdf page by page with its embedded CJK fonts', async () => {
    const material = await extractMaterial('notes.pdf', await fixture('notes.pdf'));
    expect(material.pages).toBe(2);
    const [first, second] = material.text.split('\n\n');
    expect(first).toMatch(/^--- 第 1 页 ---\nLecture 7 — Probability: Bayes'\s+theorem\n/);
    expect(first).toContain('贝叶斯定理把先验概率和似然结合起来，得到后验概率。');
    expect(second).toBe(
      '--- 第 2 页 ---\nPage two: conditional independence and the naive Bayes classifier.\n期中考试范围：第一章到第七章。\n',
    );
  });
});

describe('extractMaterial on built presentations', () => {
  it('takes the slide order from presentation.xml, not from part names', async () => {
    const bytes = await buildPptx(
      [{ title: 'part one' }, { title: 'part two' }, { title: 'part three' }],
      {
        order: [2, 0, 1],
      },
    );
    const material = await extractMaterial('order.pptx', bytes);
    expect(material.text).toBe(
      '--- 第 1 页 ---\npart three\n\n--- 第 2 页 ---\npart one\n\n--- 第 3 页 ---\npart two\n',
    );
  });

  it('reads tables row by row and notes, and drops slide-number placeholders', async () => {
    const bytes = await buildPptx([
      {
        title: '复杂度 Complexity',
        bullets: ['插入 O(1)', 'search O(n)'],
        table: [
          ['操作', '代价'],
          ['insert', 'O(1)'],
        ],
        notes: '先讲表格',
        slideNumber: true,
      },
    ]);
    const material = await extractMaterial('table.pptx', bytes);
    expect(material.text).toBe(
      '--- 第 1 页 ---\n复杂度 Complexity\n插入 O(1)\nsearch O(n)\n操作 | 代价\ninsert | O(1)\n备注：先讲表格\n',
    );
  });

  it('reads a 100-slide deck', async () => {
    const material = await extractMaterial('big.pptx', await buildPptx(lectureSlides(100)));
    expect(material.pages).toBe(100);
    expect(material.text.match(/^--- 第 \d+ 页 ---$/gm)).toHaveLength(100);
    expect(material.text).toContain('--- 第 100 页 ---\n第 100 讲 Topic 100');
  });

  it('reports a deck without any text', async () => {
    const bytes = await buildPptx([{ title: '' }]);
    expect(await failure(extractMaterial('empty.pptx', bytes))).toMatchObject({
      code: 'UPLOAD_NO_TEXT',
    });
  });
});

describe('extractMaterial refuses what it cannot read, clearly', () => {
  it('sends legacy .ppt and .doc back with a "save as" message', async () => {
    expect(
      await failure(extractMaterial('week1.ppt', buildOleFile({ encrypted: false }))),
    ).toMatchObject({
      code: 'UPLOAD_LEGACY_FORMAT',
      status: 415,
      message: expect.stringContaining('save it as .pptx'),
    });
    expect(await failure(extractMaterial('notes.DOC', new Uint8Array([1])))).toMatchObject({
      code: 'UPLOAD_LEGACY_FORMAT',
      message: expect.stringContaining('.docx'),
    });
  });

  it('refuses other extensions, naming what is accepted', async () => {
    expect(await failure(extractMaterial('notes.txt', new Uint8Array([65])))).toMatchObject({
      code: 'UPLOAD_UNSUPPORTED_TYPE',
      message: expect.stringContaining('.pptx, .pdf or .docx'),
    });
  });

  it('refuses content that does not match the extension', async () => {
    const pdf = await fixture('notes.pdf');
    expect(await failure(extractMaterial('slides.pptx', pdf))).toMatchObject({
      code: 'UPLOAD_CONTENT_MISMATCH',
      message: expect.stringContaining('a PDF document'),
    });
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
    expect(await failure(extractMaterial('notes.pdf', png))).toMatchObject({
      code: 'UPLOAD_CONTENT_MISMATCH',
      message: expect.stringContaining('PNG image'),
    });
    const docx = await fixture('notes.docx');
    expect(await failure(extractMaterial('renamed.pptx', docx))).toMatchObject({
      code: 'UPLOAD_CONTENT_MISMATCH',
      message: expect.stringContaining('not a PowerPoint presentation'),
    });
  });

  it('recognises a renamed legacy file and a password-protected Office file', async () => {
    expect(
      await failure(extractMaterial('old.pptx', buildOleFile({ encrypted: false }))),
    ).toMatchObject({
      code: 'UPLOAD_LEGACY_FORMAT',
    });
    expect(
      await failure(extractMaterial('secret.docx', buildOleFile({ encrypted: true }))),
    ).toMatchObject({
      code: 'UPLOAD_ENCRYPTED',
      message: expect.stringContaining('password-protected'),
    });
  });

  it('recognises a password-protected PDF', async () => {
    const pdf = buildPdf([['top secret']], { encrypt: true });
    expect(await failure(extractMaterial('secret.pdf', pdf))).toMatchObject({
      code: 'UPLOAD_ENCRYPTED',
    });
  });

  it('reports corrupt and truncated files', async () => {
    const pptx = await fixture('slides.pptx');
    expect(
      await failure(extractMaterial('cut.pptx', pptx.subarray(0, pptx.length / 2))),
    ).toMatchObject({
      code: 'UPLOAD_CORRUPT',
      message: expect.stringContaining('truncated'),
    });
    const garbage = new Uint8Array(Buffer.from('%PDF-1.7\nthis is not a pdf at all\n'));
    expect(await failure(extractMaterial('bad.pdf', garbage))).toMatchObject({
      code: 'UPLOAD_CORRUPT',
    });
    expect(await failure(extractMaterial('empty.pdf', new Uint8Array()))).toMatchObject({
      code: 'UPLOAD_CORRUPT',
    });
  });

  it('reports a PDF without a text layer', async () => {
    expect(await failure(extractMaterial('scan.pdf', buildPdf([[], []])))).toMatchObject({
      code: 'UPLOAD_NO_TEXT',
      message: expect.stringContaining('no text layer'),
    });
  });
});

describe('zip bombs', () => {
  it('refuses an archive declaring a huge unpacked size before unpacking anything', async () => {
    const pptx = await fixture('slides.pptx');
    const forged = forgeUncompressedSize(pptx, 'ppt/slides/slide1.xml', 0xfffffff0);
    expect(await failure(extractMaterial('bomb.pptx', forged))).toMatchObject({
      code: 'UPLOAD_ARCHIVE_TOO_LARGE',
      message: expect.stringContaining('zip bomb'),
    });
  });

  it('stops inflating an entry that unpacks to more than it declared', async () => {
    const zip = new JSZip();
    const padding = ' '.repeat(20 * 1024 * 1024);
    zip.file(
      'ppt/presentation.xml',
      `<?xml version="1.0"?><p:presentation xmlns:p="p">${padding}</p:presentation>`,
    );
    zip.file('[Content_Types].xml', '<Types/>');
    const bytes = await zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
    expect(bytes.length).toBeLessThan(100_000);
    const forged = forgeUncompressedSize(bytes, 'ppt/presentation.xml', 1000);
    expect(await failure(extractMaterial('liar.pptx', forged))).toMatchObject({
      code: 'UPLOAD_ARCHIVE_TOO_LARGE',
      message: expect.stringContaining('more than the 1000 B it declares'),
    });
  });

  it('refuses a slide list that names one slide over and over, before reading slides', async () => {
    // A small deck whose presentation.xml shows its one slide 300 times: each read would parse
    // the slide again (with a 20 MB slide, 5000 times: minutes of CPU from a 49 KB upload).
    const zip = await JSZip.loadAsync(await buildPptx([{ title: 'x'.repeat(50_000) }]));
    const repeated = Array.from(
      { length: 300 },
      (_, index) => `<p:sldId id="${256 + index}" r:id="rId101"/>`,
    ).join('');
    const presentation = (await zip.file('ppt/presentation.xml')!.async('string')).replace(
      /<p:sldIdLst>.*<\/p:sldIdLst>/,
      `<p:sldIdLst>${repeated}</p:sldIdLst>`,
    );
    zip.file('ppt/presentation.xml', presentation);
    const bytes = await zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
    expect(await failure(extractMaterial('amplified.pptx', bytes))).toMatchObject({
      code: 'UPLOAD_CORRUPT',
      message:
        'The presentation lists its slide ppt/slides/slide1.xml 300 times (a real presentation lists each slide once); it may be built to exhaust the reader.',
    });
  });

  it('refuses an archive that would unpack to more than 100 times its size', async () => {
    const zip = new JSZip();
    zip.file(
      'ppt/presentation.xml',
      `<p:presentation xmlns:p="p">${' '.repeat(12 << 20)}</p:presentation>`,
    );
    zip.file('[Content_Types].xml', '<Types/>');
    const bytes = await zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
    expect(bytes.length).toBeLessThan(100_000);
    expect(await failure(extractMaterial('dense.pptx', bytes))).toMatchObject({
      code: 'UPLOAD_ARCHIVE_TOO_LARGE',
      message: expect.stringMatching(
        /^The document would unpack to 12\.0 MiB, \d+ times its size of \d+\.\d KiB \(at most 100 times is accepted\); it may be a zip bomb\.$/,
      ),
    });
    // A real deck is far below that.
    expect(await extractMaterial('slides.pptx', await fixture('slides.pptx'))).toMatchObject({
      kind: 'pptx',
    });
  });

  it('caps one XML part at 32 MiB, whatever the archive may hold', async () => {
    const pptx = await fixture('slides.pptx');
    const forged = forgeUncompressedSize(pptx, 'ppt/slides/slide1.xml', 40 << 20);
    expect(() =>
      inspectZip(forged, { ...DEFAULT_ZIP_LIMITS, maxRatio: Number.POSITIVE_INFINITY }),
    ).toThrow(
      'The document part ppt/slides/slide1.xml would unpack to 40.0 MiB (XML parts may have at most 32.0 MiB); it may be a zip bomb.',
    );
  });

  it('counts every byte it inflates against the archive’s total, reads of one part included', async () => {
    const office = await openOfficeZip(await buildPptx(lectureSlides(3)));
    const declared = [...office.entries.values()].reduce(
      (sum, entry) => sum + entry.uncompressedSize,
      0,
    );
    const part = office.entries.get('ppt/slides/slide1.xml')!;
    const rounds = Math.floor(declared / part.uncompressedSize);
    for (let round = 0; round < rounds; round++) await office.text('ppt/slides/slide1.xml');
    expect(await failure(office.text('ppt/slides/slide1.xml'))).toMatchObject({
      code: 'UPLOAD_ARCHIVE_TOO_LARGE',
      message: `Reading the document unpacked more than the ${formatBytes(declared)} its parts declare; it may be built to exhaust the reader.`,
    });
  });

  it('caps the number of entries and the total size', async () => {
    const zip = new JSZip();
    for (let index = 0; index < 30; index++) zip.file(`junk/${index}.xml`, 'x'.repeat(1000));
    const bytes = await zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
    expect(() =>
      inspectZip(bytes, { ...DEFAULT_ZIP_LIMITS, maxEntries: 20, maxTotalUncompressed: 1e9 }),
    ).toThrow(/31 archive entries/);
    expect(() =>
      inspectZip(bytes, { ...DEFAULT_ZIP_LIMITS, maxEntries: 100, maxTotalUncompressed: 20_000 }),
    ).toThrow(/more than 19\.5 KiB/);
    // jszip adds the folder entry junk/ as well.
    expect(inspectZip(bytes)).toHaveLength(31);
  });
});
