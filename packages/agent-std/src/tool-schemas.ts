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
  return structuredClone(cachedInputJsonSchema(tool));
}

/** The JSON Schema of a tool's result when it is a record (an object), else undefined. */
export function toolOutputJsonSchema(tool: AnyToolDefinition): JsonSchema | undefined {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(tool.outputSchema, { io: 'output' });
  return schema.type === 'object' ? schema : undefined;
}
