import type { RE2JS } from 're2js';
import { z } from 'zod';
import { ToolError } from '../errors.ts';
import type { ResolvedToolPolicy } from '../policy.ts';
import { defineTool, PURE_TOOL } from '../tool.ts';
import { re2 } from './re2.ts';

const flagsField = () =>
  z
    .string()
    .regex(
      /^[ims]*$/,
      'may only contain the letters i (ignore case), m (multiline), s (dot matches newline)',
    )
    .default('')
    .describe(
      'Letters: i ignore case, m ^/$ match at line breaks, s . matches newlines. Default none.',
    );

/**
 * Compiles a pattern with RE2 semantics (re2js, a pure-JS port of RE2): matching time is linear in
 * the text, so a pattern such as `(a+)+$` cannot hang the process. The price: no lookaround and no
 * backreferences, which RE2 cannot do in linear time.
 */
export function compileRegex(
  pattern: string,
  flags: string,
  text: string,
  policy: ResolvedToolPolicy,
  tool: string,
): RE2JS {
  if (pattern.length > policy.regex.maxPatternLength) {
    throw new ToolError(
      'TOOL_LIMIT_EXCEEDED',
      `pattern is longer than ${policy.regex.maxPatternLength} characters (policy.regex.maxPatternLength)`,
      { tool, field: 'pattern' },
    );
  }
  if (text.length > policy.regex.maxTextLength) {
    throw new ToolError(
      'TOOL_LIMIT_EXCEEDED',
      `text is longer than ${policy.regex.maxTextLength} characters (policy.regex.maxTextLength)`,
      { tool, field: 'text' },
    );
  }
  let bits = 0;
  if (flags.includes('i')) bits |= re2().CASE_INSENSITIVE;
  if (flags.includes('m')) bits |= re2().MULTILINE;
  if (flags.includes('s')) bits |= re2().DOTALL;
  try {
    return re2().compile(pattern, bits);
  } catch (error) {
    const unsupported = /\(\?<?[=!]|\\[1-9]/.test(pattern)
      ? ' (lookahead, lookbehind and backreferences are not supported: matching runs in linear time with RE2 syntax)'
      : '';
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolError(
      'TOOL_BAD_INPUT',
      `pattern is not a valid regular expression: ${reason}${unsupported}`,
      {
        tool,
        field: 'pattern',
      },
    );
  }
}

/** What a replacement expands to per match, counted rather than built. */
interface ReplacementPlan {
  /** Characters copied as they are. */
  literal: number;
  /** Occurrences of `$&`, `` $` `` and `$'`. */
  whole: number;
  before: number;
  after: number;
  /** Group index → occurrences (`$1`, `$<name>`). */
  groups: Map<number, number>;
}

/**
 * Reads a replacement by the rules re2js applies in its default mode (ECMAScript GetSubstitution):
 * `$$`, `$&`, `` $` ``, `$'`, `$n`/`$nn` (two digits only when they name a group), `$<name>`
 * (only when the pattern has named groups); anything else is literal.
 */
function planReplacement(replacement: string, regex: RE2JS): ReplacementPlan {
  const groupCount = regex.groupCount();
  const named = regex.namedGroups();
  const hasNamed = Object.keys(named).length > 0;
  const plan: ReplacementPlan = { literal: 0, whole: 0, before: 0, after: 0, groups: new Map() };
  const addGroup = (index: number) => plan.groups.set(index, (plan.groups.get(index) ?? 0) + 1);
  const isDigit = (code: number) => code >= 48 && code <= 57;
  let index = 0;
  while (index < replacement.length) {
    const dollar = replacement.indexOf('$', index);
    if (dollar < 0) break;
    plan.literal += dollar - index;
    index = dollar;
    const next = replacement[index + 1];
    const code = replacement.charCodeAt(index + 1);
    if (next === '$') {
      plan.literal += 1;
      index += 2;
    } else if (next === '&') {
      plan.whole++;
      index += 2;
    } else if (next === '`') {
      plan.before++;
      index += 2;
    } else if (next === "'") {
      plan.after++;
      index += 2;
    } else if (isDigit(code)) {
      let digits = 1;
      let group = code - 48;
      const second = replacement.charCodeAt(index + 2);
      if (isDigit(second) && group * 10 + second - 48 <= groupCount) {
        digits = 2;
        group = group * 10 + second - 48;
      }
      if (group >= 1 && group <= groupCount) addGroup(group);
      else plan.literal += 1 + digits;
      index += 1 + digits;
    } else if (next === '<' && hasNamed) {
      const close = replacement.indexOf('>', index + 2);
      if (close < 0) {
        plan.literal += 2;
        index += 2;
      } else {
        const name = replacement.slice(index + 2, close);
        if (Object.hasOwn(named, name)) addGroup(named[name] as number);
        index = close + 1;
      }
    } else {
      plan.literal += 1;
      index += 1;
    }
  }
  plan.literal += replacement.length - index;
  return plan;
}

/**
 * The length of `regex.matcher(text).replaceAll(replacement)`, computed from the match positions
 * without building anything; stops counting once past `limit` (then returns a number above it).
 */
function replacedLength(regex: RE2JS, replacement: string, text: string, limit: number): number {
  const plan = planReplacement(replacement, regex);
  const groups = [...plan.groups];
  const matcher = regex.matcher(text);
  let length = 0;
  let copiedTo = 0;
  while (matcher.find()) {
    const start = matcher.start();
    const end = matcher.end();
    length += start - copiedTo + plan.literal;
    length += plan.whole * (end - start) + plan.before * start + plan.after * (text.length - end);
    for (const [group, times] of groups) {
      const groupStart = matcher.start(group);
      if (groupStart >= 0) length += times * (matcher.end(group) - groupStart);
    }
    copiedTo = end;
    if (length > limit) return length;
  }
  return length + text.length - copiedTo;
}

/** Refuses a replacement longer than the policy allows (TOOL_LIMIT_EXCEEDED). */
export function checkReplacementLength(
  replacement: string,
  policy: ResolvedToolPolicy,
  tool: string,
): void {
  if (replacement.length > policy.regex.maxReplacementLength) {
    throw new ToolError(
      'TOOL_LIMIT_EXCEEDED',
      `replacement is longer than ${policy.regex.maxReplacementLength} characters (policy.regex.maxReplacementLength)`,
      { tool, field: 'replacement' },
    );
  }
}

export const regexMatch = defineTool({
  name: 'regex_match',
  namespace: 'std.regex',
  title: 'Find regex matches',
  annotations: PURE_TOOL,
  description:
    'Find every non-overlapping match of a regular expression (RE2 syntax: no lookaround or backreferences) in text; returns the matched substrings (whole matches, not groups).',
  schemas: () => ({
    input: z
      .object({
        pattern: z.string().describe('The regular expression, e.g. "\\\\d{4}-\\\\d{2}-\\\\d{2}".'),
        text: z.string().describe('The text to search.'),
        flags: flagsField(),
      })
      .strict(),
    output: z.object({
      matches: z.array(z.string()).describe('The matched substrings, in order.'),
      count: z.number().int().describe('How many matches were found.'),
      truncated: z
        .boolean()
        .optional()
        .describe('Present and true when more matches were found than returned.'),
    }),
  }),
  async execute({ pattern, text, flags }, { policy }) {
    const matcher = compileRegex(pattern, flags, text, policy, 'regex_match').matcher(text);
    const limit = policy.regex.maxMatches;
    const matches: string[] = [];
    let count = 0;
    while (matcher.find()) {
      count++;
      if (matches.length < limit) matches.push(matcher.group() ?? '');
    }
    return count > limit ? { matches, count, truncated: true } : { matches, count };
  },
});

export const regexReplace = defineTool({
  name: 'regex_replace',
  namespace: 'std.regex',
  title: 'Replace regex matches',
  annotations: PURE_TOOL,
  description:
    'Replace every match of a regular expression (RE2 syntax) in text. In the replacement, $1 or $<name> insert a group, $& the whole match, $$ a dollar sign.',
  schemas: () => ({
    input: z
      .object({
        pattern: z.string().describe('The regular expression.'),
        replacement: z.string().describe('The replacement; $1, $<name>, $& and $$ are expanded.'),
        text: z.string().describe('The text to change.'),
        flags: flagsField(),
      })
      .strict(),
    output: z.string().describe('The text after replacement.'),
  }),
  async execute({ pattern, replacement, text, flags }, { policy }) {
    const tool = 'regex_replace';
    checkReplacementLength(replacement, policy, tool);
    const regex = compileRegex(pattern, flags, text, policy, tool);
    const limit = policy.regex.maxOutputLength;
    if (replacedLength(regex, replacement, text, limit) > limit) {
      throw new ToolError(
        'TOOL_LIMIT_EXCEEDED',
        `the result would be longer than ${limit} characters (policy.regex.maxOutputLength); replace fewer matches or use a shorter replacement`,
        { tool, field: 'replacement', details: { limit } },
      );
    }
    // String.prototype.replace rules for $-references (re2js's default, non-Java mode).
    return regex.matcher(text).replaceAll(replacement);
  },
});
