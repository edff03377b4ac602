import { TextDecoder } from 'node:util';
import { ToolError } from '../errors.ts';

/** Encodings the fs tools write. Reading accepts these and every WHATWG label (gbk, big5, …). */
const WRITABLE_ENCODINGS = ['utf-8', 'utf-16le', 'latin-1', 'ascii'] as const;

type WritableEncoding = (typeof WRITABLE_ENCODINGS)[number];

function canonicalEncoding(label: string): WritableEncoding | undefined {
  const name = label.trim().toLowerCase().replaceAll('_', '-');
  if (name === 'utf-8' || name === 'utf8') return 'utf-8';
  if (name === 'utf-16le' || name === 'utf-16' || name === 'utf16' || name === 'utf16le') {
    return 'utf-16le';
  }
  if (['latin-1', 'latin1', 'iso-8859-1', 'iso8859-1', 'l1'].includes(name)) return 'latin-1';
  if (name === 'ascii' || name === 'us-ascii') return 'ascii';
  return undefined;
}

/**
 * Returns a strict decoder for `label`: invalid bytes fail instead of being replaced. `latin-1` is
 * true ISO-8859-1 (as in Python), not the WHATWG alias for windows-1252.
 */
export function decoderFor(label: string, tool: string): (bytes: Uint8Array) => string {
  const name = canonicalEncoding(label);
  if (name === 'latin-1') return (bytes) => Buffer.from(bytes).toString('latin1');
  if (name === 'ascii') {
    return (bytes) => {
      const index = bytes.findIndex((byte) => byte > 0x7f);
      if (index !== -1) {
        throw new ToolError(
          'TOOL_FAILED',
          `the file is not ascii: byte 0x${bytes[index]?.toString(16)} at offset ${index}`,
          { tool, field: 'encoding' },
        );
      }
      return Buffer.from(bytes).toString('latin1');
    };
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(name ?? label.trim(), { fatal: true });
  } catch {
    throw new ToolError(
      'TOOL_BAD_INPUT',
      `encoding "${label}" is not known (examples: utf-8, utf-16le, latin-1, ascii, gbk, big5, shift_jis)`,
      { tool, field: 'encoding' },
    );
  }
  return (bytes) => {
    try {
      return decoder.decode(bytes);
    } catch {
      throw new ToolError(
        'TOOL_FAILED',
        `the file is not valid ${decoder.encoding}; pass the encoding it is written in`,
        { tool, field: 'encoding' },
      );
    }
  };
}

/** Returns an encoder for `label`; characters the encoding cannot hold fail, naming the first. */
export function encoderFor(label: string, tool: string): (text: string) => Uint8Array {
  const name = canonicalEncoding(label);
  if (name === undefined) {
    throw new ToolError(
      'TOOL_BAD_INPUT',
      `encoding "${label}" cannot be written; writable encodings: ${WRITABLE_ENCODINGS.join(', ')}`,
      { tool, field: 'encoding' },
    );
  }
  if (name === 'utf-8' || name === 'utf-16le') {
    return (text) => {
      requireWellFormed(text, { tool, field: 'content' });
      return Buffer.from(text, name === 'utf-8' ? 'utf8' : 'utf16le');
    };
  }
  const limit = name === 'ascii' ? 0x7f : 0xff;
  return (text) => {
    for (let index = 0; index < text.length; index++) {
      if (text.charCodeAt(index) > limit) {
        const character = String.fromCodePoint(text.codePointAt(index) ?? 0);
        throw new ToolError(
          'TOOL_BAD_INPUT',
          `content has "${character}" at index ${index}, which ${name} cannot encode`,
          { tool, field: 'content' },
        );
      }
    }
    return Buffer.from(text, 'latin1');
  };
}

// Half of a UTF-16 surrogate pair without its other half (matched on code units: no `u` flag).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Fails with `TOOL_BAD_INPUT` when `text` holds a lone surrogate: half of a UTF-16 pair, which is
 * no character and has no UTF-8 form. (Node would silently put U+FFFD in its place.)
 */
export function requireWellFormed(text: string, where: { tool: string; field: string }): void {
  const match = LONE_SURROGATE.exec(text);
  if (match === null) return;
  const unit = match[0].charCodeAt(0).toString(16).toUpperCase();
  throw new ToolError(
    'TOOL_BAD_INPUT',
    `${where.field} has a lone surrogate U+${unit} at index ${match.index}: half of a UTF-16 pair, not a character, so it has no UTF-8 form`,
    where,
  );
}

/** Number of characters as Python counts them (code points, not UTF-16 units). */
export function countCharacters(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    count++;
  }
  return count;
}
