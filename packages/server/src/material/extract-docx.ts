import mammoth from 'mammoth';
import { isServerError, ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import { openOfficeZip } from './office-zip.ts';
import type { ZipLimits } from './zip-guard.ts';

/** The part of mammoth's document model this reader walks (see mammoth's lib/documents.js). */
interface DocxElement {
  type: string;
  value?: string;
  breakType?: string;
  numbering?: { isOrdered?: boolean } | null;
  children?: DocxElement[];
}

/**
 * Extracts the text of a .docx with mammoth: paragraphs, list items, tables (one row per line,
 * cells joined with " | ") and explicit page breaks, returned as pages. mammoth reads the document
 * model; we walk it through `transformDocument` instead of parsing generated HTML, and images are
 * never read. External file references are refused (`externalFileAccess: false`).
 */
export async function extractDocxPages(bytes: Uint8Array, limits?: ZipLimits): Promise<string[][]> {
  // The central-directory caps (entry sizes, 32 MiB per XML part, the compression ratio) and the
  // real inflated size of every XML part are checked before mammoth, which has no limits of its
  // own and reads the parts it needs once each with its own jszip, sees the file.
  const office = await openOfficeZip(bytes, limits);
  if (!office.entries.has('word/document.xml')) {
    throw new ServerError(
      'UPLOAD_CONTENT_MISMATCH',
      localized(
        '文件是 ZIP 压缩包，但不是 Word 文档（缺少 word/document.xml）。',
        'The file is a ZIP archive but not a Word document (word/document.xml is missing).',
      ),
    );
  }
  for (const name of office.entries.keys()) {
    if (name.endsWith('.xml') || name.endsWith('.rels')) await office.text(name);
  }
  let document: DocxElement | undefined;
  try {
    await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      {
        externalFileAccess: false,
        convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
        transformDocument: (element: DocxElement) => {
          document = element;
          // Nothing left to render: the walk below is all we need.
          return { ...element, children: [] };
        },
      },
    );
  } catch (error) {
    if (isServerError(error)) throw error;
    throw new ServerError(
      'UPLOAD_CORRUPT',
      localized(
        `无法读取这个 Word 文档：${(error as Error).message}。`,
        `The Word document could not be read: ${(error as Error).message}.`,
      ),
      {},
      { cause: error },
    );
  }
  if (!document) {
    throw new ServerError(
      'UPLOAD_CORRUPT',
      localized('这个 Word 文档没有可读取的正文。', 'The Word document has no readable body.'),
    );
  }
  const pages: string[][] = [[]];
  const page = () => pages[pages.length - 1]!;
  let line = '';
  const flush = (target: string[] = page()) => {
    const text = line.replace(/[ \t\u00a0]+/g, ' ').trim();
    line = '';
    if (text !== '') target.push(text);
  };
  const inline = (element: DocxElement, onPageBreak: () => void): void => {
    switch (element.type) {
      case 'text':
        line += element.value ?? '';
        return;
      case 'tab':
        line += ' ';
        return;
      case 'break':
        if (element.breakType === 'page') onPageBreak();
        else line += '\n';
        return;
      case 'image':
      case 'noteReference':
      case 'commentReference':
        return;
      default:
        for (const child of element.children ?? []) inline(child, onPageBreak);
    }
  };
  const newPage = () => {
    flush();
    pages.push([]);
  };
  const block = (element: DocxElement): void => {
    if (element.type === 'paragraph') {
      if (element.numbering) line += element.numbering.isOrdered ? '· ' : '• ';
      for (const child of element.children ?? []) inline(child, newPage);
      flush();
      return;
    }
    if (element.type === 'table') {
      for (const row of element.children ?? []) {
        if (row.type !== 'tableRow') continue;
        const cells: string[] = [];
        for (const cell of row.children ?? []) {
          const parts: string[] = [];
          for (const child of cell.children ?? []) {
            if (child.type === 'paragraph') {
              for (const grandchild of child.children ?? []) inline(grandchild, () => undefined);
              flush(parts);
            } else {
              block(child);
            }
          }
          cells.push(parts.join(' '));
        }
        if (cells.some((text) => text !== '')) page().push(cells.join(' | '));
      }
      return;
    }
    for (const child of element.children ?? []) block(child);
  };
  block(document);
  flush();
  // A trailing page break leaves an empty last page.
  while (pages.length > 1 && pages[pages.length - 1]!.length === 0) pages.pop();
  return pages;
}
