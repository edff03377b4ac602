// OpenAI's strict function calling (`strict: true`) accepts a subset of JSON Schema: every
// object lists all its properties in `required` and sets `additionalProperties: false`; an
// optional property is required but may be null; only the keywords below are allowed; the root
// is an object. `toStrictJsonSchema` rewrites a tool's input schema into that subset, and
// `fromStrictArguments` turns what a model sends under it back into the tool's own arguments:
// null for an optional argument means "left out" (so its default applies), and a list of
// `{ key, value }` entries becomes the record it stands for (strict mode has no open records).
// README.md ("Strict schemas") lists the rules with their source.
import { ToolError } from './errors.ts';

/** A JSON Schema node, as zod's `toJSONSchema` writes it. */
export type JsonSchema = Record<string, unknown>;

/** Keywords kept as they are: the types, structure and constraints strict mode supports. */
const KEPT = new Set([
  'type',
  'description',
  'enum',
  'const',
  'pattern',
  'multipleOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
]);

/** String formats strict mode supports; others are left out (the tool still checks them). */
export const STRICT_STRING_FORMATS: readonly string[] = [
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
];

/** Keywords strict mode cannot express: a schema using them has no strict form. */
const INEXPRESSIBLE = ['allOf', 'not', 'if', 'then', 'else', 'prefixItems', 'patternProperties'];

const isObject = (value: unknown): value is JsonSchema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** True when the schema lets an instance be null (its `type` or one `anyOf` branch says so). */
function acceptsNull(schema: JsonSchema): boolean {
  const { type } = schema;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  const branches = schema.anyOf ?? schema.oneOf;
  return (
    Array.isArray(branches) && branches.some((branch) => isObject(branch) && acceptsNull(branch))
  );
}

/** An object whose only members are `additionalProperties` (a schema): a record. */
function isRecord(schema: JsonSchema): boolean {
  return (
    schema.properties === undefined &&
    isObject(schema.additionalProperties) &&
    (schema.type === 'object' || schema.type === undefined)
  );
}

/** The `$defs` entry a local `$ref` points at. */
function resolveRef(root: JsonSchema, ref: unknown): JsonSchema | undefined {
  if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) return undefined;
  const defs = root.$defs;
  const target = isObject(defs) ? defs[ref.slice('#/$defs/'.length)] : undefined;
  return isObject(target) ? target : undefined;
}

/**
 * The strict form of a tool's input schema (see the top of this file). Fails with
 * `TOOL_BAD_DEFINITION`, naming the argument, where strict mode cannot express the schema: a
 * value of any type, tuples, intersections, an object with both named and open properties.
 */
export function toStrictJsonSchema(schema: JsonSchema, tool: string): JsonSchema {
  const fail = (path: string, reason: string) =>
    new ToolError(
      'TOOL_BAD_DEFINITION',
      `${path || 'the arguments'} cannot be written for OpenAI's strict mode: ${reason}; use { strict: false } for this tool`,
      { tool, field: path || undefined },
    );

  const convert = (node: unknown, path: string): JsonSchema => {
    if (!isObject(node)) throw fail(path, 'it is not a schema object');
    const used = INEXPRESSIBLE.find((keyword) => node[keyword] !== undefined);
    if (used) throw fail(path, `"${used}" is not supported`);
    if (typeof node.$ref === 'string') {
      return { $ref: node.$ref, ...(node.description ? { description: node.description } : {}) };
    }
    const branches = node.anyOf ?? node.oneOf;
    if (Array.isArray(branches)) {
      return {
        ...(typeof node.description === 'string' ? { description: node.description } : {}),
        anyOf: branches.map((branch, index) => convert(branch, `${path}[${index}]`)),
      };
    }
    if (isRecord(node)) {
      const value = convert(node.additionalProperties, `${path}.value`);
      const described = typeof node.description === 'string' ? `${node.description} ` : '';
      return {
        type: 'array',
        description: `${described}Give the entries as a list of {"key", "value"} objects.`,
        items: {
          type: 'object',
          properties: { key: { type: 'string' }, value },
          required: ['key', 'value'],
          additionalProperties: false,
        },
      };
    }
    const { type } = node;
    const types = Array.isArray(type) ? type : type === undefined ? [] : [type];
    const isObjectType = types.includes('object') || node.properties !== undefined;
    if (
      types.length === 0 &&
      node.enum === undefined &&
      node.const === undefined &&
      !isObjectType
    ) {
      throw fail(path, 'it accepts a value of any type, and strict mode needs a type');
    }
    const valueTypes = types.filter((entry) => entry !== 'null');
    if (valueTypes.length > 1) {
      // Several types: one branch each (null stays a branch of its own).
      const { type: _type, description, ...rest } = node;
      return convert(
        {
          ...(description === undefined ? {} : { description }),
          anyOf: types.map((entry) => ({ ...rest, type: entry })),
        },
        path,
      );
    }
    const strict: JsonSchema = {};
    for (const [key, value] of Object.entries(node)) {
      if (KEPT.has(key)) strict[key] = value;
    }
    if (typeof node.format === 'string' && STRICT_STRING_FORMATS.includes(node.format)) {
      strict.format = node.format;
      // zod writes a pattern beside a format; the format says it, in a form strict mode knows.
      delete strict.pattern;
    }
    if (valueTypes[0] === 'array' && node.items !== undefined) {
      strict.items = convert(node.items, `${path}[]`);
    }
    if (isObjectType) {
      if (node.additionalProperties !== undefined && node.additionalProperties !== false) {
        if (isObject(node.additionalProperties) || node.additionalProperties === true) {
          throw fail(path, 'an object with both named and open-ended properties');
        }
      }
      const properties = isObject(node.properties) ? node.properties : {};
      const required = new Set(Array.isArray(node.required) ? node.required : []);
      const strictProperties: JsonSchema = {};
      for (const [name, property] of Object.entries(properties)) {
        const field = path ? `${path}.${name}` : name;
        const converted = convert(property, field);
        strictProperties[name] = required.has(name)
          ? converted
          : nullable(converted, isObject(property) ? property.default : undefined);
      }
      strict.type = 'object';
      strict.properties = strictProperties;
      strict.required = Object.keys(strictProperties);
      strict.additionalProperties = false;
    }
    return strict;
  };

  const root = convert(schema, '');
  if (isObject(schema.$defs)) {
    root.$defs = Object.fromEntries(
      Object.entries(schema.$defs).map(([name, definition]) => [
        name,
        convert(definition, `$defs.${name}`),
      ]),
    );
  }
  return root;
}

