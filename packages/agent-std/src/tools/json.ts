import { z } from 'zod';
import { ToolError } from '../errors.ts';
import type { ResolvedToolPolicy } from '../policy.ts';
import { defineTool, PURE_TOOL } from '../tool.ts';
import {
  type ExactJsonValue,
  isRawJsonNumber,
  NonFiniteNumberError,
  parseExactJson,
} from './exact-json.ts';

function tooDeep(tool: string, field: string, maxDepth: number): ToolError {
  return new ToolError(
    'TOOL_LIMIT_EXCEEDED',
    `${field} is nested too deeply: more than ${maxDepth} levels of arrays and objects (policy.json.maxDepth)`,
    { tool, field },
  );
}

/** The deepest nesting of arrays and objects in JSON text (brackets inside strings ignored). */
function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (inString) {
      if (character === '\\') index++;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === '[' || character === '{') deepest = Math.max(deepest, ++depth);
    else if (character === ']' || character === '}') depth--;
  }
  return deepest;
}

/**
 * Parses JSON text for a tool, losing no number (see exact-json.ts): `'as-written'` keeps every
 * number's text (json_parse, json_stringify), `'where-needed'` only those a double would change
 * (json_get, which returns values).
 */
export function parseOrFail(
  text: string,
  where: { tool: string; field: string },
  policy: ResolvedToolPolicy,
  numbers: 'as-written' | 'where-needed',
): unknown {
  const { tool, field } = where;
  // Deep nesting would overflow the stack of whatever walks the value later (stringify, zod).
  if (jsonDepth(text) > policy.json.maxDepth) throw tooDeep(tool, field, policy.json.maxDepth);
  try {
    return parseExactJson(text, numbers);
  } catch (error) {
    if (error instanceof RangeError) throw tooDeep(tool, field, policy.json.maxDepth);
    if (error instanceof NonFiniteNumberError) {
      throw new ToolError('TOOL_BAD_INPUT', `${field}: ${error.message}`, { tool, field });
    }
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolError('TOOL_BAD_INPUT', `${field} is not valid JSON: ${reason}`, {
      tool,
      field,
    });
  }
}

/**
 * The length of `JSON.stringify(value, null, indent)` for a parsed JSON value, computed without
 * building it; stops once past `limit` (then returns a number above it).
 */
function jsonTextLength(value: unknown, indent: number, limit: number): number {
  let total = 0;
  const visit = (node: unknown, level: number): void => {
    if (total > limit) return;
    if (isRawJsonNumber(node)) {
      total += node.rawJSON.length;
      return;
    }
    if (node === null || typeof node !== 'object') {
      total += (JSON.stringify(node) ?? 'null').length;
      return;
    }
    const entries: Array<[string | undefined, unknown]> = Array.isArray(node)
      ? node.map((item) => [undefined, item])
      : Object.keys(node).map((key) => [key, (node as Record<string, unknown>)[key]]);
    total += 2; // the brackets
    if (entries.length === 0) return;
    total += entries.length - 1; // commas
    // Each entry on its own line, indented one level deeper; the closing bracket on its own.
    if (indent > 0) total += entries.length * (1 + indent * (level + 1)) + 1 + indent * level;
    for (const [key, item] of entries) {
      if (key !== undefined) total += JSON.stringify(key).length + (indent > 0 ? 2 : 1);
      visit(item, level + 1);
      if (total > limit) return;
    }
  };
  visit(value, 0);
  return total;
}

/** Formats a parsed value within the output cap, checked before the text is built. */
function formatJson(value: unknown, indent: number, tool: string, policy: ResolvedToolPolicy) {
  const limit = policy.json.maxOutputLength;
  if (jsonTextLength(value, indent, limit) > limit) {
    throw new ToolError(
      'TOOL_LIMIT_EXCEEDED',
      `the formatted JSON would be longer than ${limit} characters (policy.json.maxOutputLength)`,
      { tool, details: { limit } },
    );
  }
  return JSON.stringify(value, null, indent);
}

// What json_get returns: any JSON value, numbers a double cannot hold exactly as RawJsonNumbers.
// z.json() accepts those at run time (as objects) and describes any JSON value in JSON Schema.
const jsonValue = () => z.json() as unknown as z.ZodType<ExactJsonValue>;

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
  title: 'Parse JSON',
  annotations: PURE_TOOL,
  description: 'Parse JSON text and return it re-indented (2 spaces) for easy reading.',
  schemas: () => ({
    input: z.object({ text: z.string().describe('The JSON text.') }).strict(),
    output: z.string().describe('The same JSON, indented.'),
  }),
  async execute({ text }, { policy }) {
    const tool = 'json_parse';
    return formatJson(
      parseOrFail(text, { tool, field: 'text' }, policy, 'as-written'),
      2,
      tool,
      policy,
    );
  },
});

export const jsonGet = defineTool({
  name: 'json_get',
  namespace: 'std.json',
  title: 'Get a value from JSON',
  annotations: PURE_TOOL,
  description:
    'Get the value at a path in JSON text. Levels are separated by dots and array items are numbers: "items.0.name". On an object a number is a key ("0"), on an array an index. Write \\. for a dot inside a key.',
  schemas: () => ({
    input: z
      .object({
        text: z.string().describe('The JSON text.'),
        path: z
          .string()
          .describe('Dot-separated path, e.g. items.0.name ("" for the whole value).'),
      })
      .strict(),
    output: jsonValue().describe('The value at the path (any JSON value).'),
  }),
  async execute({ text, path }, { policy }) {
    const tool = 'json_get';
    let value = parseOrFail(
      text,
      { tool, field: 'text' },
      policy,
      'where-needed',
    ) as ExactJsonValue;
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
        value = value[index] as ExactJsonValue;
      } else if (value !== null && typeof value === 'object' && !isRawJsonNumber(value)) {
        // Own keys only: "constructor" or "__proto__" never reach Object.prototype.
        if (!Object.hasOwn(value, segment)) {
          throw new ToolError('TOOL_NOT_FOUND', `path "${path}": no key "${segment}" at ${at}`, {
            tool,
            field: 'path',
          });
        }
        value = value[segment] as ExactJsonValue;
      } else {
        throw new ToolError(
          'TOOL_NOT_FOUND',
          `path "${path}": ${at} is ${value === null ? 'null' : isRawJsonNumber(value) ? 'a number' : `a ${typeof value}`}, which has no "${segment}"`,
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
  title: 'Format JSON',
  annotations: PURE_TOOL,
  description:
    'Re-format JSON text with the given indentation (default 2 spaces; 0 gives one compact line).',
  schemas: () => ({
    input: z
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
    output: z.string().describe('The formatted JSON.'),
  }),
  async execute({ data, indent }, { policy }) {
    const tool = 'json_stringify';
    return formatJson(
      parseOrFail(data, { tool, field: 'data' }, policy, 'as-written'),
      indent,
      tool,
      policy,
    );
  },
});
