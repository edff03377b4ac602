import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ToolError } from '../errors.ts';
import { defineTool, PURE_TOOL } from '../tool.ts';
import { requireWellFormed } from './encoding.ts';

/** The UTF-8 bytes of `text`; a lone surrogate is bad input, not silently replaced. */
function utf8Bytes(text: string, tool: string): Buffer {
  requireWellFormed(text, { tool, field: 'text' });
  return Buffer.from(text, 'utf8');
}

const textField = () => z.string().describe('The text (hashed as UTF-8).');

export const hashMd5 = defineTool({
  name: 'hash_md5',
  namespace: 'std.hash',
  title: 'MD5 hash',
  annotations: PURE_TOOL,
  description:
    'MD5 digest of text (UTF-8) as 32 lowercase hex characters. For checksums only, not security.',
  schemas: () => ({
    input: z.object({ text: textField() }).strict(),
    output: z.string().length(32).describe('32 hex characters.'),
  }),
  async execute({ text }) {
    return createHash('md5').update(utf8Bytes(text, 'hash_md5')).digest('hex');
  },
});

export const hashSha256 = defineTool({
  name: 'hash_sha256',
  namespace: 'std.hash',
  title: 'SHA-256 hash',
  annotations: PURE_TOOL,
  description: 'SHA-256 digest of text (UTF-8) as 64 lowercase hex characters.',
  schemas: () => ({
    input: z.object({ text: textField() }).strict(),
    output: z.string().length(64).describe('64 hex characters.'),
  }),
  async execute({ text }) {
    return createHash('sha256').update(utf8Bytes(text, 'hash_sha256')).digest('hex');
  },
});

export const base64Encode = defineTool({
  name: 'base64_encode',
  namespace: 'std.hash',
  title: 'Base64-encode text',
  annotations: PURE_TOOL,
  description: 'Encode text (as UTF-8 bytes) to standard Base64 with padding.',
  schemas: () => ({
    input: z.object({ text: z.string().describe('The text to encode.') }).strict(),
    output: z.string().describe('The Base64 string.'),
  }),
  async execute({ text }) {
    return utf8Bytes(text, 'base64_encode').toString('base64');
  },
});

export const base64Decode = defineTool({
  name: 'base64_decode',
  namespace: 'std.hash',
  title: 'Base64-decode text',
  annotations: PURE_TOOL,
  description:
    'Decode Base64 (standard or URL-safe alphabet, padding optional, whitespace ignored) back to UTF-8 text.',
  schemas: () => ({
    input: z.object({ text: z.string().describe('The Base64 string.') }).strict(),
    output: z.string().describe('The decoded text.'),
  }),
  async execute({ text }) {
    const tool = 'base64_decode';
    const compact = text.replace(/\s+/g, '');
    const bad = /[^A-Za-z0-9+/\-_=]/.exec(compact);
    if (bad) {
      throw new ToolError(
        'TOOL_BAD_INPUT',
        `text is not Base64: "${bad[0]}" is not a Base64 character`,
        { tool, field: 'text' },
      );
    }
    const body = compact.replace(/=+$/, '');
    if (body.includes('=') || body.length % 4 === 1 || compact.length - body.length > 2) {
      throw new ToolError('TOOL_BAD_INPUT', 'text is not Base64: wrong length or padding', {
        tool,
        field: 'text',
      });
    }
    const bytes = Buffer.from(body.replaceAll('-', '+').replaceAll('_', '/'), 'base64');
    try {
      return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      throw new ToolError(
        'TOOL_FAILED',
        'the decoded bytes are not UTF-8 text (the Base64 holds binary data)',
        { tool, field: 'text' },
      );
    }
  },
});
