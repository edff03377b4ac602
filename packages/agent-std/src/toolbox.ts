import type { z } from 'zod';
import { formatToolError, isToolError, ToolError } from './errors.ts';
import { type ResolvedToolPolicy, resolveToolPolicy, type ToolPolicy } from './policy.ts';
import {
  getTool,
  isNamespace,
  STD_TOOLS,
  type StdToolName,
  type StdTools,
  TOOLS_BY_NAMESPACE,
  type ToolInput,
  type ToolNameIn,
  type ToolResult,
} from './registry.ts';
import { type AnyToolDefinition, NAMESPACES, type Namespace } from './tool.ts';

/** Options of {@link createToolbox}. */
export interface ToolboxOptions<NS extends Namespace> {
  /** The namespaces the toolbox grants, e.g. `['std.fs', 'std.time']`. Nothing else is callable. */
  uses: readonly NS[];
  /** Limits and switches; every field has a safe default (see `DEFAULT_TOOL_POLICY`). */
  policy?: ToolPolicy;
}

/** Per-call options. */
export interface ToolCallOptions {
  /** Aborts the call (`TOOL_ABORTED`). */
  signal?: AbortSignal;
}

/**
 * The outcome of {@link Toolbox.callForModel}: `content` is what the model reads — the result (a
 * string as is, anything else as JSON) or a one-line error message naming the code.
 */
export type ModelToolResult =
  | { ok: true; content: string; result: unknown }
  | { ok: false; content: string; error: ToolError };

/** A set of tools granted by a `uses` declaration, under one policy. */
export interface Toolbox<NS extends Namespace = Namespace> {
  /** The declared namespaces. */
  readonly uses: readonly NS[];
  /** The policy with every default filled in. */
  readonly policy: ResolvedToolPolicy;
  /** The definitions of the declared tools only: hand these (and nothing else) to a model. */
  readonly tools: ReadonlyArray<StdTools[ToolNameIn<NS>]>;
  /**
   * Calls a declared tool with typed input and result. Fails with a {@link ToolError}:
   * `TOOL_UNKNOWN`, `TOOL_NOT_DECLARED`, `TOOL_BAD_INPUT` (naming the field), or what the tool
   * itself reports.
   */
  call<Name extends ToolNameIn<NS>>(
    name: Name,
    input: ToolInput<Name>,
    options?: ToolCallOptions,
  ): Promise<ToolResult<Name>>;
  /**
   * Calls a tool on a model's behalf: `args` may be the raw JSON string of a tool call. Never
   * throws for tool problems — undeclared, unknown, forged or malformed calls are refused before
   * anything runs, and every failure comes back as a message the model can read.
   */
  callForModel(name: string, args: unknown, options?: ToolCallOptions): Promise<ModelToolResult>;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Turns zod issues into one `TOOL_BAD_INPUT` naming the first field at fault. */
function badInput(tool: AnyToolDefinition, input: unknown, error: z.ZodError): ToolError {
  const allowed = Object.keys(tool.inputSchema.shape);
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return new ToolError(
      'TOOL_BAD_INPUT',
      `arguments must be an object with ${allowed.length ? allowed.map((key) => `"${key}"`).join(', ') : 'no fields'}, got ${describeType(input)}`,
      { tool: tool.name },
    );
  }
  let firstField: string | undefined;
  const messages = error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      firstField ??= issue.keys[0];
      const keys = issue.keys.map((key) => `"${key}"`).join(', ');
      return `unexpected argument${issue.keys.length > 1 ? 's' : ''} ${keys} (allowed: ${allowed.length ? allowed.join(', ') : 'none'})`;
    }
    const field = issue.path.map(String).join('.');
    firstField ??= field;
    if (
      issue.path.length > 0 &&
      valueAt(input, issue.path) === undefined &&
      issue.code === 'invalid_type'
    ) {
      return `missing required argument "${field}" (${issue.expected})`;
    }
    const message = issue.message.replace(/^Invalid input: /, '');
    return field ? `${field}: ${message}` : message;
  });
  return new ToolError('TOOL_BAD_INPUT', messages.join('; '), {
    tool: tool.name,
    field: firstField,
  });
}

/** The text a model reads for a successful result. */
export function formatToolResult(tool: AnyToolDefinition, result: unknown): string {
  return typeof result === 'string' && tool.outputSchema.type === 'string'
    ? result
    : JSON.stringify(result);
}

