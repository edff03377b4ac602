import { ServerError } from '../errors.ts';
import { displayName } from '../files.ts';
import { type Localized, localized } from '../language.ts';
import { DEFAULT_ZIP_LIMITS, type ZipLimits } from './zip-guard.ts';

/** Material formats the upload accepts. */
export type MaterialKind = 'pptx' | 'pdf' | 'docx';

/** The text of an uploaded material file. */
export interface ExtractedMaterial {
  kind: MaterialKind;
  /** Slides or pages. */
  pages: number;
  /** Plain text with a `--- 第 N 页 ---` marker before each slide or page. */
  text: string;
}

const LEGACY: Record<string, string> = {
  '.ppt': '.pptx',
  '.pps': '.pptx',
  '.pot': '.pptx',
  '.doc': '.docx',
  '.dot': '.docx',
  '.wps': '.docx',
  '.dps': '.pptx',
};

/** The page marker written between slides or pages. */
export function pageMarker(number: number): string {
  return `--- 第 ${number} 页 ---`;
}

/** The lower-case extension of a file name, with its dot ('' when none). */
function extensionOf(filename: string): string {
  const base = filename.slice(Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

/**
 * Checks the name and the bytes of an upload and returns its kind: the extension must be one we
 * read and the content must really be that format (magic bytes), so a renamed file gets a clear
 * error instead of a parser crash.
 */
export function detectMaterialKind(filename: string, bytes: Uint8Array): MaterialKind {
  const extension = extensionOf(filename);
  // The extension is part of a name the uploader chose: shown without control characters.
  const shown = displayName(extension, 20);
  const modern = LEGACY[extension];
  if (modern) {
    throw new ServerError(
      'UPLOAD_LEGACY_FORMAT',
      localized(
        `${shown} 是旧的二进制 Office 格式，无法读取。请用 PowerPoint、Word、WPS 或 LibreOffice 打开它，另存为 ${modern} 后再上传。`,
        `${shown} is the old binary Office format, which is not supported. Open the file in PowerPoint, Word, WPS or LibreOffice and save it as ${modern}, then upload that.`,
      ),
      { field: 'file' },
    );
  }
  if (extension !== '.pptx' && extension !== '.pdf' && extension !== '.docx') {
    throw new ServerError(
      'UPLOAD_UNSUPPORTED_TYPE',
      localized(
        `无法读取${shown ? ` "${shown}" 文件` : '没有扩展名的文件'}：请上传 .pptx、.pdf 或 .docx 文件。`,
        `Cannot read "${shown || 'files without an extension'}": upload a .pptx, .pdf or .docx file.`,
      ),
      { field: 'file' },
    );
  }
  if (bytes.length === 0) {
    throw new ServerError(
      'UPLOAD_CORRUPT',
      localized('上传的文件是空的。', 'The uploaded file is empty.'),
      { field: 'file' },
    );
  }
  const content = sniff(bytes);
  const kind = extension.slice(1) as MaterialKind;
  if (kind === 'pdf' && content === 'pdf') return kind;
  if (kind !== 'pdf' && content === 'zip') return kind;
  if (kind !== 'pdf' && content === 'ole') {
    if (containsUtf16(bytes, 'EncryptedPackage')) {
      throw new ServerError('UPLOAD_ENCRYPTED', PASSWORD_PROTECTED, { field: 'file' });
    }
    throw new ServerError(
      'UPLOAD_LEGACY_FORMAT',
      localized(
        `文件名是 ${extension}，内容却是旧的二进制 Office 文件。请打开它另存为 ${extension} 后再上传。`,
        `The file is named ${extension} but is really an old binary Office file. Open it and save it as ${extension}, then upload that.`,
      ),
      { field: 'file' },
    );
  }
  throw new ServerError(
    'UPLOAD_CONTENT_MISMATCH',
    localized(
      `文件名是 ${extension}，内容却是${describe(content).zh}。请上传原始的 ${extension} 文件。`,
      `The file is named ${extension} but its content is ${describe(content).en}. Upload the original ${extension} file.`,
    ),
    { field: 'file' },
  );
}

/**
 * Reads an uploaded material file to plain text with slide or page markers.
 *
 * @example
 * const { text, pages } = await extractMaterial('week1.pptx', bytes);
 */
export async function extractMaterial(
  filename: string,
  bytes: Uint8Array,
  limits: ZipLimits = DEFAULT_ZIP_LIMITS,
): Promise<ExtractedMaterial> {
  const kind = detectMaterialKind(filename, bytes);
  const blocks: string[] = [];
  let pages = 0;
  let characters = 0;
  // Each reader is loaded when its format comes (PDF.js alone is megabytes of code).
  if (kind === 'pptx') {
    const { extractPptxSlides } = await import('./extract-pptx.ts');
    const slides = await extractPptxSlides(bytes, limits);
    pages = slides.length;
    for (const slide of slides) {
      const lines = [pageMarker(slide.number) + (slide.hidden ? '（隐藏页）' : ''), ...slide.lines];
      if (slide.notes.length > 0) lines.push(`备注：${slide.notes.join('\n')}`);
      characters += slide.lines.join('').length + slide.notes.join('').length;
      blocks.push(lines.join('\n'));
    }
  } else if (kind === 'pdf') {
    const { extractPdfPages } = await import('./extract-pdf.ts');
    const texts = await extractPdfPages(bytes);
    pages = texts.length;
    texts.forEach((text, index) => {
      characters += text.length;
      blocks.push(text ? `${pageMarker(index + 1)}\n${text}` : pageMarker(index + 1));
    });
  } else {
    const { extractDocxPages } = await import('./extract-docx.ts');
    const texts = await extractDocxPages(bytes, limits);
    pages = texts.length;
    texts.forEach((lines, index) => {
      characters += lines.join('').length;
      blocks.push([pageMarker(index + 1), ...lines].join('\n'));
    });
  }
  if (characters === 0) {
    throw new ServerError(
      'UPLOAD_NO_TEXT',
      kind === 'pdf'
        ? localized(
            `这个 PDF 有 ${pages} 页，但没有文字层（扫描件或只有图片）。请先做文字识别（OCR），或上传原始课件。`,
            `The PDF has ${pages} page(s) but no text layer (a scan or images only). Run it through OCR first or upload the original slides.`,
          )
        : localized(
            `这个文档有 ${pages} ${kind === 'pptx' ? '张幻灯片' : '页'}，但没有可用作课程资料的文字。`,
            `The document has ${pages} ${kind === 'pptx' ? 'slide(s)' : 'page(s)'} but no text to use as class material.`,
          ),
    );
  }
  return { kind, pages, text: `${blocks.join('\n\n')}\n` };
}

type Content = 'zip' | 'pdf' | 'ole' | 'png' | 'jpeg' | 'gif' | 'text' | 'unknown';

function sniff(bytes: Uint8Array): Content {
  const starts = (...signature: number[]) =>
    signature.every((byte, index) => bytes[index] === byte);
  if (starts(0x50, 0x4b, 0x03, 0x04) || starts(0x50, 0x4b, 0x05, 0x06)) return 'zip';
  if (starts(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1)) return 'ole';
  // PDF readers accept the header anywhere in the first KiB.
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
  if (head.includes('%PDF-')) return 'pdf';
  if (starts(0x89, 0x50, 0x4e, 0x47)) return 'png';
  if (starts(0xff, 0xd8, 0xff)) return 'jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'gif';
  const sample = bytes.subarray(0, 512);
  if (sample.every((byte) => byte === 0x09 || byte === 0x0a || byte === 0x0d || byte >= 0x20))
    return 'text';
  return 'unknown';
}

function describe(content: Content): Localized {
  switch (content) {
    case 'zip':
      return localized('ZIP 压缩包（Office 文档？）', 'a ZIP archive (an Office document?)');
    case 'pdf':
      return localized(' PDF 文档', 'a PDF document');
    case 'ole':
      return localized('旧的二进制 Office 文件', 'an old binary Office file');
    case 'png':
    case 'jpeg':
    case 'gif':
      return localized(` ${content.toUpperCase()} 图片`, `a ${content.toUpperCase()} image`);
    case 'text':
      return localized('纯文本', 'plain text');
    default:
      return localized('无法识别的内容', 'not a recognisable document');
  }
}

/** A password-protected Office document or PDF. */
export const PASSWORD_PROTECTED = localized(
  '文档设置了密码。请去掉密码（另存一份不加密的副本）后再上传。',
  'The document is password-protected. Remove the password (save an unprotected copy) and upload it again.',
);

function containsUtf16(bytes: Uint8Array, text: string): boolean {
  const needle = Buffer.from(text, 'utf16le');
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(needle);
}
