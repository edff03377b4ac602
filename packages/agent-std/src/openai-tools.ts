import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageToolCall,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import { formatToolError, ToolError } from './errors.ts';
import { toStrictJsonSchema } from './strict-schema.ts';
import type { AnyToolDefinition } from './tool.ts';
import { cachedInputJsonSchema, toolInputJsonSchema } from './tool-schemas.ts';
import type { ModelToolResult, Toolbox, ToolCallOptions } from './toolbox.ts';

/** Options of {@link toOpenAITools}. */
export interface OpenAIToolsOptions {
  /**
   * Strict function calling (default `false`): every schema is rewritten into the subset OpenAI's
   * strict mode accepts (all properties required, optional ones nullable, `additionalProperties:
   * false` everywhere, no `default`, `propertyNames`, `minLength`, …) and marked `strict: true`.
   * {@link runOpenAIToolCalls} reads such calls back (null means the default).
   */
  strict?: boolean;
}

/**
 * A tool's input schema in the form OpenAI's strict mode accepts (see {@link OpenAIToolsOptions}).
 * Fails with `TOOL_BAD_DEFINITION` naming the argument when strict mode cannot express it (a
 * value of any type, a tuple, an intersection).
 */
export function toolStrictJsonSchema(tool: AnyToolDefinition): Record<string, unknown> {
  return toStrictJsonSchema(cachedInputJsonSchema(tool), tool.name);
}

/**
 * The tools as OpenAI function-calling definitions, for `chat.completions.create({ tools })`.
 * Pass the toolbox (or `toolbox.tools`) so the model is only ever offered what it grants.
 *
 * @example
 * const toolbox = createToolbox({ uses: ['std.time', 'std.math'] });
 * const completion = await openai.chat.completions.create({
 *   model: 'gpt-4o-mini',
 *   messages,
 *   tools: toOpenAITools(toolbox, { strict: true }),
 * });
 */
export function toOpenAITools(
  source: Pick<Toolbox, 'tools'> | readonly AnyToolDefinition[],
  options: OpenAIToolsOptions = {},
): ChatCompletionFunctionTool[] {
  const tools: readonly AnyToolDefinition[] = Array.isArray(source)
    ? source
    : (source as Pick<Toolbox, 'tools'>).tools;
  return tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: options.strict ? toolStrictJsonSchema(tool) : toolInputJsonSchema(tool),
      ...(options.strict ? { strict: true } : {}),
    },
  }));
}

/** A tool message for the conversation, plus what happened (for logging). */
export interface OpenAIToolOutcome {
  message: ChatCompletionToolMessageParam;
  name: string;
  /** The arguments as the model sent them (JSON text; '' when it sent none). */
  arguments: string;
  /**
   * The call as it belongs in the conversation history: a complete function call
   * (`type: 'function'`, `arguments` '{}' when the model sent none), or the custom call as sent.
   */
  call: ChatCompletionMessageToolCall;
  outcome: ModelToolResult;
}

/** One tool call of a response, read defensively (OpenAI-compatible servers differ). */
export interface ReadToolCall {
  /** The call id, or undefined when the model sent none (no reply can be addressed to it). */
  id: string | undefined;
  name: string;
  /** The arguments as sent, as JSON text ('' when none). */
  argumentsText: string;
  /** What to run the tool with, or why the call cannot run. */
  run: { args: unknown } | { error: ToolError };
  call: ChatCompletionMessageToolCall;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads one tool call of an assistant message. Any call with a `function` part is a function
 * call, whatever its `type` says (some servers omit `type`); missing `arguments` mean `{}`, and
 * arguments sent as an object are taken as they are. A call without a function name, a custom
 * call, or anything else becomes an error for the model — never a TypeError.
 */
export function readToolCall(raw: unknown): ReadToolCall {
  const call = isObject(raw) ? raw : {};
  const id = typeof call.id === 'string' && call.id !== '' ? call.id : undefined;
  const refused = (name: string, error: ToolError, argumentsText = ''): ReadToolCall => ({
    id,
    name,
    argumentsText,
    run: { error },
    call: {
      id: id ?? '',
      type: 'function',
      function: { name, arguments: argumentsText || '{}' },
    },
  });
  if (isObject(call.function)) {
    const fn = call.function;
    const name = typeof fn.name === 'string' ? fn.name : '';
    const given = fn.arguments;
    const argumentsText =
      given === undefined || given === null
        ? ''
        : typeof given === 'string'
          ? given
          : (JSON.stringify(given) ?? String(given));
    if (name === '') {
      return refused(
        '',
        new ToolError(
          'TOOL_BAD_INPUT',
          'the tool call has no function name; call a tool by its name',
        ),
        argumentsText,
      );
    }
    return {
      id,
      name,
      argumentsText,
      run: { args: given === undefined || given === null ? {} : given },
      call: {
        id: id ?? '',
        type: 'function',
        function: { name, arguments: argumentsText || '{}' },
      },
    };
  }
  if (call.type === 'custom' || isObject(call.custom)) {
    const custom = isObject(call.custom) ? call.custom : {};
    const name = typeof custom.name === 'string' ? custom.name : '';
    const input = typeof custom.input === 'string' ? custom.input : '';
    const error = new ToolError(
      'TOOL_UNKNOWN',
      `custom tool calls are not supported; call ${name || 'the tool'} as a function`,
      name ? { tool: name } : {},
    );
    return {
      id,
      name,
      argumentsText: input,
      run: { error },
      call: { id: id ?? '', type: 'custom', custom: { name, input } },
    };
  }
  return refused(
    '',
    new ToolError(
      'TOOL_BAD_INPUT',
      'the tool call has no function part; send { "type": "function", "function": { "name", "arguments" } }',
    ),
  );
}

/** Options of {@link runOpenAIToolCalls}. */
export interface RunOpenAIToolCallsOptions extends ToolCallOptions {
  /** Called as each call starts (before its arguments are checked), e.g. to show it running. */
  onToolCallStart?: (call: { id: string; name: string; arguments: string }) => void;
}

/**
 * Runs the tool calls of an assistant message through the toolbox, in order, and returns the
 * `role: 'tool'` messages to append. Undeclared, unknown or forged tools and malformed JSON
 * arguments never run: the model gets an error message it can act on instead. Calls are read
 * leniently ({@link readToolCall}): a call without `type` or `arguments` still runs.
 *
 * @example
 * const message = completion.choices[0].message;
 * messages.push(message);
 * for (const { message: reply } of await runOpenAIToolCalls(toolbox, message.tool_calls ?? [])) {
 *   messages.push(reply);
 * }
 */
export async function runOpenAIToolCalls(
  toolbox: Pick<Toolbox, 'callForModel'>,
  toolCalls: readonly ChatCompletionMessageToolCall[],
  options: RunOpenAIToolCallsOptions = {},
): Promise<OpenAIToolOutcome[]> {
  const outcomes: OpenAIToolOutcome[] = [];
  for (const raw of Array.isArray(toolCalls) ? toolCalls : []) {
    const read = readToolCall(raw);
    options.onToolCallStart?.({
      id: read.id ?? '',
      name: read.name,
      arguments: read.argumentsText,
    });
    const outcome: ModelToolResult =
      'args' in read.run
        ? await toolbox.callForModel(read.name, read.run.args, options)
        : { ok: false, content: formatToolError(read.run.error), error: read.run.error };
    outcomes.push({
      name: read.name,
      arguments: read.argumentsText,
      call: read.call,
      outcome,
      message: { role: 'tool', tool_call_id: read.id ?? '', content: outcome.content },
    });
  }
  return outcomes;
}
