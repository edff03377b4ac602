import type { z } from 'zod';
import type { ResolvedToolPolicy } from './policy.ts';

/** The ten namespaces of the standard library, as written after `uses`. */
export const NAMESPACES = [
  'std.fs',
  'std.http',
  'std.time',
  'std.json',
  'std.text',
  'std.hash',
  'std.math',
  'std.regex',
  'std.shell',
  'std.ask_human',
] as const;

/** One of the ten {@link NAMESPACES}. */
export type Namespace = (typeof NAMESPACES)[number];

/** What a tool's `execute` receives besides its validated input. */
export interface ToolContext {
  /** The toolbox's policy with every default filled in. */
  policy: ResolvedToolPolicy;
  /** Fires when the caller aborts the call; long operations stop and fail with `TOOL_ABORTED`. */
  signal: AbortSignal;
}

/**
 * One tool: its name and namespace, a description written for a model, a strict zod input schema
 * (extra arguments are refused), a zod schema of its result, and `execute`, which receives the
 * validated input with defaults applied.
 */
export interface ToolDefinition<
  Name extends string = string,
  NamespaceName extends Namespace = Namespace,
  Input extends z.ZodObject = z.ZodObject,
  Output extends z.ZodType = z.ZodType,
> {
  readonly name: Name;
  readonly namespace: NamespaceName;
  readonly description: string;
  readonly inputSchema: Input;
  readonly outputSchema: Output;
  execute(input: z.output<Input>, context: ToolContext): Promise<z.output<Output>>;
}

/**
 * Any tool definition, whatever its name and schemas (`execute` is declared as a method, so a
 * specific tool is assignable to it).
 */
export type AnyToolDefinition = ToolDefinition;

/**
 * Declares a tool, keeping its literal name and schema types for inference.
 *
 * @example
 * const shout = defineTool({
 *   name: 'text_shout',
 *   namespace: 'std.text',
 *   description: 'Upper-cases text and adds an exclamation mark.',
 *   inputSchema: z.object({ text: z.string() }).strict(),
 *   outputSchema: z.string(),
 *   execute: async ({ text }) => `${text.toUpperCase()}!`,
 * });
 */
export function defineTool<
  const Name extends string,
  const NamespaceName extends Namespace,
  Input extends z.ZodObject,
  Output extends z.ZodType,
>(
  definition: ToolDefinition<Name, NamespaceName, Input, Output>,
): ToolDefinition<Name, NamespaceName, Input, Output> {
  return Object.freeze(definition);
}
