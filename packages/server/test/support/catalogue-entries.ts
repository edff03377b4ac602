// Catalogue entries for tests: made-up models whose files are served by loopback hosts.
import { createHash } from 'node:crypto';
import {
  folderSource,
  type ModelCatalogueEntry,
  type ModelSource,
} from '../../src/models/model-catalogue.ts';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A source serving files under `baseUrl` (a loopback test host), labelled like a real one. */
export function testSource(
  id: string,
  baseUrl: string,
  label = { zh: `测试源 ${id}`, en: `test host ${id}` },
): ModelSource {
  return folderSource(id, id === 'official' ? 'official' : 'huggingface', label, baseUrl);
}

/** An entry of one ZIP archive (as the Vosk entries are), pinned to `archive`'s digest. */
export function archiveEntry(
  archive: Buffer,
  options: {
    id: string;
    name: string;
    file: string;
    engine?: ModelCatalogueEntry['engine'];
    language?: ModelCatalogueEntry['language'];
    sha256?: string;
    md5?: string;
    sources?: ModelSource[];
    description?: string;
  },
): ModelCatalogueEntry {
  const language = options.language ?? 'zh';
  return {
    id: options.id,
    name: options.name,
    engine: options.engine ?? 'vosk',
    language,
    languages: [language],
    sizeBytes: archive.length,
    diskBytes: null,
    description: options.description ?? 'a made-up model',
    licence: 'Apache-2.0',
    streaming: true,
    publishedAccuracy: [],
    packaging: 'zip',
    files: [
      {
        name: options.file,
        sizeBytes: archive.length,
        sha256: options.sha256 ?? sha256(archive),
        sha256Source: 'computed by the test',
        ...(options.md5 !== undefined ? { md5: options.md5 } : {}),
      },
    ],
    sources: options.sources ?? [],
  };
}

/** An entry of separate files (as the sherpa-onnx entries are); `null` digests make it unchecked. */
export function filesEntry(
  files: Record<string, Buffer>,
  options: {
    id: string;
    name: string;
    sources: ModelSource[];
    /** Files whose SHA-256 is published as null, or pinned to another value. */
    digests?: Record<string, string | null>;
    recommended?: boolean;
  },
): ModelCatalogueEntry {
  const list = Object.entries(files).map(([name, content]) => {
    const digest =
      options.digests && name in options.digests ? options.digests[name]! : sha256(content);
    return {
      name,
      sizeBytes: content.length,
      sha256: digest,
      ...(digest === null
        ? { nullWhy: 'no published value (a test model)' }
        : { sha256Source: 'computed by the test' }),
    };
  });
  const size = list.reduce((sum, file) => sum + file.sizeBytes, 0);
  return {
    id: options.id,
    name: options.name,
    engine: 'sherpa',
    language: 'zh',
    languages: ['zh', 'en'],
    sizeBytes: size,
    diskBytes: size,
    description: 'a made-up sherpa-onnx model',
    licence: 'Apache-2.0',
    streaming: false,
    ...(options.recommended ? { recommended: true } : {}),
    publishedAccuracy: [],
    packaging: 'files',
    files: list,
    sources: options.sources,
  };
}
