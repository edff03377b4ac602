// Builders of real, minimal Office and PDF files for tests and the benchmark: valid .pptx (with
// tables, notes and a chosen slide order), .docx and PDFs written byte by byte with a correct
// cross-reference table. The real-world files are the fixtures made by LibreOffice.
import JSZip from 'jszip';

const escapeXml = (text: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');

/** One slide to build. */
export interface SlideSpec {
  title: string;
  bullets?: string[];
  table?: string[][];
  notes?: string;
  /** A slide-number placeholder (its text must not reach the material). */
  slideNumber?: boolean;
}

const NS =
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

function paragraphs(lines: string[]): string {
  return lines
    .map((line) => `<a:p><a:r><a:rPr lang="zh-CN"/><a:t>${escapeXml(line)}</a:t></a:r></a:p>`)
    .join('');
}

function shape(id: number, lines: string[], placeholder?: string): string {
  const ph = placeholder ? `<p:nvPr><p:ph type="${placeholder}"/></p:nvPr>` : '<p:nvPr/>';
  return `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="s${id}"/><p:cNvSpPr/>${ph}</p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>${paragraphs(lines)}</p:txBody></p:sp>`;
}

function tableFrame(rows: string[][]): string {
  const body = rows
    .map(
      (row) =>
        `<a:tr h="370840">${row.map((cell) => `<a:tc><a:txBody><a:bodyPr/>${paragraphs([cell])}</a:txBody></a:tc>`).join('')}</a:tr>`,
    )
    .join('');
  return `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="90" name="t"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tblGrid/>${body}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`;
}

/**
 * Builds a .pptx. `order` lists, for each shown position, the index of the slide part (so part
 * names and show order can differ); default: in order.
 */
export async function buildPptx(
  slides: SlideSpec[],
  options: { order?: number[] } = {},
): Promise<Uint8Array> {
  const zip = new JSZip();
  const order = options.order ?? slides.map((_, index) => index);
  const overrides: string[] = [
    '<Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>',
  ];
  const presentationRels: string[] = [];
  slides.forEach((slide, index) => {
    const number = index + 1;
    const shapes = [
      shape(2, [slide.title], 'title'),
      slide.bullets ? shape(3, slide.bullets, 'body') : '',
      slide.table ? tableFrame(slide.table) : '',
      slide.slideNumber ? shape(4, [String(number)], 'sldNum') : '',
    ].join('');
    zip.file(
      `ppt/slides/slide${number}.xml`,
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:sld ${NS}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${shapes}</p:spTree></p:cSld></p:sld>`,
    );
    overrides.push(
      `<Override PartName="/ppt/slides/slide${number}.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/>`,
    );
    presentationRels.push(
      `<Relationship Id="rId${100 + number}" Type="${REL}/slide" Target="slides/slide${number}.xml"/>`,
    );
    if (slide.notes) {
      zip.file(
        `ppt/notesSlides/notesSlide${number}.xml`,
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:notes ${NS}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${shape(2, [], 'sldImg')}${shape(3, [slide.notes], 'body')}${shape(4, [String(number)], 'sldNum')}</p:spTree></p:cSld></p:notes>`,
      );
      overrides.push(
        `<Override PartName="/ppt/notesSlides/notesSlide${number}.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.notesSlide+xml"/>`,
      );
      zip.file(
        `ppt/slides/_rels/slide${number}.xml.rels`,
        `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Type="${REL}/notesSlide" Target="../notesSlides/notesSlide${number}.xml"/></Relationships>`,
      );
    }
  });
  const ids = order
    .map((index, position) => `<p:sldId id="${256 + position}" r:id="rId${100 + index + 1}"/>`)
    .join('');
  zip.file(
    'ppt/presentation.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:presentation ${NS}><p:sldIdLst>${ids}</p:sldIdLst><p:sldSz cx="9144000" cy="6858000"/></p:presentation>`,
  );
  zip.file(
    'ppt/_rels/presentation.xml.rels',
    `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${presentationRels.join('')}</Relationships>`,
  );
  zip.file(
    '[Content_Types].xml',
    `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${overrides.join('')}</Types>`,
  );
  zip.file(
    '_rels/.rels',
    `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="ppt/presentation.xml"/></Relationships>`,
  );
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
}

/** A lecture-like deck of `count` slides (bilingual text, a table every 10 slides, notes). */
export function lectureSlides(count: number): SlideSpec[] {
  return Array.from({ length: count }, (_, index) => ({
    title: `第 ${index + 1} 讲 Topic ${index + 1}: 数据结构与算法 Data structures`,
    bullets: [
      `链表、栈和队列的第 ${index + 1} 个例子：插入、删除与查找的时间复杂度。`,
      `Example ${index + 1}: inserting after node p changes two pointers in constant time.`,
      '循环队列用 (rear + 1) % size == front 判满，空出一个位置。',
    ],
    ...(index % 10 === 0
      ? {
          table: [
            ['操作 Operation', '复杂度 Cost'],
            ['插入 insert', 'O(1)'],
            ['查找 search', 'O(n)'],
          ],
        }
      : {}),
    notes: `讲者备注：第 ${index + 1} 页先画图再写代码。`,
    slideNumber: true,
  }));
}

/**
 * Writes a PDF with one page per text (Helvetica, ASCII text, several lines per page) and a
 * correct xref table. `encrypt` adds a Standard security handler whose user password is not
 * empty, so readers ask for a password.
 */
export function buildPdf(pages: string[][], options: { encrypt?: boolean } = {}): Uint8Array {
  const objects: string[] = [];
  const add = (body: string) => {
    objects.push(body);
    return objects.length;
  };
  const catalog = add('');
  const pagesId = add('');
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const kids: number[] = [];
  for (const lines of pages) {
    const text = lines
      .map(
        (line, index) =>
          `BT /F1 12 Tf 72 ${720 - index * 16} Td (${line.replace(/[\\()]/g, (c) => `\\${c}`)}) Tj ET`,
      )
      .join('\n');
    const content = add(
      `<< /Length ${Buffer.byteLength(text, 'latin1')} >>\nstream\n${text}\nendstream`,
    );
    kids.push(
      add(
        `<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R >>`,
      ),
    );
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesId} 0 R >>`;
  objects[pagesId - 1] =
    `<< /Type /Pages /Kids [${kids.map((id) => `${id} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  let encryptId = 0;
  if (options.encrypt) {
    encryptId = add(
      `<< /Filter /Standard /V 1 /R 2 /O <${'11'.repeat(32)}> /U <${'22'.repeat(32)}> /P -44 >>`,
    );
  }
  let pdf = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(Buffer.byteLength(pdf, 'latin1'));
    pdf += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(pdf, 'latin1');
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`;
  const id = `<${'ab'.repeat(16)}>`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${encryptId ? ` /Encrypt ${encryptId} 0 R` : ''} /ID [${id} ${id}] >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(pdf, 'latin1'));
}

/** Pages of lecture-like English text for the PDF benchmark. */
export function lecturePages(count: number): string[][] {
  return Array.from({ length: count }, (_, index) =>
    Array.from(
      { length: 30 },
      (_, line) =>
        `Page ${index + 1}, line ${line + 1}: a circular queue is full when (rear + 1) mod size equals front.`,
    ),
  );
}

/**
 * A minimal OLE compound file header (the container of .ppt/.doc and of password-protected
 * .pptx/.docx), optionally carrying the `EncryptedPackage` stream name.
 */
export function buildOleFile(options: { encrypted: boolean }): Uint8Array {
  const bytes = new Uint8Array(4096);
  bytes.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  if (options.encrypted) bytes.set(Buffer.from('EncryptedPackage', 'utf16le'), 1024);
  return bytes;
}
