// The std tools as Nexa's built-ins behave. Nexa's standard library is Python (re, str,
// datetime, json, glob, subprocess), and a few of its tools reinterpret their arguments (0 means
// "all"). Scripts written in Nexa's language rely on that, so the script runner hands the agents
// of a nexa-dialect script these definitions (`createToolbox({ semantics: 'nexa' })`); the
// TypeScript API and the agent dialect keep the JavaScript meaning of the tools themselves. Each
// definition here has the same name, namespace and annotations as the tool it stands for, with
// the description, schema and behaviour Nexa's meaning needs; tools that mean the same in both
// have no entry. The README's "Where Nexa's built-ins differ from the TypeScript API" lists
// every difference.
import { lstat } from 'node:fs/promises';
import { z } from 'zod';
import { ToolError } from '../errors.ts';
import type { ResolvedToolPolicy } from '../policy.ts';
import type { StdToolName } from '../registry.ts';
import { type AnyToolDefinition, defineTool, type Namespace, type ToolContext } from '../tool.ts';
import { ArithmeticError } from './arithmetic.ts';
import { exactNumberSchema, rawJsonNumber } from './exact-json.ts';
import { fileAppend, fileDelete, fileList, fileRead, fileWrite } from './fs.ts';
import { confinePath } from './fs-guard.ts';
import { base64Decode } from './hash.ts';
import { httpDelete, httpPost, httpPut } from './http.ts';
import { jsonGet, jsonParse, jsonStringify, parseOrFail } from './json.ts';
import { mathCalc } from './math.ts';
import { evaluatePythonArithmetic } from './python-arithmetic.ts';
import { pythonFloatRepr, pythonJsonText } from './python-json.ts';
import { pythonClassesForRe2 } from './python-regex.ts';
import {
  expandReplacement,
  parsePythonReplacement,
  ReplacementTemplateError,
} from './python-replacement.ts';
import { checkReplacementLength, compileRegex, regexMatch, regexReplace } from './regex.ts';
import { shellExec, shellWhich } from './shell.ts';
import { textReplace, textSplit } from './text.ts';
import { timeDiff, timeFormat, timeNow } from './time.ts';
import { isoToEpochMicroseconds, type ParsedIso, parseIso } from './time-format.ts';

/**
 * Which meaning the std tools have: `'js'`, the TypeScript API's (the default), or `'nexa'`, the
 * meaning Nexa's built-ins give them, for scripts in Nexa's language.
 */
export type ToolSemantics = 'js' | 'nexa';

interface NexaVariant {
  description: string;
  // biome-ignore lint/suspicious/noExplicitAny: each variant has its own schemas
  schemas?: () => { input: z.ZodObject; output: z.ZodType<any> };
  // biome-ignore lint/suspicious/noExplicitAny: the input is what the variant's schema gives
  execute(input: any, context: ToolContext): Promise<unknown>;
}

/** A tool as Nexa means it: `base`'s name, title and annotations, the variant's behaviour. */
function nexaVariant(base: AnyToolDefinition, variant: NexaVariant): AnyToolDefinition {
  return defineTool({
    name: base.name,
    namespace: base.namespace as Namespace,
    title: base.title,
    annotations: base.annotations,
    description: variant.description,
    schemas: variant.schemas ?? (() => ({ input: base.inputSchema, output: base.outputSchema })),
    execute: variant.execute,
  }) as unknown as AnyToolDefinition;
}

/** A number as Python writes a float in JSON (`3600.0`), kept so by JSON.stringify. */
const pythonFloat = (value: number) => rawJsonNumber(pythonFloatRepr(value));
const pythonFloatSchema = () =>
  exactNumberSchema().describe('A number; floats are written as Python writes them (3600.0).');

// ── std.regex ───────────────────────────────────────────────────────────────────────────────

const anyFlags = (honoured: string) =>
  z.string().default('').describe(`Letters: ${honoured}; other letters are ignored. Default none.`);

/**
 * Compiles a pattern of Python's `re` for RE2: `\d \w \s` with their Unicode meaning. The
 * pattern length limit applies to the pattern as given, not to its longer rewriting.
 */
