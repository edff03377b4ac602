import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import { type OfficeZip, openOfficeZip, readRelationships, walkXml } from './office-zip.ts';
import type { ZipLimits } from './zip-guard.ts';

/** The text of one slide. */
export interface SlideText {
  /** 1-based position in the presentation's slide order. */
  number: number;
  /** Paragraphs of the slide's shapes and table rows (cells joined with " | "), in document order. */
  lines: string[];
  /** Paragraphs of the speaker notes. */
  notes: string[];
  hidden: boolean;
}

const SLIDE_REL = '/relationships/slide';
const NOTES_REL = '/relationships/notesSlide';
/** Placeholders whose text repeats on every slide or page (numbers, dates, footers, thumbnails). */
const BOILERPLATE = new Set(['sldNum', 'dt', 'ftr', 'hdr', 'sldImg']);

/**
 * Extracts the text of a .pptx in slide order. The order comes from ppt/presentation.xml's slide
 * list and its relationships, never from part names (slide3.xml may well be shown first).
 */
export async function extractPptxSlides(
  bytes: Uint8Array,
  limits?: ZipLimits,
): Promise<SlideText[]> {
  const office = await openOfficeZip(bytes, limits);
  const presentation = await office.text('ppt/presentation.xml');
  if (presentation === undefined) {
    throw new ServerError(
      'UPLOAD_CONTENT_MISMATCH',
      localized(
        '文件是 ZIP 压缩包，但不是 PowerPoint 演示文稿（缺少 ppt/presentation.xml）。',
        'The file is a ZIP archive but not a PowerPoint presentation (ppt/presentation.xml is missing).',
      ),
    );
  }
  const relationships = await readRelationships(office, 'ppt/presentation.xml');
  const slideIds: string[] = [];
  walkXml(presentation, 'ppt/presentation.xml', {
    open(name, attributes) {
      if (name === 'p:sldId' && attributes['r:id']) slideIds.push(attributes['r:id']);
    },
  });
  const parts: string[] = [];
  for (const id of slideIds) {
    const relationship = relationships.get(id);
    if (relationship?.type.endsWith(SLIDE_REL)) parts.push(relationship.target);
  }
  checkSlideList(parts);
  const slides: SlideText[] = [];
  // Each part is parsed once: a notes page shared by several slides (never written by an
  // Office program) belongs to the first of them.
  const notesRead = new Set<string>();
  for (const part of parts) {
    const xml = await office.text(part);
    if (xml === undefined) continue;
    const slide = readShapes(xml, part);
    const notes = await readNotes(office, part, notesRead);
    slides.push({ number: slides.length + 1, lines: slide.lines, notes, hidden: slide.hidden });
  }
  return slides;
}

/** Most slides a presentation may list (the largest real decks have a few hundred). */
const MAX_SLIDES = 5000;

/**
 * A slide list is read slide by slide: one that lists a slide twice, or thousands of slides,
 * would make the reader parse the same megabytes over and over. Refused before reading any.
 */
function checkSlideList(parts: readonly string[]): void {
  if (parts.length > MAX_SLIDES) {
    throw new ServerError(
      'UPLOAD_ARCHIVE_TOO_LARGE',
      localized(
        `演示文稿列出了 ${parts.length} 张幻灯片（最多读取 ${MAX_SLIDES} 张），它可能是故意构造来耗尽资源的文件。`,
        `The presentation lists ${parts.length} slides (at most ${MAX_SLIDES} are read); it may be built to exhaust the reader.`,
      ),
    );
  }
  const counts = new Map<string, number>();
  for (const part of parts) counts.set(part, (counts.get(part) ?? 0) + 1);
  for (const [part, count] of counts) {
    if (count > 1) {
      throw new ServerError(
        'UPLOAD_CORRUPT',
        localized(
          `演示文稿把幻灯片 ${part} 列了 ${count} 次（正常的文稿每张只列一次），它可能是故意构造来耗尽资源的文件。`,
          `The presentation lists its slide ${part} ${count} times (a real presentation lists each slide once); it may be built to exhaust the reader.`,
        ),
      );
    }
  }
}

async function readNotes(
  office: OfficeZip,
  slidePart: string,
  notesRead: Set<string>,
): Promise<string[]> {
  const relationships = await readRelationships(office, slidePart);
  for (const relationship of relationships.values()) {
    if (!relationship.type.endsWith(NOTES_REL) || relationship.external) continue;
    if (notesRead.has(relationship.target)) return [];
    notesRead.add(relationship.target);
    const xml = await office.text(relationship.target);
    return xml === undefined ? [] : readShapes(xml, relationship.target).lines;
  }
  return [];
}

/**
 * Walks a slide or notes part: paragraphs (`a:p`) of shapes in document order, tables as rows,
 * skipping boilerplate placeholders and `mc:Fallback` copies of `mc:Choice` content.
 */
function readShapes(xml: string, part: string): { lines: string[]; hidden: boolean } {
  const lines: string[] = [];
  let hidden = false;
  let paragraph = '';
  let inText = false;
  let fallbackDepth = 0;
  let skipShape = false;
  let shapeDepth = 0;
  let row: string[] | undefined;
  let cell: string[] | undefined;

  const endParagraph = () => {
    const text = paragraph.replace(/[ \t\u00a0]+/g, ' ').trim();
    paragraph = '';
    if (text === '' || skipShape) return;
    if (cell) cell.push(text);
    else lines.push(text);
  };

  walkXml(xml, part, {
    open(name, attributes) {
      if (fallbackDepth > 0) {
        if (name === 'mc:Fallback') fallbackDepth++;
        return;
      }
      switch (name) {
        case 'p:sld':
          hidden = attributes.show === '0';
          break;
        case 'mc:Fallback':
          fallbackDepth = 1;
          break;
        case 'p:sp':
        case 'p:graphicFrame':
          if (shapeDepth === 0) skipShape = false;
          shapeDepth++;
          break;
        case 'p:ph':
          if (attributes.type && BOILERPLATE.has(attributes.type)) skipShape = true;
          break;
        case 'a:tr':
          row = [];
          break;
        case 'a:tc':
          cell = [];
          break;
        case 'a:t':
          inText = true;
          break;
        case 'a:br':
          paragraph += '\n';
          break;
        case 'a:tab':
          paragraph += ' ';
          break;
      }
    },
    close(name) {
      if (fallbackDepth > 0) {
        if (name === 'mc:Fallback') fallbackDepth--;
        return;
      }
      switch (name) {
        case 'a:t':
          inText = false;
          break;
        case 'a:p':
          endParagraph();
          break;
        case 'a:tc':
          if (row && cell) row.push(cell.join(' '));
          cell = undefined;
          break;
        case 'a:tr':
          if (row?.some((text) => text !== '') && !skipShape) lines.push(row.join(' | '));
          row = undefined;
          break;
        case 'p:sp':
        case 'p:graphicFrame':
          shapeDepth--;
          if (shapeDepth === 0) skipShape = false;
          break;
      }
    },
    text(text) {
      if (inText && fallbackDepth === 0) paragraph += text;
    },
  });
  return { lines, hidden };
}
