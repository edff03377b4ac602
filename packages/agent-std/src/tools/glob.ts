import type { RE2JS } from 're2js';
import { re2 } from './re2.ts';

/**
 * A compiled glob pattern for `file_list`, matched segment by segment against relative paths
 * (`/`-separated). Syntax: `*` (any run of characters within a segment), `?` (one character),
 * `[abc]`, `[a-z]`, `[!abc]` (classes), `{a,b}` (alternatives), `**` as a whole segment (zero or more
 * folders), `\x` (a literal x). As in Python's glob, wildcards do not match a leading `.`: hidden
 * entries are listed only by segments that start with a literal dot. Matching uses RE2 (linear time),
 * so no pattern can make it slow.
 */
export interface GlobMatcher {
  /** Whether `segments` (a relative path split on `/`) matches one of the alternatives. */
  matches(segments: readonly string[]): boolean;
  /** True when some alternative can match below the first level (it has `/` or `**`). */
  recursive: boolean;
  /** The deepest level any alternative reaches; `Infinity` with `**`. */
  maxDepth: number;
  /** True when a segment starts with a literal dot, so hidden folders may need to be entered. */
  mentionsHidden: boolean;
}

type Segment = { kind: 'globstar' } | { kind: 'segment'; regex: RE2JS; literalDot: boolean };

const MAX_ALTERNATIVES = 64;

/** Thrown for a pattern that cannot be compiled; the caller turns it into `TOOL_BAD_INPUT`. */
export class GlobSyntaxError extends Error {}

function expandAlternatives(pattern: string): string[] {
  // Find the first top-level {…} group with a comma, expand it, recurse on each result.
  let depth = 0;
  let start = -1;
  const commas: number[] = [];
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index];
    if (character === '\\') {
      index++;
      continue;
    }
    if (character === '[') {
      const close = pattern.indexOf(']', index + 2);
      if (close !== -1) index = close;
      continue;
    }
    if (character === '{') {
      if (depth === 0) {
        start = index;
        commas.length = 0;
      }
      depth++;
    } else if (character === ',' && depth === 1) {
      commas.push(index);
    } else if (character === '}' && depth > 0) {
      depth--;
      if (depth === 0 && commas.length > 0) {
        const head = pattern.slice(0, start);
        const tail = pattern.slice(index + 1);
        const bounds = [start, ...commas, index];
        const results: string[] = [];
        for (let part = 0; part < bounds.length - 1; part++) {
          const middle = pattern.slice((bounds[part] ?? 0) + 1, bounds[part + 1]);
          for (const expanded of expandAlternatives(head + middle + tail)) {
            results.push(expanded);
            if (results.length > MAX_ALTERNATIVES) {
              throw new GlobSyntaxError(
                `the pattern expands to more than ${MAX_ALTERNATIVES} alternatives`,
              );
            }
          }
        }
        return results;
      }
    }
  }
  return [pattern];
}

function escapeRegex(character: string): string {
  return /[\\^$.|?*+()[\]{}]/.test(character) ? `\\${character}` : character;
}

function segmentToRegex(segment: string): string {
  let regex = '';
  for (let index = 0; index < segment.length; index++) {
    const character = segment[index] as string;
    if (character === '\\') {
      const next = segment[index + 1];
      if (next !== undefined) {
        regex += escapeRegex(next);
        index++;
      } else {
        regex += '\\\\';
      }
    } else if (character === '*') {
      regex += '[^/]*';
    } else if (character === '?') {
      regex += '[^/]';
    } else if (character === '[') {
      let cursor = index + 1;
      let negate = false;
      if (segment[cursor] === '!' || segment[cursor] === '^') {
        negate = true;
        cursor++;
      }
      let body = '';
      let first = true;
      let closed = false;
      for (; cursor < segment.length; cursor++) {
        const inner = segment[cursor] as string;
        if (inner === ']' && !first) {
          closed = true;
          break;
        }
        first = false;
        if (inner === '\\' && cursor + 1 < segment.length) {
          cursor++;
          body += `\\${segment[cursor]}`;
        } else if (inner === '-') {
          body += '-';
        } else {
          body += /[\\^[\]]/.test(inner) ? `\\${inner}` : inner;
        }
      }
      if (!closed) {
        regex += '\\[';
        continue;
      }
      regex += `[${negate ? '^' : ''}${body}]`;
      index = cursor;
    } else {
      regex += escapeRegex(character);
    }
  }
  return regex;
}

/** Compiles a `file_list` glob. Throws {@link GlobSyntaxError} for an unusable pattern. */
export function compileGlob(pattern: string): GlobMatcher {
  if (pattern === '') throw new GlobSyntaxError('the pattern is empty');
  if (pattern.startsWith('/')) {
    throw new GlobSyntaxError('the pattern must be relative to the directory (no leading "/")');
  }
  const alternatives = expandAlternatives(pattern).map((alternative): Segment[] =>
    alternative
      .split('/')
      .filter((segment) => segment !== '' && segment !== '.')
      .map((segment): Segment => {
        if (segment === '..') {
          throw new GlobSyntaxError('the pattern must not contain ".." segments');
        }
        if (segment === '**') return { kind: 'globstar' };
        let regex: RE2JS;
        try {
          regex = re2().compile(segmentToRegex(segment));
        } catch (cause) {
          throw new GlobSyntaxError(`the segment "${segment}" is not a valid glob`, { cause });
        }
        return { kind: 'segment', regex, literalDot: segment.startsWith('.') };
      }),
  );
  const hasGlobstar = alternatives.some((segments) => segments.some((s) => s.kind === 'globstar'));
  const maxDepth = hasGlobstar
    ? Number.POSITIVE_INFINITY
    : Math.max(...alternatives.map((segments) => segments.length));

  const matchFrom = (segments: Segment[], at: number, path: readonly string[], pathAt: number) => {
    // Memoised over (segment index, path index): linear in their product even with many `**`.
    const memo = new Map<number, boolean>();
    const visit = (s: number, p: number): boolean => {
      const key = s * (path.length + 1) + p;
      const known = memo.get(key);
      if (known !== undefined) return known;
      let result: boolean;
      const segment = segments[s];
      if (segment === undefined) {
        result = p === path.length;
      } else if (segment.kind === 'globstar') {
        // Zero folders, or one more folder that is not hidden.
        result =
          visit(s + 1, p) ||
          (p < path.length && !(path[p] as string).startsWith('.') && visit(s, p + 1));
      } else {
        const name = path[p];
        result =
          name !== undefined &&
          (segment.literalDot || !name.startsWith('.')) &&
          segment.regex.matches(name) &&
          visit(s + 1, p + 1);
      }
      memo.set(key, result);
      return result;
    };
    return visit(at, pathAt);
  };

  return {
    recursive: maxDepth > 1,
    maxDepth,
    mentionsHidden: alternatives.some((segments) =>
      segments.some((segment) => segment.kind === 'segment' && segment.literalDot),
    ),
    matches: (path) => alternatives.some((segments) => matchFrom(segments, 0, path, 0)),
  };
}
