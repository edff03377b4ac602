import { z } from 'zod';
import { ToolError } from './errors.ts';
import { getTool } from './registry.ts';
import {
  HOST_NAMESPACE,
  type HostToolDefinition,
  type ToolAnnotations,
  type ToolContext,
} from './tool.ts';

/** What {@link defineHostTool} takes. */
export interface HostToolOptions<
  Name extends string,
  Input extends z.ZodObject,
  Output extends z.ZodType,
> {
  /**
   * The name models call it by: letters, digits, `_` and `-`, at most 64 characters, and none of
   * the 33 standard tools' names.
   */
  name: Name;
  /** A short title for people (default: the name, with spaces for underscores). */
  title?: string;
  /** What it does and when to use it, written for a model. */
  description: string;
  /**
   * A zod object schema of the arguments. It is made strict (extra arguments are refused with
   * `TOOL_BAD_INPUT`); `.default()` and `.optional()` fields may be left out by callers.
   */
  inputSchema: Input;
  /** A zod schema of the result (default: any value; a string result then reaches models as is). */
  outputSchema?: Output;
  /**
   * What it does to the world (default: `readOnlyHint: false`; `destructiveHint` the opposite of
   * `readOnlyHint`; `idempotentHint` equal to `readOnlyHint`; `openWorldHint: true`).
   */
  annotations?: Partial<ToolAnnotations>;
  /**
   * Does the work with the validated arguments (defaults applied). Throw a `ToolError` to fail
   * with a code of your choice (`TOOL_NOT_FOUND`, `TOOL_POLICY_DENIED`, `TOOL_LIMIT_EXCEEDED`, …);
   * anything else thrown becomes `TOOL_FAILED`. Stop when `context.signal` fires: the call is
   * abandoned then anyway.
   */
  execute(
    input: z.output<Input>,
    context: ToolContext,
  ): Promise<z.output<Output>> | z.output<Output>;
}

/** Names models can call: what OpenAI accepts for a function name (MCP accepts more). */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function badDefinition(name: string, field: string, message: string, cause?: unknown): ToolError {
  return new ToolError('TOOL_BAD_DEFINITION', `host tool ${name}: ${message}`, {
    tool: name,
    field,
    ...(cause === undefined ? {} : { cause }),
  });
}

function isZodObject(value: unknown): value is z.ZodObject {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'object' &&
    typeof (value as { safeParse?: unknown }).safeParse === 'function' &&
    typeof (value as { strict?: unknown }).strict === 'function'
  );
}

/**
 * Declares a tool of the host (your application) to give an agent, a toolbox, the OpenAI
 * adapter or an MCP server beside the standard namespaces. It is called like the standard tools:
 * its arguments are checked against `inputSchema` (`TOOL_BAD_INPUT` naming the field), it runs
 * under the toolbox's policy and the caller's signal or time budget, and its calls show in an
 * agent's events. `execute`'s argument type is inferred from the schema. An unusable definition
 * fails at once with `TOOL_BAD_DEFINITION`.
 *
 * @example
 * const slides = defineHostTool({
 *   name: 'slide_text',
 *   title: 'Read a slide',
 *   description: 'The text of one slide of the lecture, by number.',
 *   inputSchema: z.object({ number: z.number().int().min(1).describe('Slide number, from 1.') }),
 *   annotations: { readOnlyHint: true, openWorldHint: false },
 *   execute: async ({ number }) => deck[number - 1] ?? '(no such slide)',
 * });
 * const toolbox = createToolbox({ uses: ['std.text'], tools: [slides] });
 */
export function defineHostTool<
  const Name extends string,
  Input extends z.ZodObject,
  Output extends z.ZodType = z.ZodUnknown,
>(options: HostToolOptions<Name, Input, Output>): HostToolDefinition<Name, Input, Output> {
  const name = options?.name;
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw badDefinition(
      String(name),
      'name',
      'a name has 1 to 64 letters, digits, "_" or "-" (what models can call)',
    );
  }
  if (getTool(name)) {
    throw badDefinition(name, 'name', `"${name}" is the name of a standard tool; choose another`);
  }
  if (typeof options.description !== 'string' || options.description.trim() === '') {
    throw badDefinition(name, 'description', 'a description for the model is required');
  }
  if (typeof options.execute !== 'function') {
    throw badDefinition(name, 'execute', 'execute must be a function');
  }
  if (!isZodObject(options.inputSchema)) {
    throw badDefinition(name, 'inputSchema', 'inputSchema must be a zod object schema (z.object)');
  }
  const inputSchema = options.inputSchema.strict() as unknown as Input;
  try {
    z.toJSONSchema(inputSchema, { io: 'input' });
  } catch (cause) {
    throw badDefinition(
      name,
      'inputSchema',
      `its arguments have no JSON Schema, which models need: ${cause instanceof Error ? cause.message : String(cause)}`,
      cause,
    );
  }
  const readOnlyHint = options.annotations?.readOnlyHint ?? false;
  const execute = options.execute;
  return Object.freeze({
    name,
    namespace: HOST_NAMESPACE,
    title: options.title ?? `${name.charAt(0).toUpperCase()}${name.slice(1).replace(/_/g, ' ')}`,
    description: options.description,
    annotations: Object.freeze({
      readOnlyHint,
      destructiveHint: options.annotations?.destructiveHint ?? !readOnlyHint,
      idempotentHint: options.annotations?.idempotentHint ?? readOnlyHint,
      openWorldHint: options.annotations?.openWorldHint ?? true,
    }),
    inputSchema,
    outputSchema: (options.outputSchema ?? z.unknown()) as Output,
    async execute(input: z.output<Input>, context: ToolContext) {
      return await execute(input, context);
    },
  });
}

/** True for a tool made by {@link defineHostTool} (not one of the standard library). */
export function isHostTool(tool: { namespace: string }): boolean {
  return tool.namespace === HOST_NAMESPACE;
}
