import JSZip from 'jszip';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import { PASSWORD_PROTECTED } from './extract-material.ts';
import {
  DEFAULT_ZIP_LIMITS,
  formatBytes,
  inspectZip,
  type ZipEntryInfo,
  type ZipLimits,
} from './zip-guard.ts';

/** An Office (OOXML) package opened for reading with caps on what it may unpack. */
export interface OfficeZip {
  zip: JSZip;
  entries: Map<string, ZipEntryInfo>;
  /**
   * Text of an entry, or undefined when absent. Never inflates more than the entry declared, and
   * all reads together (the same part read again included) never more than the archive declared
   * in total: a document that makes its reader go over its parts again and again is refused.
   */
  text(name: string): Promise<string | undefined>;
}

/** Opens an OOXML package (.pptx, .docx): central-directory caps first, then jszip. */
export async function openOfficeZip(
  bytes: Uint8Array,
  limits: ZipLimits = DEFAULT_ZIP_LIMITS,
): Promise<OfficeZip> {
  const list = inspectZip(bytes, limits);
  if (list.some((entry) => entry.encrypted)) {
    throw new ServerError('UPLOAD_ENCRYPTED', PASSWORD_PROTECTED);
  }
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes);
  } catch (error) {
    throw new ServerError(
      'UPLOAD_CORRUPT',
      localized(
        `文件不是可读取的 Office 文档：${(error as Error).message}。`,
        `The file is not a readable Office document: ${(error as Error).message}.`,
      ),
      {},
      { cause: error },
    );
  }
  const entries = new Map(list.map((entry) => [entry.name, entry]));
  // Reading each part once inflates at most what the archive declares in total.
  const budget = Math.min(
    limits.maxTotalUncompressed,
    list.reduce((sum, entry) => sum + entry.uncompressedSize, 0),
  );
  let inflated = 0;
  const spend = (bytes: number): ServerError | undefined => {
    inflated += bytes;
    if (inflated <= budget) return undefined;
    return new ServerError(
      'UPLOAD_ARCHIVE_TOO_LARGE',
      localized(
        `读取文档时解压出的内容超过了各部分声明的 ${formatBytes(budget)}，它可能是故意构造来耗尽资源的文件。`,
        `Reading the document unpacked more than the ${formatBytes(budget)} its parts declare; it may be built to exhaust the reader.`,
      ),
    );
  };
  return {
    zip,
    entries,
    text: async (name) => {
      const file = zip.file(name);
      const info = entries.get(name);
      if (!file || !info) return undefined;
      const data = await readCapped(file, name, info.uncompressedSize, spend);
      return new TextDecoder().decode(data);
    },
  };
}

/**
 * Inflates one entry while counting bytes: an entry that unpacks to more than it declared (a
 * forged header, the classic zip-bomb trick), or a read that goes over the archive's budget,
 * is refused as soon as it crosses the line.
 */
function readCapped(
  file: JSZip.JSZipObject,
  name: string,
  declared: number,
  spend: (bytes: number) => ServerError | undefined,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const stream = file.nodeStream('nodebuffer');
    const refuse = (error: ServerError) => {
      (stream as unknown as { destroy?: () => void }).destroy?.();
      stream.removeAllListeners('data');
      reject(error);
    };
    stream.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > declared) {
        refuse(
          new ServerError(
            'UPLOAD_ARCHIVE_TOO_LARGE',
            localized(
              `文档条目 ${name} 解压后超过它声明的 ${formatBytes(declared)}，可能是压缩炸弹。`,
              `The document entry ${name} unpacks to more than the ${formatBytes(declared)} it declares; it may be a zip bomb.`,
            ),
          ),
        );
        return;
      }
      const overBudget = spend(chunk.length);
      if (overBudget) {
        refuse(overBudget);
        return;
      }
      chunks.push(chunk);
    });
    stream.on('error', (error: Error) =>
      reject(
        new ServerError(
          'UPLOAD_CORRUPT',
          localized(
            `文档条目 ${name} 已损坏：${error.message}。`,
            `The document entry ${name} is damaged: ${error.message}.`,
          ),
          {},
          { cause: error },
        ),
      ),
    );
    stream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** SAX handlers for {@link walkXml}. */
export interface XmlWalker {
  open?(name: string, attributes: Record<string, string>): void;
  close?(name: string): void;
  text?(text: string): void;
}

/** Streams the elements and text of an XML part through `walker`; malformed XML is UPLOAD_CORRUPT. */
export function walkXml(xml: string, part: string, walker: XmlWalker): void {
  const parser = new SaxesParser();
  if (walker.open) {
    const open = walker.open;
    parser.on('opentag', (tag: SaxesTagPlain) =>
      open(tag.name, tag.attributes as Record<string, string>),
    );
  }
  if (walker.close) {
    const close = walker.close;
    parser.on('closetag', (tag: SaxesTagPlain) => close(tag.name));
  }
  if (walker.text) {
    const text = walker.text;
    parser.on('text', text);
  }
  try {
    parser.write(xml).close();
  } catch (error) {
    throw new ServerError(
      'UPLOAD_CORRUPT',
      localized(
        `文档部分 ${part} 不是格式正确的 XML：${(error as Error).message}。`,
        `The document part ${part} is not well-formed XML: ${(error as Error).message}.`,
      ),
      {},
      { cause: error },
    );
  }
}

/** Resolves a relationship target against the folder of the part that refers to it. */
function resolvePartPath(fromPart: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const folder = fromPart.includes('/') ? fromPart.slice(0, fromPart.lastIndexOf('/')) : '';
  const segments = folder === '' ? [] : folder.split('/');
  for (const segment of target.split('/')) {
    if (segment === '..') segments.pop();
    else if (segment !== '.' && segment !== '') segments.push(segment);
  }
  return segments.join('/');
}

/** Reads a `.rels` part: relationship id -> { type, target part path }. */
export async function readRelationships(
  office: OfficeZip,
  part: string,
): Promise<Map<string, { type: string; target: string; external: boolean }>> {
  const folder = part.includes('/') ? part.slice(0, part.lastIndexOf('/')) : '';
  const file = part.slice(part.lastIndexOf('/') + 1);
  const relsPath = `${folder === '' ? '' : `${folder}/`}_rels/${file}.rels`;
  const xml = await office.text(relsPath);
  const relationships = new Map<string, { type: string; target: string; external: boolean }>();
  if (xml === undefined) return relationships;
  walkXml(xml, relsPath, {
    open(name, attributes) {
      if (name !== 'Relationship' || !attributes.Id || attributes.Target === undefined) return;
      const external = attributes.TargetMode === 'External';
      relationships.set(attributes.Id, {
        type: attributes.Type ?? '',
        target: external ? attributes.Target : resolvePartPath(part, attributes.Target),
        external,
      });
    },
  });
  return relationships;
}
