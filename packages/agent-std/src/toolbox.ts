import type { z } from 'zod';
import { formatToolError, isToolError, ToolError } from './errors.ts';
import { isHostTool } from './host-tool.ts';
import { type ResolvedToolPolicy, resolveToolPolicy, type ToolPolicy } from './policy.ts';
import { type DescribePolicyOption, renamePolicyOptions } from './policy-options.ts';
import {
  getTool,
  isNamespace,
  type StdToolName,
  type StdTools,
  TOOLS_BY_NAMESPACE,
  type ToolInput,
  type ToolNameIn,
  type ToolResult,
} from './registry.ts';
import { fromStrictArguments } from './strict-schema.ts';
import {
  type AnyHostToolDefinition,
  type AnyToolDefinition,
  NAMESPACES,
  type Namespace,
} from './tool.ts';
import { cachedInputJsonSchema } from './tool-schemas.ts';
import { formatNexaToolResult, NEXA_TOOLS, type ToolSemantics } from './tools/nexa-tools.ts';

/** Options of {@link createToolbox}. */
export interface ToolboxOptions<
  NS extends Namespace,
  Host extends AnyHostToolDefinition = AnyHostToolDefinition,
> {
  /** The namespaces the toolbox grants, e.g. `['std.fs', 'std.time']`. Nothing else is callable. */
  uses: readonly NS[];
  /**
   * Your own tools (made with `defineHostTool`), granted beside the namespaces: listed, callable
   * and checked like the standard ones. Their names must differ from each other.
   */
  tools?: readonly Host[];
  /** Limits and switches; every field has a safe default (see `DEFAULT_TOOL_POLICY`). */
  policy?: ToolPolicy;
  /**
   * How refusals name policy options, for whoever runs the tools (default: the library's names,
   * such as `policy.http.allowPrivateNetwork`). A command-line tool returns its flags here.
   */
  describePolicyOption?: DescribePolicyOption;
  /**
   * The meaning of the std tools (default `'js'`, as documented for each tool). `'nexa'` gives
   * the tools the meaning Nexa's built-ins have, for scripts in Nexa's language: Python's regular
   * expression replacements, 0 meaning "all" in `text_split` and `text_replace`, and the other
   * differences the README lists; the descriptions and schemas models see say so. The typed
   * `call` still has the JavaScript meaning's types: use `callForModel` with it.
   */
  semantics?: ToolSemantics;
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

/** The names a toolbox of namespaces `NS` and host tools `Host` can call. */
export type ToolboxToolName<NS extends Namespace, Host extends AnyHostToolDefinition> =
  | ToolNameIn<NS>
  | Host['name'];

/** What a caller passes to tool `Name` of a toolbox (a standard tool or a host tool). */
export type ToolboxInput<
  Name extends string,
  Host extends AnyHostToolDefinition,
> = Name extends StdToolName
  ? ToolInput<Name>
  : z.input<Extract<Host, { name: Name }>['inputSchema']>;

/** What tool `Name` of a toolbox returns. */
export type ToolboxResult<
  Name extends string,
  Host extends AnyHostToolDefinition,
> = Name extends StdToolName
  ? ToolResult<Name>
  : z.output<Extract<Host, { name: Name }>['outputSchema']>;

/** A set of tools granted by a `uses` declaration and host tools, under one policy. */
export interface Toolbox<
  NS extends Namespace = Namespace,
  Host extends AnyHostToolDefinition = AnyHostToolDefinition,
> {
  /** The declared namespaces. */
  readonly uses: readonly NS[];
  /** The policy with every default filled in. */
  readonly policy: ResolvedToolPolicy;
  /**
   * The definitions of the granted tools only: hand these (and nothing else) to a model. The
   * declared namespaces' tools first (without the writing fs tools when `policy.fs.readOnly`),
   * then the host tools.
   */
  readonly tools: ReadonlyArray<StdTools[ToolNameIn<NS>] | Host>;
  /**
   * Calls a granted tool with typed input and result. Fails with a {@link ToolError}:
   * `TOOL_UNKNOWN`, `TOOL_NOT_DECLARED`, `TOOL_BAD_INPUT` (naming the field), or what the tool
   * itself reports.
   */
  call<Name extends ToolboxToolName<NS, Host>>(
    name: Name,
    input: ToolboxInput<Name, Host>,
    options?: ToolCallOptions,
  ): Promise<ToolboxResult<Name, Host>>;
  /**
   * Calls a tool on a model's behalf: `args` may be the raw JSON string of a tool call. Never
   * throws for tool problems — undeclared, unknown, forged or malformed calls are refused before
   * anything runs, and every failure comes back as a message the model can read. Arguments sent
   * under a strict schema are read back: null for an optional argument means its default, and a
   * list of `{ key, value }` entries where the tool takes a record is that record.
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

/**
 * The text a model reads for a successful result: a string as is when the tool's result is text
 * (or, for a host tool, of no declared type), anything else as JSON.
 */
export function formatToolResult(tool: AnyToolDefinition, result: unknown): string {
  const type = tool.outputSchema.type;
  return typeof result === 'string' && (type === 'string' || type === 'unknown')
    ? result
    : JSON.stringify(result);
}

function aborted(tool: string, cause?: unknown): ToolError {
  return new ToolError('TOOL_ABORTED', 'the call was aborted', {
    tool,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Settles with `work`, or fails with `TOOL_ABORTED` as soon as `signal` fires. */
function abandonOnAbort<T>(work: Promise<T>, signal: AbortSignal, tool: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted(tool, signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Checks the host tools handed to a toolbox: made by `defineHostTool`, names unique. */
function checkHostTools(tools: unknown): readonly AnyHostToolDefinition[] {
  if (tools === undefined) return [];
  if (!Array.isArray(tools)) {
    throw new ToolError('TOOL_BAD_DEFINITION', 'tools must be a list of host tools', {
      field: 'tools',
    });
  }
  const names = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    const name = (tool as { name?: unknown } | null)?.name;
    if (
      typeof tool !== 'object' ||
      tool === null ||
      typeof name !== 'string' ||
      !isHostTool(tool) ||
      typeof (tool as { execute?: unknown }).execute !== 'function'
    ) {
      throw new ToolError(
        'TOOL_BAD_DEFINITION',
        `tools[${index}] is not a host tool; make it with defineHostTool`,
        { field: `tools[${index}]` },
      );
    }
    if (names.has(name) || getTool(name)) {
      throw new ToolError('TOOL_BAD_DEFINITION', `two tools are named "${name}"`, {
        tool: name,
        field: `tools[${index}].name`,
      });
    }
    names.add(name);
  }
  return tools as AnyHostToolDefinition[];
}

/**
 * Builds a toolbox granting the namespaces in `uses` and the host tools in `tools`, under
 * `policy`. Only granted tools are listed in `tools` and callable; an unknown namespace in `uses`
 * fails with `TOOL_UNKNOWN`, an invalid policy with `TOOL_BAD_POLICY`, an unusable host tool with
 * `TOOL_BAD_DEFINITION`.
 *
 * @example
 * const toolbox = createToolbox({ uses: ['std.fs', 'std.math'], policy: { fs: { root: './notes' } } });
 * await toolbox.call('file_write', { path: 'todo.txt', content: 'buy milk' });
 * const { result } = await toolbox.call('math_calc', { expression: '(2 + 3) * 4' }); // 20
 * await toolbox.call('shell_exec', { command: 'ls' }); // type error, and TOOL_NOT_DECLARED at run time
 */
export function createToolbox<
  const NS extends Namespace,
  const Host extends AnyHostToolDefinition = never,
>(options: ToolboxOptions<NS, Host>): Toolbox<NS, Host> {
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
  const hostTools = checkHostTools(options.tools);
  const uses: readonly NS[] = Object.freeze([...new Set<NS>(options.uses)]);
  const policy = resolveToolPolicy(options.policy);
  const declared = new Set<Namespace>(uses);
  const byHostName = new Map(hostTools.map((tool) => [tool.name, tool]));
  // With read-only files the writing fs tools are not offered (they would only be refused).
  const offered = (tool: AnyToolDefinition) =>
    !(policy.fs.readOnly && tool.namespace === 'std.fs' && !tool.annotations.readOnlyHint);
  if (
    options.semantics !== undefined &&
    options.semantics !== 'js' &&
    options.semantics !== 'nexa'
  ) {
    throw new ToolError(
      'TOOL_BAD_POLICY',
      `semantics must be "js" or "nexa", got ${JSON.stringify(options.semantics)}`,
      { field: 'semantics' },
    );
  }
  const nexa = options.semantics === 'nexa';
  /** A std tool by name, in the toolbox's semantics. */
  const stdTool = (name: string): AnyToolDefinition | undefined => {
    const tool = getTool(name);
    return tool && nexa ? (NEXA_TOOLS[tool.name as StdToolName] ?? tool) : tool;
  };
  const tools = Object.freeze(
    [
      ...uses.flatMap((namespace) =>
        TOOLS_BY_NAMESPACE[namespace].map((name) => stdTool(name) as AnyToolDefinition),
      ),
      ...hostTools,
    ].filter(offered),
  ) as unknown as ReadonlyArray<StdTools[ToolNameIn<NS>] | Host>;
  const describe = options.describePolicyOption;

  /** Finds the tool and checks the declaration; nothing runs for a refused name. */
  const resolveTool = (name: unknown): AnyToolDefinition => {
    const tool = typeof name !== 'string' ? undefined : (byHostName.get(name) ?? stdTool(name));
    if (!tool) {
      throw new ToolError(
        'TOOL_UNKNOWN',
        `there is no tool named "${String(name)}"; available: ${tools.map((entry) => entry.name).join(', ') || 'none'}`,
        { tool: typeof name === 'string' ? name : undefined },
      );
    }
    if (!isHostTool(tool) && !declared.has(tool.namespace as Namespace)) {
      throw new ToolError(
        'TOOL_NOT_DECLARED',
        `it belongs to ${tool.namespace}, which is not declared in uses (declared: ${uses.join(', ') || 'none'})`,
        { tool: tool.name },
      );
    }
    return tool;
  };

  /** The error as the caller sees it: naming its tool, and policy options in the caller's words. */
  const present = (error: ToolError, tool: string): ToolError => {
    const message = describe ? renamePolicyOptions(error.message, describe) : error.message;
    if (message === error.message && error.tool !== undefined) return error;
    return new ToolError(error.code, message, {
      tool: error.tool ?? tool,
      field: error.field,
      details: error.details,
      cause: error.cause,
    });
  };

  const run = async (
    tool: AnyToolDefinition,
    input: unknown,
    callOptions: ToolCallOptions,
  ): Promise<unknown> => {
    const parsed = tool.inputSchema.safeParse(input);
    if (!parsed.success) throw badInput(tool, input, parsed.error);
    const signal = callOptions.signal ?? new AbortController().signal;
    if (signal.aborted) throw aborted(tool.name);
    try {
      const work = tool.execute(parsed.data, { policy, signal });
      // A host tool that ignores its signal is abandoned, so the caller's deadline holds.
      return await (isHostTool(tool) ? abandonOnAbort(work, signal, tool.name) : work);
    } catch (error) {
      if (isToolError(error)) throw present(error, tool.name);
      if (signal.aborted) throw aborted(tool.name, error);
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
      return (await run(resolveTool(name), input, callOptions)) as ToolboxResult<typeof name, Host>;
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
        input = fromStrictArguments(cachedInputJsonSchema(tool), input, tool.name);
        const result = await run(tool, input, callOptions);
        const content = nexa ? formatNexaToolResult(tool, result) : formatToolResult(tool, result);
        return { ok: true, content, result };
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
  } satisfies Toolbox<NS, Host>);
}
