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

/** The namespace of every tool a host defines with `defineHostTool`. */
export const HOST_NAMESPACE = 'host';

/** What a tool's `execute` receives besides its validated input. */
export interface ToolContext {
  /** The toolbox's policy with every default filled in. */
  policy: ResolvedToolPolicy;
  /** Fires when the caller aborts the call; long operations stop and fail with `TOOL_ABORTED`. */
  signal: AbortSignal;
}

/**
 * What a tool does to the world, as MCP clients read it to decide what to confirm (the MCP
 * `ToolAnnotations` hints). `destructiveHint` and `idempotentHint` only matter when
 * `readOnlyHint` is false.
 */
export interface ToolAnnotations {
  /** It changes nothing (reads or computes only). */
  readonly readOnlyHint: boolean;
  /** It may overwrite or delete (false: it only adds). */
  readonly destructiveHint: boolean;
  /** Calling it again with the same arguments changes nothing more. */
  readonly idempotentHint: boolean;
  /** It reaches an open world (the network, a human, arbitrary programs), not only its own data. */
  readonly openWorldHint: boolean;
}

/**
 * One tool: its name and namespace, a short title for people, a description written for a model,
 * annotations, a strict zod input schema (extra arguments are refused), a zod schema of its
 * result, and `execute`, which receives the validated input with defaults applied.
 */
export interface ToolDefinition<
  Name extends string = string,
  NamespaceName extends string = string,
  Input extends z.ZodObject = z.ZodObject,
  Output extends z.ZodType = z.ZodType,
> {
  readonly name: Name;
  readonly namespace: NamespaceName;
  /** A short human-readable name, e.g. "Read a file" (MCP clients show it). */
  readonly title: string;
  readonly description: string;
  readonly annotations: ToolAnnotations;
  readonly inputSchema: Input;
  readonly outputSchema: Output;
  execute(input: z.output<Input>, context: ToolContext): Promise<z.output<Output>>;
}

/**
 * Any tool definition, whatever its name and schemas (`execute` is declared as a method, so a
 * specific tool is assignable to it).
 */
export type AnyToolDefinition = ToolDefinition;

/** A tool a host defines beside the standard library (see `defineHostTool`). */
export type HostToolDefinition<
  Name extends string = string,
  Input extends z.ZodObject = z.ZodObject,
  Output extends z.ZodType = z.ZodType,
> = ToolDefinition<Name, typeof HOST_NAMESPACE, Input, Output>;

/** Any host tool, whatever its name and schemas. */
export type AnyHostToolDefinition = HostToolDefinition;

/**
 * What {@link defineTool} takes: a tool definition whose schemas are built by `schemas()` on first
 * use, so that importing the library does not pay for building all 33 tools' schemas.
 */
export type ToolSpec<
  Name extends string,
  NamespaceName extends Namespace,
  Input extends z.ZodObject,
  Output extends z.ZodType,
> = Omit<ToolDefinition<Name, NamespaceName, Input, Output>, 'inputSchema' | 'outputSchema'> & {
  schemas(): { input: Input; output: Output };
};

/**
 * Declares a standard-library tool, keeping its literal name and schema types for inference.
 * `inputSchema` and `outputSchema` are built by `schemas()` the first time one is read.
 * (Hosts declare their own tools with `defineHostTool`.)
 */
export function defineTool<
  const Name extends string,
  const NamespaceName extends Namespace,
  Input extends z.ZodObject,
  Output extends z.ZodType,
>(
  spec: ToolSpec<Name, NamespaceName, Input, Output>,
): ToolDefinition<Name, NamespaceName, Input, Output> {
  const { schemas: build, ...definition } = spec;
  let built: { input: Input; output: Output } | undefined;
  const schemas = () => {
    built ??= build();
    return built;
  };
  return Object.freeze(
    Object.defineProperties(
      { ...definition, annotations: Object.freeze({ ...definition.annotations }) },
      {
        inputSchema: { get: () => schemas().input, enumerable: true },
        outputSchema: { get: () => schemas().output, enumerable: true },
      },
    ) as ToolDefinition<Name, NamespaceName, Input, Output>,
  );
}

/** Annotations of a tool that only computes from its arguments: read-only, idempotent, closed. */
export const PURE_TOOL: ToolAnnotations = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});