function compilePythonRegex(
  pattern: string,
  flags: string,
  text: string,
  policy: ResolvedToolPolicy,
  tool: string,
) {
  if (pattern.length > policy.regex.maxPatternLength) {
    throw new ToolError(
      'TOOL_LIMIT_EXCEEDED',
      `pattern is longer than ${policy.regex.maxPatternLength} characters (policy.regex.maxPatternLength)`,
      { tool, field: 'pattern' },
    );
  }
  const unlimited = {
    ...policy,
    regex: { ...policy.regex, maxPatternLength: Number.POSITIVE_INFINITY },
  };
  return compileRegex(pythonClassesForRe2(pattern), flags, text, unlimited, tool);
}

const nexaRegexMatch = nexaVariant(regexMatch, {
  description:
    "Find every non-overlapping match of a regular expression (RE2 syntax: no lookaround or backreferences) in text, as Python's re.findall (\\d, \\w and \\s match any script's digits, letters and spaces): the whole matches when the pattern has no groups, the group's text when it has one, a list of the groups' texts when it has several.",
  schemas: () => ({
    input: z
      .object({
        pattern: z.string().describe('The regular expression, e.g. "(\\\\w+)@(\\\\w+)".'),
        text: z.string().describe('The text to search.'),
        flags: anyFlags('i ignore case, m ^/$ match at line breaks, s . matches newlines'),
      })
      .strict(),
    output: z.object({
      matches: z
        .array(z.union([z.string(), z.array(z.string())]))
        .describe('Per match: the whole match, its one group, or the list of its groups.'),
      count: z.number().int().describe('How many matches were found.'),
      truncated: z.boolean().optional(),
    }),
  }),
  async execute({ pattern, text, flags }, { policy }) {
    const regex = compilePythonRegex(pattern, flags, text, policy, 'regex_match');
    const groups = regex.groupCount();
    const matcher = regex.matcher(text);
    const limit = policy.regex.maxMatches;
    const matches: Array<string | string[]> = [];
    let count = 0;
    while (matcher.find()) {
      count++;
      if (matches.length >= limit) continue;
      if (groups === 0) matches.push(matcher.group() ?? '');
      else if (groups === 1) matches.push(matcher.group(1) ?? '');
      else {
        matches.push(Array.from({ length: groups }, (_, index) => matcher.group(index + 1) ?? ''));
      }
    }
    return count > limit ? { matches, count, truncated: true } : { matches, count };
  },
});

const nexaRegexReplace = nexaVariant(regexReplace, {
  description:
    'Replace every match of a regular expression (RE2 syntax) in text, as Python\'s re.sub. In the replacement, \\1 or \\g<1> insert a group, \\g<name> a named group, \\g<0> the whole match, \\\\ a backslash; "$" has no special meaning.',
  schemas: () => ({
    input: z
      .object({
        pattern: z.string().describe('The regular expression.'),
        replacement: z
          .string()
          .describe('The replacement; \\1, \\g<1>, \\g<name> and \\n, \\t, \\\\ are expanded.'),
        text: z.string().describe('The text to change.'),
        flags: anyFlags('i ignore case (the only one this tool reads)'),
      })
      .strict(),
    output: z.string().describe('The text after replacement.'),
  }),
  async execute({ pattern, replacement, text, flags }, { policy }) {
    const tool = 'regex_replace';
    checkReplacementLength(replacement, policy, tool);
    // Nexa's regex_replace reads only the i flag.
    const regex = compilePythonRegex(pattern, flags.includes('i') ? 'i' : '', text, policy, tool);
    let parts: ReturnType<typeof parsePythonReplacement>;
    try {
      parts = parsePythonReplacement(replacement, regex.groupCount(), regex.namedGroups());
    } catch (error) {
      if (!(error instanceof ReplacementTemplateError)) throw error;
      throw new ToolError('TOOL_BAD_INPUT', `replacement: ${error.message}`, {
        tool,
        field: 'replacement',
      });
    }
    const limit = policy.regex.maxOutputLength;
    const matcher = regex.matcher(text);
    let result = '';
    let copiedTo = 0;
    while (matcher.find()) {
      result += text.slice(copiedTo, matcher.start());
      result += expandReplacement(parts, (group) => matcher.group(group));
      copiedTo = matcher.end();
      if (result.length > limit) break;
    }
    result += text.slice(copiedTo);
    if (result.length > limit) {
      throw new ToolError(
        'TOOL_LIMIT_EXCEEDED',
        `the result would be longer than ${limit} characters (policy.regex.maxOutputLength); replace fewer matches or use a shorter replacement`,
        { tool, field: 'replacement', details: { limit } },
      );
    }
    return result;
  },
});

