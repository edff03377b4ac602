import { z } from 'zod';
import { ToolError } from '../errors.ts';
import { defineTool, PURE_TOOL } from '../tool.ts';

/** Python's `str.split(sep, maxsplit)` for a non-empty separator. */
export function splitText(text: string, delimiter: string, maxSplits: number): string[] {
  const parts: string[] = [];
  let from = 0;
  while (maxSplits < 0 || parts.length < maxSplits) {
    const at = text.indexOf(delimiter, from);
    if (at === -1) break;
    parts.push(text.slice(from, at));
    from = at + delimiter.length;
  }
  parts.push(text.slice(from));
  return parts;
}

/**
 * Python's `str.replace(old, new, count)`: at most `count` replacements (all when negative); an
 * empty `old` inserts `new` before every character and at the end (whole characters, never
 * between the two halves of a surrogate pair).
 */
export function replaceText(text: string, old: string, replacement: string, count: number): string {
  if (old === '') {
    const characters = Array.from(text);
    let result = '';
    let done = 0;
    for (const character of characters) {
      if (count < 0 || done < count) {
        result += replacement;
        done++;
      }
      result += character;
    }
    if (count < 0 || done < count) result += replacement;
    return result;
  }
  let result = '';
  let from = 0;
  let done = 0;
  while (count < 0 || done < count) {
    const at = text.indexOf(old, from);
    if (at === -1) break;
    result += text.slice(from, at) + replacement;
    from = at + old.length;
    done++;
  }
  return result + text.slice(from);
}

/**
 * The length of `replaceText(text, old, replacement, count)`, computed without building it (the
 * occurrences are counted; an empty `old` inserts at every code point and at the end).
 */
function replacedTextLength(text: string, old: string, replacement: string, count: number): number {
  let places = 0;
  if (old === '') {
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      const next = text.charCodeAt(index + 1);
      if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) index++;
      places++;
    }
    places++; // the end
  } else {
    for (let from = 0; ; places++) {
      if (count >= 0 && places >= count) break;
      const at = text.indexOf(old, from);
      if (at === -1) break;
      from = at + old.length;
    }
  }
  if (count >= 0) places = Math.min(places, count);
  return text.length + places * (replacement.length - old.length);
}

function outputTooLong(tool: string, field: string, limit: number): ToolError {
  return new ToolError(
    'TOOL_LIMIT_EXCEEDED',
    `the result would be longer than ${limit} characters (policy.text.maxOutputLength)`,
    { tool, field, details: { limit } },
  );
}

/**
 * Upper- or lower-cases within the output cap. The result is checked once built: case mapping
 * grows a text at most 3 times, so it is bounded by the input the caller already holds.
 */
function changeCase(
  text: string,
  change: (text: string) => string,
  tool: string,
  limit: number,
): string {
  const result = change(text);
  if (result.length > limit) throw outputTooLong(tool, 'text', limit);
  return result;
}

export const textSplit = defineTool({
  name: 'text_split',
  namespace: 'std.text',
  title: 'Split text',
  annotations: PURE_TOOL,
  description:
    'Split text on a delimiter (default newline). max_splits limits the number of splits (-1 = unlimited); the rest stays in the last part.',
  schemas: () => ({
    input: z
      .object({
        text: z.string().describe('The text to split.'),
        delimiter: z.string().default('\n').describe('The separator (default "\\n"); not empty.'),
        max_splits: z
          .number()
          .int()
          .min(-1)
          .default(-1)
          .describe('Most splits to make; -1 (default) for all.'),
      })
      .strict(),
    output: z.object({
      parts: z.array(z.string()).describe('The pieces, in order.'),
      count: z.number().int().describe('How many pieces.'),
    }),
  }),
  async execute({ text, delimiter, max_splits }) {
    if (delimiter === '') {
      throw new ToolError('TOOL_BAD_INPUT', 'delimiter must not be empty', {
        tool: 'text_split',
        field: 'delimiter',
      });
    }
    const parts = splitText(text, delimiter, max_splits);
    return { parts, count: parts.length };
  },
});

export const textReplace = defineTool({
  name: 'text_replace',
  namespace: 'std.text',
  title: 'Replace text',
  annotations: PURE_TOOL,
  description:
    'Replace occurrences of a substring (plain text, not a regex). count limits the replacements (-1 = all).',
  schemas: () => ({
    input: z
      .object({
        text: z.string().describe('The text to change.'),
        old: z.string().describe('The substring to find.'),
        new: z.string().describe('What to put in its place.'),
        count: z
          .number()
          .int()
          .min(-1)
          .default(-1)
          .describe('Most replacements; -1 (default) for all.'),
      })
      .strict(),
    output: z.string().describe('The text after replacement.'),
  }),
  async execute(input, { policy }) {
    const tool = 'text_replace';
    const { maxReplacementLength, maxOutputLength } = policy.text;
    if (input.new.length > maxReplacementLength) {
      throw new ToolError(
        'TOOL_LIMIT_EXCEEDED',
        `new is longer than ${maxReplacementLength} characters (policy.text.maxReplacementLength)`,
        { tool, field: 'new' },
      );
    }
    if (replacedTextLength(input.text, input.old, input.new, input.count) > maxOutputLength) {
      throw outputTooLong(tool, 'new', maxOutputLength);
    }
    return replaceText(input.text, input.old, input.new, input.count);
  },
});

export const textUpper = defineTool({
  name: 'text_upper',
  namespace: 'std.text',
  title: 'Upper-case text',
  annotations: PURE_TOOL,
  description: 'Convert text to upper case (Unicode-aware, locale-independent).',
  schemas: () => ({
    input: z.object({ text: z.string().describe('The text.') }).strict(),
    output: z.string().describe('The text in upper case.'),
  }),
  async execute({ text }, { policy }) {
    return changeCase(
      text,
      (value) => value.toUpperCase(),
      'text_upper',
      policy.text.maxOutputLength,
    );
  },
});

export const textLower = defineTool({
  name: 'text_lower',
  namespace: 'std.text',
  title: 'Lower-case text',
  annotations: PURE_TOOL,
  description: 'Convert text to lower case (Unicode-aware, locale-independent).',
  schemas: () => ({
    input: z.object({ text: z.string().describe('The text.') }).strict(),
    output: z.string().describe('The text in lower case.'),
  }),
  async execute({ text }, { policy }) {
    return changeCase(
      text,
      (value) => value.toLowerCase(),
      'text_lower',
      policy.text.maxOutputLength,
    );
  },
});