/** An optional property as strict mode writes it: required, and null meaning "left out". */
function nullable(schema: JsonSchema, defaultValue: unknown): JsonSchema {
  const hint =
    defaultValue === undefined
      ? 'Send null to leave it out.'
      : `Send null for the default (${JSON.stringify(defaultValue)}).`;
  const { description, ...rest } = schema;
  const described = typeof description === 'string' ? `${description} ${hint}` : hint;
  if (acceptsNull(schema)) return { ...schema, description: described };
  const simple =
    typeof rest.type === 'string' &&
    ['string', 'number', 'integer', 'boolean'].includes(rest.type) &&
    rest.enum === undefined &&
    rest.const === undefined;
  if (simple) return { ...rest, type: [rest.type, 'null'], description: described };
  if (Array.isArray(rest.anyOf) && Object.keys(rest).length === 1) {
    return { description: described, anyOf: [...rest.anyOf, { type: 'null' }] };
  }
  return { description: described, anyOf: [rest, { type: 'null' }] };
}

/**
 * The arguments a model sent under a strict schema, turned back into the tool's own: null for
 * an optional argument that cannot be null means it was left out, and a list of
 * `{ key, value }` entries where the tool takes a record becomes that record. Anything else is
 * returned as it is (the tool's own validation judges it). `schema` is the tool's input schema
 * (not its strict form); unions are left alone.
 */
export function fromStrictArguments(schema: JsonSchema, value: unknown, tool: string): unknown {
  const restore = (node: JsonSchema, current: unknown, path: string): unknown => {
    const target = typeof node.$ref === 'string' ? resolveRef(schema, node.$ref) : node;
    if (!target) return current;
    if (isRecord(target)) {
      const entries = Array.isArray(current) ? toEntries(current, path, tool) : undefined;
      const record = entries ? Object.fromEntries(entries) : current;
      if (!isObject(record)) return record;
      const valueSchema = target.additionalProperties as JsonSchema;
      return Object.fromEntries(
        Object.entries(record).map(([key, entry]) => [
          key,
          restore(valueSchema, entry, `${path}.${key}`),
        ]),
      );
    }
    if (isObject(target.properties) && isObject(current)) {
      const required = new Set(Array.isArray(target.required) ? target.required : []);
      const result: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(current)) {
        const property = Object.hasOwn(target.properties, key) ? target.properties[key] : undefined;
        if (!isObject(property)) {
          result[key] = entry;
          continue;
        }
        if (entry === null && !required.has(key) && !acceptsNull(property)) continue;
        result[key] = restore(property, entry, path ? `${path}.${key}` : key);
      }
      return result;
    }
    if (isObject(target.items) && Array.isArray(current)) {
      const items = target.items;
      return current.map((entry, index) => restore(items, entry, `${path}.${index}`));
    }
    return current;
  };
  return restore(schema, value, '');
}

/** `[{ key, value }, …]` as entries, or undefined when the list is not of that shape. */
function toEntries(
  list: readonly unknown[],
  path: string,
  tool: string,
): Array<[string, unknown]> | undefined {
  if (
    !list.every((entry) => isObject(entry) && typeof entry.key === 'string' && 'value' in entry)
  ) {
    return undefined;
  }
  const seen = new Set<string>();
  return list.map((entry) => {
    const { key, value } = entry as { key: string; value: unknown };
    if (seen.has(key)) {
      throw new ToolError('TOOL_BAD_INPUT', `${path}: the key "${key}" is given twice`, {
        tool,
        field: `${path}.${key}`,
      });
    }
    seen.add(key);
    return [key, value];
  });
}
