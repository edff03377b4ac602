import type { Constant } from './ast.ts';

/** What names a declaration of the script when it stands as a value (`>> Writer`, `|>> [A, B]`). */
export class ScriptReference {
  readonly kind: 'agent' | 'flow' | 'function';
  readonly name: string;
  constructor(kind: 'agent' | 'flow' | 'function', name: string) {
    this.kind = kind;
    this.name = name;
  }
}

/** A value while a script runs. Records are Maps, so any key (even `__proto__`) is just a key. */
export type Value = string | number | boolean | null | Value[] | RecordValue | ScriptReference;
export type RecordValue = Map<string, Value>;

/** A value as a run hands it out: records become plain objects, references their names. */
export type ScriptValue =
  | string
  | number
  | boolean
  | null
  | ScriptValue[]
  | { [key: string]: ScriptValue };

export const isRecord = (value: Value): value is RecordValue => value instanceof Map;

/** The kind of a value, for error messages. */
export function kindOf(value: Value): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (isRecord(value)) return 'a record';
  if (value instanceof ScriptReference)
    return `${value.kind === 'agent' ? 'an' : 'a'} ${value.kind}`;
  if (typeof value === 'string') return 'text';
  return `a ${typeof value}`;
}

/** Plain data for JSON and for the caller; records keep their keys as own properties. */
export function toPlain(value: Value): ScriptValue {
  if (Array.isArray(value)) return value.map(toPlain);
  if (isRecord(value)) {
    return Object.fromEntries([...value].map(([key, item]) => [key, toPlain(item)]));
  }
  if (value instanceof ScriptReference) return value.name;
  return value;
}

/** A value from parsed JSON (or a constant of the script). */
export function fromPlain(data: unknown): Value {
  if (data === null || data === undefined) return null;
  if (typeof data === 'string' || typeof data === 'number' || typeof data === 'boolean')
    return data;
  if (Array.isArray(data)) return data.map(fromPlain);
  if (data instanceof Map)
    return new Map([...data].map(([key, item]) => [String(key), fromPlain(item)]));
  if (typeof data === 'object') {
    return new Map(Object.entries(data).map(([key, item]) => [key, fromPlain(item)]));
  }
  return String(data);
}

/** A constant of a declaration as a value. */
export const fromConstant = (constant: Constant): Value => fromPlain(constant);

/**
 * The text of a value, used by `print`, `+` with text, interpolation and agent instructions:
 * text as is, numbers as JavaScript writes them, `true`/`false`, null as nothing, lists and
 * records as JSON, a declaration as its name.
 */
export function textOf(value: Value): string {
  if (typeof value === 'string') return value;
  if (value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof ScriptReference) return value.name;
  return JSON.stringify(toPlain(value));
}

/** Falsy: null, false, 0, empty text, an empty list or record. */
export function truthy(value: Value): boolean {
  if (value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isRecord(value)) return value.size > 0;
  return true;
}

/** Structural equality (lists and records by content). */
export function equals(left: Value, right: Value): boolean {
  if (Array.isArray(left) && Array.isArray(right)) {
    return (
      left.length === right.length &&
      left.every((item, index) => equals(item, right[index] as Value))
    );
  }
  if (isRecord(left) && isRecord(right)) {
    return (
      left.size === right.size &&
      [...left].every(([key, item]) => right.has(key) && equals(item, right.get(key) as Value))
    );
  }
  if (left instanceof ScriptReference && right instanceof ScriptReference) {
    return left.kind === right.kind && left.name === right.name;
  }
  return left === right;
}

/**
 * Reads a model's answer as JSON: the whole answer, or the first fenced ```json block, or the
 * span from the first `{` to the last `}`. Undefined when none of them parses.
 */
export function parseJsonAnswer(text: string): unknown {
  const candidates = [
    text.trim(),
    /```(?:json)?\s*\n([\s\S]*?)```/i.exec(text)?.[1]?.trim(),
    text.includes('{') ? text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1) : undefined,
  ];
  for (const candidate of candidates) {
    if (!candidate) continue;
    try {
      return JSON.parse(candidate);
    } catch {
      // try the next reading
    }
  }
  return undefined;
}
