import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageToolCall,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import { z } from 'zod';
import { formatToolError, ToolError } from './errors.ts';
import type { AnyToolDefinition } from './tool.ts';
import type { ModelToolResult, Toolbox, ToolCallOptions } from './toolbox.ts';

/**
 * The JSON Schema of a tool's arguments, as models see it (generated from the zod schema:
 * `additionalProperties: false`, defaults shown, defaulted arguments optional).
 */
export function toolInputJsonSchema(tool: AnyToolDefinition): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(tool.inputSchema, { io: 'input' });
  return schema;
}

/**
 * The tools as OpenAI function-calling definitions, for `chat.completions.create({ tools })`.
 * Pass `toolbox.tools` so the model is only ever offered what `uses` declares.
 *
 * @example
 * const toolbox = createToolbox({ uses: ['std.time', 'std.math'] });
 * const completion = await openai.chat.completions.create({
 *   model: 'gpt-4o-mini',
 *   messages,
 *   tools: toOpenAITools(toolbox.tools),
 * });
 */
export function toOpenAITools(tools: readonly AnyToolDefinition[]): ChatCompletionFunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: toolInputJsonSchema(tool),
    },
  }));
}

/** A tool message for the conversation, plus what happened (for logging). */
export interface OpenAIToolOutcome {
  message: ChatCompletionToolMessageParam;
  name: string;
  outcome: ModelToolResult;
}

/**
 * Runs the tool calls of an assistant message through the toolbox, in order, and returns the
 * `role: 'tool'` messages to append. Undeclared, unknown or forged tools and malformed JSON
 * arguments never run: the model gets an error message it can act on instead.
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
  options: ToolCallOptions = {},
): Promise<OpenAIToolOutcome[]> {
  const outcomes: OpenAIToolOutcome[] = [];
  for (const call of toolCalls) {
    let name: string;
    let outcome: ModelToolResult;
    if (call.type === 'function') {
      name = call.function.name;
      outcome = await toolbox.callForModel(name, call.function.arguments, options);
    } else {
      name = call.custom.name;
      const error = new ToolError(
        'TOOL_UNKNOWN',
        `custom tool calls are not supported; call ${name} as a function`,
        { tool: name },
      );
      outcome = { ok: false, content: formatToolError(error), error };
    }
    outcomes.push({
      name,
      outcome,
      message: { role: 'tool', tool_call_id: call.id, content: outcome.content },
    });
  }
  return outcomes;
}