// ── std.text ────────────────────────────────────────────────────────────────────────────────

/** Nexa passes a count on only when it is positive; 0 and any negative number mean "all". */
const allUnlessPositive = (count: number) => (count > 0 ? count : -1);

const nexaTextSplit = nexaVariant(textSplit, {
  description:
    'Split text on a delimiter (default newline). max_splits limits the number of splits; 0 or a negative number (default -1) splits at every delimiter. The rest stays in the last part.',
  schemas: () => ({
    input: z
      .object({
        text: z.string().describe('The text to split.'),
        delimiter: z.string().default('\n').describe('The separator (default "\\n"); not empty.'),
        max_splits: z
          .number()
          .int()
          .default(-1)
          .describe('Most splits to make; 0 or negative (default -1) for all.'),
      })
      .strict(),
    output: textSplit.outputSchema,
  }),
  async execute(input, context) {
    return textSplit.execute(
      { ...input, max_splits: allUnlessPositive(input.max_splits) },
      context,
    );
  },
});

const nexaTextReplace = nexaVariant(textReplace, {
  description:
    'Replace occurrences of a substring (plain text, not a regex). count limits the replacements; 0 or a negative number (default -1) replaces all.',
  schemas: () => ({
    input: z
      .object({
        text: z.string().describe('The text to change.'),
        old: z.string().describe('The substring to find.'),
        new: z.string().describe('What to put in its place.'),
        count: z
          .number()
          .int()
          .default(-1)
          .describe('Most replacements; 0 or negative (default -1) for all.'),
      })
      .strict(),
    output: textReplace.outputSchema,
  }),
  async execute(input, context) {
    return textReplace.execute({ ...input, count: allUnlessPositive(input.count) }, context);
  },
});

// ── std.time ────────────────────────────────────────────────────────────────────────────────

/** The format with `%z` and `%Z` left out: Python shows nothing for a time without a zone. */
function withoutZoneDirectives(format: string): string {
  return format.replace(/%./g, (directive) =>
    directive === '%z' || directive === '%Z' ? '' : directive,
  );
}

function parseIsoOrFail(text: string, field: string): ParsedIso {
  const parsed = parseIso(text);
  if (typeof parsed === 'string') {
    throw new ToolError('TOOL_BAD_INPUT', `${field}: ${parsed}`, { tool: 'time_diff', field });
  }
  return parsed;
}

const MICROSECONDS_PER_DAY = 86_400_000_000n;

const nexaTimeNow = nexaVariant(timeNow, {
  description:
    "Return the current local date and time (the configured time zone), formatted with strftime directives (default '%Y-%m-%d %H:%M:%S'). The time carries no zone, so %z and %Z show nothing.",
  async execute(input, context) {
    return timeNow.execute({ format: withoutZoneDirectives(input.format) }, context);
  },
});

const nexaTimeFormat = nexaVariant(timeFormat, {
  description:
    "Reformat an ISO 8601 date-time with strftime directives (default '%Y-%m-%d %H:%M:%S'), as written (no zone conversion). %z and %Z show the string's offset, and nothing when it has none.",
  async execute(input, context) {
    const parsed = parseIso(input.iso_string);
    const naive = typeof parsed !== 'string' && parsed.offsetMinutes === undefined;
    return timeFormat.execute(
      naive ? { ...input, format: withoutZoneDirectives(input.format) } : input,
      context,
    );
  },
});

