import type { Pattern } from './ast.ts';
import { equals, isRecord, type Value } from './values.ts';

/**
 * Matches a value against a pattern, adding the names it binds to `bound`. `_` matches anything;
 * a name matches anything and binds it; literals match equal values; `(a, b)` and `[a, b]` match
 * lists of that length (`[a, ..rest]` any longer list, rest bound to the remaining items);
 * `{ name, age: a }` matches records that have those keys (`..rest` binds the other keys).
 * Intent and variant patterns are decided by the caller (they never match here).
 */
export function matchPattern(pattern: Pattern, value: Value, bound: Map<string, Value>): boolean {
  switch (pattern.kind) {
    case 'wildcard':
      return true;
    case 'bind':
      bound.set(pattern.name, value);
      return true;
    case 'literal':
      return equals(pattern.value, value);
    case 'tuple':
    case 'array': {
      if (!Array.isArray(value)) return false;
      const rest = pattern.kind === 'array' ? pattern.rest : undefined;
      if (
        rest === undefined
          ? value.length !== pattern.items.length
          : value.length < pattern.items.length
      ) {
        return false;
      }
      if (!pattern.items.every((item, index) => matchPattern(item, value[index] as Value, bound)))
        return false;
      if (rest !== undefined) bound.set(rest, value.slice(pattern.items.length));
      return true;
    }
    case 'record': {
      if (!isRecord(value)) return false;
      for (const entry of pattern.entries) {
        if (
          !value.has(entry.key) ||
          !matchPattern(entry.pattern, value.get(entry.key) as Value, bound)
        ) {
          return false;
        }
      }
      if (pattern.rest !== undefined) {
        const named = new Set(pattern.entries.map((entry) => entry.key));
        bound.set(pattern.rest, new Map([...value].filter(([key]) => !named.has(key))));
      }
      return true;
    }
    default:
      return false;
  }
}