/**
 * Builds a toolbox granting the namespaces in `uses`, under `policy`. Only declared tools are
 * listed in `tools` and callable; an unknown namespace in `uses` fails with `TOOL_UNKNOWN`, an
 * invalid policy with `TOOL_BAD_POLICY`.
 *
 * @example
 * const toolbox = createToolbox({ uses: ['std.fs', 'std.math'], policy: { fs: { root: './notes' } } });
 * await toolbox.call('file_write', { path: 'todo.txt', content: 'buy milk' });
 * const { result } = await toolbox.call('math_calc', { expression: '(2 + 3) * 4' }); // 20
 * await toolbox.call('shell_exec', { command: 'ls' }); // type error, and TOOL_NOT_DECLARED at run time
 */
export function createToolbox<const NS extends Namespace>(
  options: ToolboxOptions<NS>,
): Toolbox<NS> {
  if (!Array.isArray(options.uses)) {
    throw new ToolError('TOOL_BAD_POLICY', 'uses must be a list of namespaces', { field: 'uses' });
  }
  for (const namespace of options.uses) {
    if (!isNamespace(namespace)) {
      throw new ToolError(
        'TOOL_UNKNOWN',
        `unknown namespace "${String(namespace)}" in uses; known: ${NAMESPACES.join(', ')}`,
        { field: 'uses' },
      );
    }
  }
  const uses: readonly NS[] = Object.freeze([...new Set<NS>(options.uses)]);
  const policy = resolveToolPolicy(options.policy);
  const declared = new Set<Namespace>(uses);
  const tools = Object.freeze(
    uses.flatMap((namespace) => TOOLS_BY_NAMESPACE[namespace].map((name) => STD_TOOLS[name])),
  ) as unknown as ReadonlyArray<StdTools[ToolNameIn<NS>]>;

  /** Finds the tool and checks the declaration; nothing runs for a refused name. */
  const resolveTool = (name: unknown): AnyToolDefinition => {
    const tool = typeof name === 'string' ? getTool(name) : undefined;
    if (!tool) {
      throw new ToolError(
        'TOOL_UNKNOWN',
        `there is no tool named "${String(name)}"; available: ${tools.map((entry) => entry.name).join(', ') || 'none'}`,
        { tool: typeof name === 'string' ? name : undefined },
      );
    }
    if (!declared.has(tool.namespace)) {
      throw new ToolError(
        'TOOL_NOT_DECLARED',
        `it belongs to ${tool.namespace}, which is not declared in uses (declared: ${uses.join(', ') || 'none'})`,
        { tool: tool.name },
      );
    }
    return tool;
  };

  const run = async (
    tool: AnyToolDefinition,
    input: unknown,
    callOptions: ToolCallOptions,
  ): Promise<unknown> => {
    const parsed = tool.inputSchema.safeParse(input);
    if (!parsed.success) throw badInput(tool, input, parsed.error);
    const signal = callOptions.signal ?? new AbortController().signal;
    if (signal.aborted) {
      throw new ToolError('TOOL_ABORTED', 'the call was aborted', { tool: tool.name });
    }
    try {
      return await tool.execute(parsed.data, { policy, signal });
    } catch (error) {
      if (isToolError(error)) throw error;
      if (signal.aborted) {
        throw new ToolError('TOOL_ABORTED', 'the call was aborted', {
          tool: tool.name,
          cause: error,
        });
      }
      throw new ToolError(
        'TOOL_FAILED',
        `${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`,
        { tool: tool.name, cause: error },
      );
    }
  };

  return Object.freeze({
    uses,
    policy,
    tools,
    async call(name, input, callOptions = {}) {
      return (await run(resolveTool(name), input, callOptions)) as ToolResult<typeof name>;
    },
    async callForModel(name, args, callOptions = {}) {
      try {
        const tool = resolveTool(name);
        let input = args;
        if (typeof args === 'string') {
          // Some models send "" for tools without parameters.
          if (args.trim() === '') input = {};
          else {
            try {
              input = JSON.parse(args);
            } catch (error) {
              throw new ToolError(
                'TOOL_BAD_INPUT',
                `the arguments are not valid JSON (${error instanceof Error ? error.message : String(error)}); send one JSON object`,
                { tool: tool.name },
              );
            }
          }
        }
        const result = await run(tool, input, callOptions);
        return { ok: true, content: formatToolResult(tool, result), result };
      } catch (error) {
        const toolError = isToolError(error)
          ? error
          : new ToolError('TOOL_FAILED', error instanceof Error ? error.message : String(error), {
              tool: name,
              cause: error,
            });
        return { ok: false, content: formatToolError(toolError), error: toolError };
      }
    },
  } satisfies Toolbox<NS>);
}

/** The names of the tools `uses` grants, in registry order. */
export function toolNamesFor(uses: readonly Namespace[]): StdToolName[] {
  return uses.flatMap((namespace) => [...TOOLS_BY_NAMESPACE[namespace]]);
}
