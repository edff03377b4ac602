import { z } from 'zod';
import { ToolError } from '../errors.ts';
import { defineTool } from '../tool.ts';

function parseOrFail(text: string, tool: string, field: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolError('TOOL_BAD_INPUT', `${field} is not valid JSON: ${reason}`, {
      tool,
      field,
    });
  }
}

/** A JSON value, as `json_get` returns it. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

const jsonValue: z.ZodType<JsonValue> = z.json();

/**
 * Splits a `json_get` path on unescaped dots; `\.` is a literal dot in a key, `\\` a backslash.
 * The empty path is the whole document.
 */
export function splitJsonPath(path: string): string[] {
  if (path === '') return [];
  const segments: string[] = [];
  let current = '';
  for (let index = 0; index < path.length; index++) {
    const character = path[index];
    if (character === '\\' && (path[index + 1] === '.' || path[index + 1] === '\\')) {
      current += path[index + 1];
      index++;
    } else if (character === '.') {
      segments.push(current);
      current = '';
    } else {
      current += character;
    }
  }
  segments.push(current);
  return segments;
}

const ARRAY_INDEX = /^(0|[1-9]\d*)$/;

export const jsonParse = defineTool({
  name: 'json_parse',
  namespace: 'std.json',
  description: 'Parse JSON text and return it re-indented (2 spaces) for easy reading.',
  inputSchema: z.object({ text: z.string().describe('The JSON text.') }).strict(),
  outputSchema: z.string().describe('The same JSON, indented.'),
  async execute({ text }) {
    return JSON.stringify(parseOrFail(text, 'json_parse', 'text'), null, 2);
  },
});

export const jsonGet = defineTool({
  name: 'json_get',
  namespace: 'std.json',
  description:
    'Get the value at a path in JSON text. Levels are separated by dots and array items are numbers: "items.0.name". On an object a number is a key ("0"), on an array an index. Write \\. for a dot inside a key.',
  inputSchema: z
    .object({
      text: z.string().describe('The JSON text.'),
      path: z.string().describe('Dot-separated path, e.g. items.0.name ("" for the whole value).'),
    })
    .strict(),
  outputSchema: jsonValue.describe('The value at the path (any JSON value).'),
  async execute({ text, path }) {
    const tool = 'json_get';
    let value = parseOrFail(text, tool, 'text') as JsonValue;
    const segments = splitJsonPath(path);
    const walked: string[] = [];
    for (const segment of segments) {
      const at = walked.length ? walked.join('.') : 'the top level';
      if (Array.isArray(value)) {
        if (!ARRAY_INDEX.test(segment)) {
          throw new ToolError(
            'TOOL_NOT_FOUND',
            `path "${path}": ${at} is an array, and "${segment}" is not an index (0, 1, …)`,
            { tool, field: 'path' },
          );
        }
        const index = Number(segment);
        if (index >= value.length) {
          throw new ToolError(
            'TOOL_NOT_FOUND',
            `path "${path}": index ${index} is past the end of the array at ${at} (length ${value.length})`,
            { tool, field: 'path' },
          );
        }
        value = value[index] as JsonValue;
      } else if (value !== null && typeof value === 'object') {
        // Own keys only: "constructor" or "__proto__" never reach Object.prototype.
        if (!Object.hasOwn(value, segment)) {
          throw new ToolError('TOOL_NOT_FOUND', `path "${path}": no key "${segment}" at ${at}`, {
            tool,
            field: 'path',
          });
        }
        value = value[segment] as JsonValue;
      } else {
        throw new ToolError(
          'TOOL_NOT_FOUND',
          `path "${path}": ${at} is ${value === null ? 'null' : `a ${typeof value}`}, which has no "${segment}"`,
          { tool, field: 'path' },
        );
      }
      walked.push(segment.replaceAll('.', '\\.'));
    }
    return value;
  },
});

export const jsonStringify = defineTool({
  name: 'json_stringify',
  namespace: 'std.json',
  description:
    'Re-format JSON text with the given indentation (default 2 spaces; 0 gives one compact line).',
  inputSchema: z
    .object({
      data: z.string().describe('The JSON text to format.'),
      indent: z
        .number()
        .int()
        .min(0)
        .max(10)
        .default(2)
        .describe('Spaces per level, 0-10 (default 2; 0 = compact).'),
    })
    .strict(),
  outputSchema: z.string().describe('The formatted JSON.'),
  async execute({ data, indent }) {
    return JSON.stringify(parseOrFail(data, 'json_stringify', 'data'), null, indent);
  },
});

/** The three tools of `std.json`. */
export const jsonTools = [jsonParse, jsonGet, jsonStringify] as const;