const nexaTimeDiff = nexaVariant(timeDiff, {
  description:
    "Compute end minus start for two ISO 8601 date-times, as Python's datetime subtraction: two times without an offset are subtracted as wall-clock times, two with offsets as instants (one of each is an error). value is in seconds, minutes or hours (floating point), or whole days (rounded down); any other unit gives seconds.",
  schemas: () => ({
    input: z
      .object({
        start: z.string().describe('Start, ISO 8601.'),
        end: z.string().describe('End, ISO 8601.'),
        unit: z
          .string()
          .default('seconds')
          .describe('Unit of value: seconds (default), minutes, hours or days.'),
      })
      .strict(),
    output: z.object({
      value: pythonFloatSchema().describe('end - start in the unit.'),
      unit: z.string().describe('The unit as given.'),
      days: z.number().int().describe('Whole days in the difference, rounded down.'),
      seconds: pythonFloatSchema().describe('The difference in seconds.'),
    }),
  }),
  async execute({ start, end, unit }: { start: string; end: string; unit: string }) {
    const from = parseIsoOrFail(start, 'start');
    const to = parseIsoOrFail(end, 'end');
    if ((from.offsetMinutes === undefined) !== (to.offsetMinutes === undefined)) {
      throw new ToolError(
        'TOOL_BAD_INPUT',
        `can't subtract offset-naive and offset-aware datetimes: ${from.offsetMinutes === undefined ? 'start' : 'end'} has no UTC offset and ${from.offsetMinutes === undefined ? 'end' : 'start'} has one`,
        { tool: 'time_diff', field: 'end' },
      );
    }
    // Times without an offset are wall-clock times: read both as UTC, no daylight saving.
    const difference = isoToEpochMicroseconds(to, 'UTC') - isoToEpochMicroseconds(from, 'UTC');
    let days = difference / MICROSECONDS_PER_DAY;
    if (difference % MICROSECONDS_PER_DAY !== 0n && difference < 0n) days -= 1n;
    const seconds = Number(difference) / 1_000_000;
    const perUnit: Record<string, number> = { minutes: 60, hours: 3600 };
    return {
      value:
        unit === 'days'
          ? Number(days)
          : pythonFloat(seconds / (Object.hasOwn(perUnit, unit) ? (perUnit[unit] as number) : 1)),
      unit,
      days: Number(days),
      seconds: pythonFloat(seconds),
    };
  },
});

// ── std.json ────────────────────────────────────────────────────────────────────────────────

function pythonJsonWithinLimit(
  value: unknown,
  indent: number | null,
  tool: string,
  policy: ResolvedToolPolicy,
) {
  const text = pythonJsonText(value, indent);
  const limit = policy.json.maxOutputLength;
  if (text.length > limit) {
    throw new ToolError(
      'TOOL_LIMIT_EXCEEDED',
      `the formatted JSON would be longer than ${limit} characters (policy.json.maxOutputLength)`,
      { tool, details: { limit } },
    );
  }
  return text;
}

const nexaJsonParse = nexaVariant(jsonParse, {
  description:
    "Parse JSON text and return it re-indented (2 spaces), as Python's json module writes it (floats in Python's form: 1.50 is 1.5, 1E2 is 100.0).",
  async execute({ text }, { policy }) {
    const tool = 'json_parse';
    const value = parseOrFail(text, { tool, field: 'text' }, policy, 'as-written');
    return pythonJsonWithinLimit(value, 2, tool, policy);
  },
});

const nexaJsonStringify = nexaVariant(jsonStringify, {
  description:
    "Re-format JSON text as Python's json.dumps does with the given indent (default 2): every item on its own line, indented by that many spaces per level (0 or negative: on its own line, not indented).",
  schemas: () => ({
    input: z
      .object({
        data: z.string().describe('The JSON text to format.'),
        indent: z
          .number()
          .int()
          .max(10)
          .default(2)
          .describe('Spaces per level, at most 10 (default 2; 0 = one item per line, no indent).'),
      })
      .strict(),
    output: jsonStringify.outputSchema,
  }),
  async execute({ data, indent }, { policy }) {
    const tool = 'json_stringify';
    const value = parseOrFail(data, { tool, field: 'data' }, policy, 'as-written');
    return pythonJsonWithinLimit(value, indent, tool, policy);
  },
});

