import { z } from 'zod';
import { ToolError } from '../errors.ts';
import { defineTool, PURE_TOOL } from '../tool.ts';
import { sleep } from './shared.ts';
import {
  checkFormat,
  isoToEpoch,
  isoToEpochMicroseconds,
  offsetMinutesAt,
  type ParsedIso,
  parseIso,
  strftime,
  wallTimeIn,
} from './time-format.ts';

const formatField = () =>
  z
    .string()
    .default('%Y-%m-%d %H:%M:%S')
    .describe(
      'strftime format: %Y year, %m month, %d day, %H hour, %M minute, %S second (also %y %I %p %f %j %a %A %b %B %z %Z %%).',
    );

function parseIsoOrFail(text: string, tool: string, field: string): ParsedIso {
  const parsed = parseIso(text);
  if (typeof parsed === 'string') {
    throw new ToolError('TOOL_BAD_INPUT', `${field}: ${parsed}`, { tool, field });
  }
  return parsed;
}

function checkFormatOrFail(format: string, tool: string): string {
  const problem = checkFormat(format);
  if (problem)
    throw new ToolError('TOOL_BAD_INPUT', `format: ${problem}`, { tool, field: 'format' });
  return format;
}

function offsetName(offsetMinutes: number): string {
  if (offsetMinutes === 0) return 'UTC';
  const sign = offsetMinutes < 0 ? '-' : '+';
  const absolute = Math.abs(offsetMinutes);
  return `UTC${sign}${String(Math.trunc(absolute / 60)).padStart(2, '0')}:${String(absolute % 60).padStart(2, '0')}`;
}

export const timeNow = defineTool({
  name: 'time_now',
  namespace: 'std.time',
  title: 'Current time',
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  description:
    "Return the current date and time in the configured time zone, formatted with strftime directives (default '%Y-%m-%d %H:%M:%S'). Use %z to include the UTC offset.",
  schemas: () => ({
    input: z.object({ format: formatField() }).strict(),
    output: z.string().describe('The formatted current time.'),
  }),
  async execute({ format }, { policy }) {
    checkFormatOrFail(format, 'time_now');
    const now = policy.time.now();
    const zone = policy.time.timezone;
    return strftime(wallTimeIn(now, zone), offsetMinutesAt(now, zone), zone, format);
  },
});

const UNIT_SECONDS = { seconds: 1, minutes: 60, hours: 3600, days: 86_400 } as const;

export const timeDiff = defineTool({
  name: 'time_diff',
  namespace: 'std.time',
  title: 'Time between two dates',
  annotations: PURE_TOOL,
  description:
    'Compute end minus start for two ISO 8601 date-times (e.g. 2024-05-01T09:00:00, optionally with Z or +08:00; without an offset they are read in the configured time zone), in seconds, minutes, hours or days.',
  schemas: () => ({
    input: z
      .object({
        start: z.string().describe('Start, ISO 8601.'),
        end: z.string().describe('End, ISO 8601.'),
        unit: z
          .enum(['seconds', 'minutes', 'hours', 'days'])
          .default('seconds')
          .describe('Unit of value: seconds (default), minutes, hours or days.'),
      })
      .strict(),
    output: z.object({
      value: z.number().describe('end - start in the requested unit (negative if end is earlier).'),
      unit: z.string().describe('The unit of value.'),
      days: z.number().int().describe('Whole days in the difference, truncated toward zero.'),
      seconds: z.number().describe('The difference in seconds.'),
    }),
  }),
  async execute({ start, end, unit }, { policy }) {
    const tool = 'time_diff';
    const zone = policy.time.timezone;
    // In whole microseconds, like Python's timedelta: no digit of the inputs is lost.
    const difference =
      isoToEpochMicroseconds(parseIsoOrFail(end, tool, 'end'), zone) -
      isoToEpochMicroseconds(parseIsoOrFail(start, tool, 'start'), zone);
    const microseconds = Number(difference);
    return {
      value: microseconds / (UNIT_SECONDS[unit] * 1_000_000),
      unit,
      days: Number(difference / 86_400_000_000n) + 0,
      seconds: microseconds / 1_000_000,
    };
  },
});

export const timeFormat = defineTool({
  name: 'time_format',
  namespace: 'std.time',
  title: 'Format a date',
  annotations: PURE_TOOL,
  description:
    "Reformat an ISO 8601 date-time with strftime directives (default '%Y-%m-%d %H:%M:%S'). The date and time are shown as written (no zone conversion); %z shows the string's offset, or the configured zone's when it has none.",
  schemas: () => ({
    input: z
      .object({
        iso_string: z
          .string()
          .describe('The date-time, ISO 8601 (e.g. 2024-05-01T09:30:00+08:00).'),
        format: formatField(),
      })
      .strict(),
    output: z.string().describe('The formatted date-time.'),
  }),
  async execute({ iso_string, format }, { policy }) {
    const tool = 'time_format';
    checkFormatOrFail(format, tool);
    const parsed = parseIsoOrFail(iso_string, tool, 'iso_string');
    if (parsed.offsetMinutes !== undefined) {
      return strftime(parsed.wall, parsed.offsetMinutes, offsetName(parsed.offsetMinutes), format);
    }
    const zone = policy.time.timezone;
    const offset = offsetMinutesAt(isoToEpoch(parsed, zone), zone);
    return strftime(parsed.wall, offset, zone, format);
  },
});

export const timeSleep = defineTool({
  name: 'time_sleep',
  namespace: 'std.time',
  title: 'Wait',
  annotations: PURE_TOOL,
  description: 'Wait for a number of seconds (bounded by policy, 60 by default), then return.',
  schemas: () => ({
    input: z
      .object({ seconds: z.number().int().min(0).describe('Whole seconds to wait.') })
      .strict(),
    output: z.object({ sleep: z.number().int().describe('The seconds waited.') }),
  }),
  async execute({ seconds }, { policy, signal }) {
    const limit = policy.time.maxSleepSeconds;
    if (seconds > limit) {
      throw new ToolError(
        'TOOL_POLICY_DENIED',
        `${seconds} s is longer than the policy limit of ${limit} s (policy.time.maxSleepSeconds)`,
        { tool: 'time_sleep', field: 'seconds' },
      );
    }
    await sleep(seconds * 1000, signal, 'time_sleep');
    return { sleep: seconds };
  },
});

export const timeTimestamp = defineTool({
  name: 'time_timestamp',
  namespace: 'std.time',
  title: 'Current Unix timestamp',
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  description: 'Return the current Unix timestamp (whole seconds since 1970-01-01T00:00:00Z).',
  schemas: () => ({
    input: z.object({}).strict(),
    output: z.object({ timestamp: z.number().int().describe('Unix time in seconds.') }),
  }),
  async execute(_input, { policy }) {
    return { timestamp: Math.floor(policy.time.now() / 1000) };
  },
});
