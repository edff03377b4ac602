import { z } from 'zod';
import type { JsonSchema } from './strict-schema.ts';
import type { AnyToolDefinition } from './tool.ts';

const inputs = new WeakMap<AnyToolDefinition, JsonSchema>();

/** The input schema as JSON Schema, made once per tool; callers must not change it. */
export function cachedInputJsonSchema(tool: AnyToolDefinition): JsonSchema {
  let schema = inputs.get(tool);
  if (!schema) {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(tool.inputSchema, { io: 'input' });
    schema = rest;
    inputs.set(tool, schema);
  }
  return schema;
}

/**
 * The JSON Schema of a tool's arguments, as models see it (generated from the zod schema:
 * `additionalProperties: false`, defaults shown, defaulted arguments optional).
 */
export function toolInputJsonSchema(tool: AnyToolDefinition): JsonSchema {
  return singleTypes(cachedInputJsonSchema(tool)) as JsonSchema;
}

/** The JSON Schema of a tool's result when it is a record (an object), else undefined. */
export function toolOutputJsonSchema(tool: AnyToolDefinition): JsonSchema | undefined {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(tool.outputSchema, { io: 'output' });
  return schema.type === 'object' ? (singleTypes(schema) as JsonSchema) : undefined;
}

/** Keywords about a schema as a whole, kept beside `anyOf` rather than copied into a branch. */
const ANNOTATIONS = ['title', 'description', 'default', 'examples', 'deprecated'];

/** Keywords whose values are instances, not schemas: never rewritten. */
const INSTANCES = new Set(['const', 'enum', 'default', 'examples']);

/** Keywords whose values map names to schemas (a name is never a keyword). */
const MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);

/**
 * A copy of `node` in which every list of types (`type: ["string", "null"]`, as zod writes a
 * nullable string) is an `anyOf` with one type per branch: the form every JSON Schema reader
 * takes (the MCP Inspector's strict mode reports type lists as not portable). The constraints
 * beside the list go into each branch that is not `null`, where they applied before.
 */
function singleTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(singleTypes);
  if (typeof node !== 'object' || node === null) return node;
  const copy: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (INSTANCES.has(key)) copy[key] = structuredClone(value);
    else if (MAPS.has(key) && typeof value === 'object' && value !== null) {
      copy[key] = Object.fromEntries(
        Object.entries(value).map(([name, schema]) => [name, singleTypes(schema)]),
      );
    } else copy[key] = singleTypes(value);
  }
  const { type } = copy;
  if (!Array.isArray(type)) return copy;
  if (type.length === 1) return { ...copy, type: type[0] };
  const outside: JsonSchema = {};
  const inside: JsonSchema = {};
  for (const [key, value] of Object.entries(copy)) {
    if (key === 'type') continue;
    if (ANNOTATIONS.includes(key)) outside[key] = value;
    else inside[key] = value;
  }
  return {
    ...outside,
    anyOf: type.map((entry) =>
      entry === 'null' ? { type: 'null' } : { ...structuredClone(inside), type: entry },
    ),
  };
}