const nexaJsonGet = nexaVariant(jsonGet, {
  description:
    'Get the value at a path in JSON text, as JSON text. Levels are separated by dots; a level of digits is a list index (or a character of a text), any other a key: "items.0.name".',
  schemas: () => ({
    input: z
      .object({
        text: z.string().describe('The JSON text.'),
        path: z.string().describe('Dot-separated path, e.g. items.0.name.'),
      })
      .strict(),
    output: z.string().describe('The value at the path, as JSON text.'),
  }),
  async execute({ text, path }, { policy }) {
    const tool = 'json_get';
    let value = parseOrFail(text, { tool, field: 'text' }, policy, 'as-written');
    const notFound = (reason: string) =>
      new ToolError('TOOL_NOT_FOUND', `path "${path}": ${reason}`, { tool, field: 'path' });
    for (const segment of path.split('.')) {
      if (/^[0-9]+$/.test(segment)) {
        // A number is an index, also on an object (whose keys are texts, so it is not there).
        const index = Number(segment);
        if (Array.isArray(value)) {
          if (index >= value.length)
            throw notFound(`index ${index} is past the end of a list of ${value.length}`);
          value = value[index];
        } else if (typeof value === 'string') {
          const characters = Array.from(value);
          if (index >= characters.length)
            throw notFound(
              `index ${index} is past the end of a text of ${characters.length} characters`,
            );
          value = characters[index];
        } else {
          throw notFound(`"${segment}" is a list index, but the value there is not a list`);
        }
      } else if (
        value !== null &&
        typeof value === 'object' &&
        !Array.isArray(value) &&
        Object.getPrototypeOf(value) === Object.prototype
      ) {
        if (!Object.hasOwn(value, segment)) throw notFound(`no key "${segment}"`);
        value = (value as Record<string, unknown>)[segment];
      } else {
        throw notFound(`"${segment}" is a key, but the value there is not an object`);
      }
    }
    return pythonJsonWithinLimit(value, null, tool, policy);
  },
});

// ── std.math ────────────────────────────────────────────────────────────────────────────────

const nexaMathCalc = nexaVariant(mathCalc, {
  description:
    'Evaluate an arithmetic expression as Python does: digits, + - * / // ** . ( ) and spaces. Integers are exact at any size; anything with a decimal point or a division (/) is a floating-point number (6/3 is 2.0, 0.1 + 0.2 is 0.30000000000000004); // divides rounding down, ** raises to a power.',
  schemas: () => ({
    input: z
      .object({
        expression: z.string().describe('Digits, + - * / // ** . ( ) and spaces only.'),
      })
      .strict(),
    output: z.object({
      result: pythonFloatSchema().describe(
        'The value: an integer, or a float written as Python writes it.',
      ),
      expression: z.string().describe('The expression as given.'),
    }),
  }),
  async execute({ expression }: { expression: string }) {
    let value: ReturnType<typeof evaluatePythonArithmetic>;
    try {
      value = evaluatePythonArithmetic(expression);
    } catch (error) {
      if (!(error instanceof ArithmeticError)) throw error;
      throw new ToolError(
        'TOOL_BAD_INPUT',
        `expression: ${error.message} (at column ${error.column})`,
        { tool: 'math_calc', field: 'expression', details: { column: error.column } },
      );
    }
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new ToolError(
        'TOOL_BAD_INPUT',
        'expression: the result is beyond the range of a floating-point number',
        { tool: 'math_calc', field: 'expression' },
      );
    }
    const result =
      typeof value === 'bigint'
        ? Number.isSafeInteger(Number(value))
          ? Number(value)
          : rawJsonNumber(value.toString())
        : pythonFloat(value);
    return { result, expression };
  },
});

// ── std.hash ────────────────────────────────────────────────────────────────────────────────

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * The bytes of Base64 text as Python's `base64.b64decode` reads it without `validate`: characters
 * outside the standard alphabet (whitespace, `-` and `_` too) are skipped, the padding must be
 * complete, and whatever follows it is ignored.
 */
function pythonBase64Bytes(text: string): Uint8Array {
  const bytes: number[] = [];
  let quadPosition = 0;
  let pads = 0;
  let bits = 0;
  let dataCharacters = 0;
  for (const character of text) {
    if (character === '=') {
      pads++;
      if (quadPosition >= 2 && quadPosition + pads >= 4) return Uint8Array.from(bytes);
      continue;
    }
    const value = BASE64_ALPHABET.indexOf(character);
    if (value < 0) continue;
    pads = 0;
    dataCharacters++;
    bits = (bits << 6) | value;
    if (quadPosition > 0) bytes.push((bits >> (6 - 2 * quadPosition)) & 0xff);
    quadPosition = (quadPosition + 1) % 4;
    bits &= 0x3f;
  }
  if (quadPosition === 1) {
    throw new Error(
      `Invalid base64-encoded string: number of data characters (${dataCharacters}) cannot be 1 more than a multiple of 4`,
    );
  }
  if (quadPosition !== 0) throw new Error('Incorrect padding');
  return Uint8Array.from(bytes);
}

