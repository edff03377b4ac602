import { RE2JS } from 're2js';
import { z } from 'zod';
import { ToolError } from '../errors.ts';
import type { ResolvedToolPolicy } from '../policy.ts';
import { defineTool } from '../tool.ts';

const flagsField = z
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
  if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) bits |= RE2JS.MULTILINE;
  if (flags.includes('s')) bits |= RE2JS.DOTALL;
  try {
    return RE2JS.compile(pattern, bits);
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

export const regexMatch = defineTool({
  name: 'regex_match',
  namespace: 'std.regex',
  description:
    'Find every non-overlapping match of a regular expression (RE2 syntax: no lookaround or backreferences) in text; returns the matched substrings (whole matches, not groups).',
  inputSchema: z
    .object({
      pattern: z.string().describe('The regular expression, e.g. "\\\\d{4}-\\\\d{2}-\\\\d{2}".'),
      text: z.string().describe('The text to search.'),
      flags: flagsField,
    })
    .strict(),
  outputSchema: z.object({
    matches: z.array(z.string()).describe('The matched substrings, in order.'),
    count: z.number().int().describe('How many matches were found.'),
    truncated: z
      .boolean()
      .optional()
      .describe('Present and true when more matches were found than returned.'),
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
  description:
    'Replace every match of a regular expression (RE2 syntax) in text. In the replacement, $1 or $<name> insert a group, $& the whole match, $$ a dollar sign.',
  inputSchema: z
    .object({
      pattern: z.string().describe('The regular expression.'),
      replacement: z.string().describe('The replacement; $1, $<name>, $& and $$ are expanded.'),
      text: z.string().describe('The text to change.'),
      flags: flagsField,
    })
    .strict(),
  outputSchema: z.string().describe('The text after replacement.'),
  async execute({ pattern, replacement, text, flags }, { policy }) {
    const regex = compileRegex(pattern, flags, text, policy, 'regex_replace');
    // String.prototype.replace rules for $-references (re2js's default, non-Java mode).
    return regex.matcher(text).replaceAll(replacement);
  },
});

/** The two tools of `std.regex`. */
export const regexTools = [regexMatch, regexReplace] as const;