const nexaBase64Decode = nexaVariant(base64Decode, {
  description:
    "Decode standard Base64 back to UTF-8 text, as Python's base64.b64decode: the padding (=) is required; other characters, such as spaces, - and _, are skipped.",
  async execute({ text }: { text: string }) {
    const tool = 'base64_decode';
    let bytes: Uint8Array;
    try {
      bytes = pythonBase64Bytes(text);
    } catch (error) {
      throw new ToolError('TOOL_BAD_INPUT', `text is not Base64: ${(error as Error).message}`, {
        tool,
        field: 'text',
      });
    }
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

// ── std.fs ──────────────────────────────────────────────────────────────────────────────────

/** Nexa's messages of the writing fs tools start with "Successfully". */
function successfully(base: AnyToolDefinition, verb: string): AnyToolDefinition {
  return nexaVariant(base, {
    description: base.description,
    async execute(input, context) {
      const message = String(await base.execute(input, context));
      return message.replace(new RegExp(`^${verb} `), `Successfully ${verb.toLowerCase()} `);
    },
  });
}

const nexaFileRead = nexaVariant(fileRead, {
  description: `${fileRead.description} Line ends are read as Python's text files read them: \\r\\n and \\r become \\n.`,
  async execute(input, context) {
    const text = String(await fileRead.execute(input, context));
    return text.replace(/\r\n?/g, '\n');
  },
});

const deleteSuccessfully = successfully(fileDelete, 'Deleted');

const nexaFileDelete = nexaVariant(fileDelete, {
  description: 'Delete a file (not a folder). A symbolic link is removed itself, never its target.',
  async execute(input, context) {
    // Read-only files: the standard tool's refusal comes first.
    if (context.policy.fs.readOnly) return deleteSuccessfully.execute(input, context);
    const tool = 'file_delete';
    const where = { tool, field: 'path' };
    const target = await confinePath(context.policy.fs.root, input.path, where, {
      followFinalLink: false,
    });
    if (target.exists && (await lstat(target.path)).isDirectory()) {
      throw new ToolError(
        'TOOL_FAILED',
        `"${input.path}" is a folder; only files are deleted`,
        where,
      );
    }
    return deleteSuccessfully.execute(input, context);
  },
});

/**
 * A Python glob pattern in the syntax of our globs: Python's `**` is `*` without recursion,
 * braces and backslashes are plain characters.
 */
function pythonGlob(pattern: string): string {
  return pattern.replace(/\*+/g, '*').replace(/[\\{}]/g, (character) => `\\${character}`);
}

const nexaFileList = nexaVariant(fileList, {
  description:
    'List the entries of a folder whose names match a glob pattern, as Python\'s glob.glob (default "*": everything except hidden entries): * ? [abc] [!abc], within one folder level (** is *). Paths start with the directory as given; folders have no trailing "/". A directory that does not exist has no entries.',
  async execute(input, context) {
    // Python's glob finds nothing in a folder that is not there (the path is still confined).
    const target = await confinePath(context.policy.fs.root, input.directory, {
      tool: 'file_list',
      field: 'directory',
    });
    if (!target.exists || !(await lstat(target.path)).isDirectory()) return { files: [], count: 0 };
    const result = (await fileList.execute(
      { ...input, pattern: pythonGlob(input.pattern) },
      context,
    )) as { files: string[] };
    return { ...result, files: result.files.map((file) => file.replace(/\/$/, '')) };
  },
});

// ── std.http ────────────────────────────────────────────────────────────────────────────────

/** Nexa hands a model at most the first 2000 characters of a response body. */
const NEXA_BODY_CHARACTERS = 2000;

function cutBody(base: AnyToolDefinition, description: string): AnyToolDefinition {
  return nexaVariant(base, {
    description,
    async execute(input, context) {
      const result = (await base.execute(input, context)) as { status: number; body: string };
      const characters = Array.from(result.body);
      return characters.length > NEXA_BODY_CHARACTERS
        ? { ...result, body: characters.slice(0, NEXA_BODY_CHARACTERS).join('') }
        : result;
    },
  });
}

const bodyCut = `the status code and the first ${NEXA_BODY_CHARACTERS} characters of the response body (any status)`;

const nexaHttpPut = (() => {
  const cut = cutBody(
    httpPut,
    `Send data with PUT and return ${bodyCut}. Content-Type is application/json unless headers set another. Only public http/https addresses.`,
  );
  return nexaVariant(httpPut, {
    description: cut.description,
    async execute(input, context) {
      const headers = input.headers as Record<string, string>;
      const named = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
      return cut.execute(
        named ? input : { ...input, headers: { ...headers, 'Content-Type': 'application/json' } },
        context,
      );
    },
  });
})();

// ── std.shell ───────────────────────────────────────────────────────────────────────────────

const nexaShellExec = nexaVariant(shellExec, {
  description: `${shellExec.description} Line ends in the output are \\n (\\r\\n and \\r become \\n). A command that runs past its timeout is killed and reported as returncode -1 with "Command timed out after N seconds" in stderr.`,
  async execute(input, context) {
    try {
      // Python reads a command's output as text, with universal newlines.
      const result = (await shellExec.execute(input, context)) as {
        stdout: string;
        stderr: string;
      };
      return {
        ...result,
        stdout: result.stdout.replace(/\r\n?/g, '\n'),
        stderr: result.stderr.replace(/\r\n?/g, '\n'),
      };
    } catch (error) {
      if (!(error instanceof ToolError && error.code === 'TOOL_TIMEOUT')) throw error;
      return {
        stdout: '',
        stderr: `Command timed out after ${input.timeout} seconds`,
        returncode: -1,
        success: false,
      };
    }
  },
});

const nexaShellWhich = nexaVariant(shellWhich, {
  description: shellWhich.description,
  schemas: () => ({
    input: shellWhich.inputSchema,
    output: z.object({
      command: z.string().describe('The name as given.'),
      path: z.string().nullable().describe('Full path of the executable, or null when not found.'),
      found: z.boolean().describe('Whether it was found.'),
    }),
  }),
  async execute(input, context) {
    const result = (await shellWhich.execute(input, context)) as { found: boolean };
    return result.found ? result : { ...result, path: null };
  },
});

/** The std tools whose meaning in Nexa differs from the TypeScript API's, by name. */
export const NEXA_TOOLS: Readonly<Partial<Record<StdToolName, AnyToolDefinition>>> = Object.freeze({
  regex_match: nexaRegexMatch,
  regex_replace: nexaRegexReplace,
  text_split: nexaTextSplit,
  text_replace: nexaTextReplace,
  time_now: nexaTimeNow,
  time_format: nexaTimeFormat,
  time_diff: nexaTimeDiff,
  json_parse: nexaJsonParse,
  json_stringify: nexaJsonStringify,
  json_get: nexaJsonGet,
  math_calc: nexaMathCalc,
  base64_decode: nexaBase64Decode,
  file_write: successfully(fileWrite, 'Wrote'),
  file_append: successfully(fileAppend, 'Appended'),
  file_read: nexaFileRead,
  file_delete: nexaFileDelete,
  file_list: nexaFileList,
  http_post: cutBody(
    httpPost,
    `Send data with POST and return ${bodyCut}. Only public http/https addresses.`,
  ),
  http_put: nexaHttpPut,
  http_delete: cutBody(
    httpDelete,
    `Send a DELETE request and return ${bodyCut}. Only public http/https addresses.`,
  ),
  shell_exec: nexaShellExec,
  shell_which: nexaShellWhich,
});

/**
 * The text a model reads for a result of a tool in Nexa's meaning: text as it is, anything else
 * as Python's `json.dumps` writes it (`{"count": 2}`, with a space after `:` and `,`), as Nexa's
 * tools return it.
 */
export function formatNexaToolResult(tool: AnyToolDefinition, result: unknown): string {
  const type = tool.outputSchema.type;
  return typeof result === 'string' && (type === 'string' || type === 'unknown')
    ? result
    : pythonJsonText(result, null);
}
