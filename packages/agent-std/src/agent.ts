import OpenAI, { APIError } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import { AgentError } from './agent-error.ts';
import { readToolCall, runOpenAIToolCalls, toOpenAITools } from './openai-tools.ts';
import type { ToolPolicy } from './policy.ts';
import type { DescribePolicyOption } from './policy-options.ts';
import type { AnyHostToolDefinition, Namespace } from './tool.ts';
import { createToolbox, type Toolbox } from './toolbox.ts';
import type { ToolSemantics } from './tools/nexa-tools.ts';

export { AgentError, isAgentError } from './agent-error.ts';

/** What an agent is: `agent <Name> uses <ns>, … { role, prompt, model }` in an agent file. */
export interface AgentDefinition<
  NS extends Namespace = Namespace,
  Host extends AnyHostToolDefinition = AnyHostToolDefinition,
> {
  name: string;
  uses: readonly NS[];
  /** Your own tools (made with `defineHostTool`), offered beside the namespaces' tools. */
  tools?: readonly Host[];
  role: string;
  prompt: string;
  /** The model to use; when absent, `run`'s `model` option decides. */
  model?: string | undefined;
}

/** One tool call made during a run. */
export interface AgentToolCallRecord {
  step: number;
  id: string;
  name: string;
  /** The arguments exactly as the model sent them (possibly invalid JSON). */
  arguments: string;
  ok: boolean;
  /** What the model was told. */
  content: string;
  /** The error code when the call failed. */
  code?: string;
}

/** A tool call about to run (see {@link AgentRunOptions.onToolStart}). */
export interface AgentToolStart {
  agent: string;
  step: number;
  id: string;
  name: string;
  /** The arguments as the model sent them. */
  arguments: string;
}

/** What {@link Agent.run} resolves to. */
export interface AgentRunResult {
  /** The model's final answer. */
  text: string;
  /** Model calls made. */
  steps: number;
  /** Every tool call, in order, including refused ones. */
  toolCalls: AgentToolCallRecord[];
  /** The whole conversation, system message first. */
  messages: ChatCompletionMessageParam[];
  /** `finish_reason` of the last model call. */
  finishReason: string | null;
}

/** Progress of a run, for logs and UIs: each model call, each tool call done, the answer. */
export type AgentEvent =
  | { type: 'model-call'; agent: string; step: number }
  | ({ type: 'tool-call'; agent: string } & AgentToolCallRecord)
  | { type: 'answer'; agent: string; step: number; text: string };

/** Options of {@link Agent.run}. */
export interface AgentRunOptions {
  /** Base URL of any OpenAI-compatible API, e.g. `http://localhost:11434/v1`. */
  baseURL?: string | undefined;
  /** API key for that endpoint. */
  apiKey?: string | undefined;
  /** The model, used when the agent declares none. */
  model?: string | undefined;
  /** Your own client instead of `baseURL`/`apiKey`. */
  client?: OpenAI;
  /**
   * The `fetch` the model client sends its requests with (default: the global one). Pass a
   * client of your own, for instance one over `node:http`: the HTTP/1 client bundled with
   * Node.js 24 can crash the process when a server closes a connection while an answer waits
   * under backpressure.
   */
  fetch?: typeof fetch;
  /** Most model calls in one run (default 16). */
  maxSteps?: number;
  /** Longest run, model and tool calls together, in milliseconds (default 300 000). */
  timeBudgetMs?: number;
  /** Aborts the run (`AGENT_ABORTED`), including a tool call in progress. */
  signal?: AbortSignal;
  /** Tool policy for this run (the safe defaults otherwise). */
  policy?: ToolPolicy;
  /**
   * How refusals name policy options, for whoever runs the agent (default: the library's names,
   * such as `policy.http.allowPrivateNetwork`); see `createToolbox`.
   */
  describePolicyOption?: DescribePolicyOption;
  /**
   * The meaning of the std tools in this run (default `'js'`); `'nexa'` is what Nexa's
   * built-ins mean, as the runner of Nexa scripts uses (see `createToolbox`).
   */
  semantics?: ToolSemantics;
  /**
   * Offer the tools with strict schemas (default `false`; see `toOpenAITools`). Use it with
   * endpoints that support OpenAI's strict function calling.
   */
  strict?: boolean;
  /** Retries of failed model requests by the OpenAI SDK (default 2). */
  maxRetries?: number;
  /** Called for every model call, tool call (once done) and the answer. */
  onEvent?: (event: AgentEvent) => void;
  /**
   * Called as each tool call starts, before it runs (its `tool-call` event follows when it is
   * done): for showing a call while it runs.
   */
  onToolStart?: (call: AgentToolStart) => void;
  /** Sampling temperature sent with every model call (the endpoint's default otherwise). */
  temperature?: number;
  /** Most tokens per model answer (`max_tokens`; the endpoint's default otherwise). */
  maxTokens?: number;
  /**
   * An earlier conversation to continue: messages placed between the system message and the
   * instruction (for instance `result.messages.slice(1)` of the previous run).
   */
  history?: readonly ChatCompletionMessageParam[];
}

/** A runnable agent. */
export interface Agent<
  NS extends Namespace = Namespace,
  Host extends AnyHostToolDefinition = AnyHostToolDefinition,
> {
  readonly name: string;
  readonly uses: readonly NS[];
  /** The host tools it offers beside its namespaces. */
  readonly tools: readonly Host[];
  readonly role: string;
  readonly prompt: string;
  readonly model: string | undefined;
  /** The system message sent to the model. */
  readonly systemMessage: string;
  /**
   * Runs the tool-calling loop: sends the instruction with the declared tools, executes the tool
   * calls the model makes (refusing undeclared or malformed ones with an error message to the
   * model), and repeats until the model answers without calling tools.
   */
  run(instruction: string, options?: AgentRunOptions): Promise<AgentRunResult>;
}

/** `AGENT_CONFIG` for agent `name`, saying what was wrong with its tools or options. */
function configError(name: string, cause: unknown): AgentError {
  return new AgentError(
    'AGENT_CONFIG',
    name,
    `agent ${name}: ${cause instanceof Error ? cause.message : String(cause)}`,
    { cause },
  );
}

const DEFAULT_MAX_STEPS = 16;
const DEFAULT_TIME_BUDGET_MS = 300_000;

/**
 * Defines an agent: a name, the namespaces it `uses` and host `tools` it may call, a role and a
 * prompt (together the system message: `Role: <role>` then the prompt), and optionally a model.
 * Host tools run like the standard ones: under the run's policy, time budget and signal, their
 * calls in the events and `toolCalls`.
 *
 * @example
 * const Clock = defineAgent({
 *   name: 'Clock',
 *   uses: ['std.time'],
 *   role: 'a precise timekeeper',
 *   prompt: 'Answer questions about dates and times using your tools.',
 * });
 * const { text } = await Clock.run('How many days until 2030-01-01?', {
 *   baseURL: 'http://localhost:11434/v1',
 *   apiKey: 'ollama',
 *   model: 'qwen2.5',
 * });
 */
export function defineAgent<
  const NS extends Namespace,
  const Host extends AnyHostToolDefinition = never,
>(definition: AgentDefinition<NS, Host>): Agent<NS, Host> {
  const { name, role, prompt } = definition;
  if (typeof name !== 'string' || name.trim() === '') {
    throw new AgentError('AGENT_CONFIG', String(name), 'an agent needs a name');
  }
  if (typeof role !== 'string' || typeof prompt !== 'string') {
    throw new AgentError('AGENT_CONFIG', name, `agent ${name} needs a role and a prompt (strings)`);
  }
  try {
    // Validates `uses` and the tools now, so a typo fails at definition, not at the first run.
    createToolbox({
      uses: definition.uses,
      ...(definition.tools ? { tools: definition.tools } : {}),
    });
  } catch (cause) {
    throw configError(name, cause);
  }
  const uses = Object.freeze([...definition.uses]);
  const tools = Object.freeze([...(definition.tools ?? [])]);
  const systemMessage = [role.trim() ? `Role: ${role.trim()}` : '', prompt.trim()]
    .filter(Boolean)
    .join('\n\n');

  return Object.freeze({
    name,
    uses,
    tools,
    role,
    prompt,
    model: definition.model,
    systemMessage,
    run: (instruction: string, options: AgentRunOptions = {}) =>
      runAgent({ name, uses, tools, model: definition.model, systemMessage }, instruction, options),
  });
}

async function runAgent(
  agent: {
    name: string;
    uses: readonly Namespace[];
    tools: readonly AnyHostToolDefinition[];
    model: string | undefined;
    systemMessage: string;
  },
  instruction: string,
  options: AgentRunOptions,
): Promise<AgentRunResult> {
  const { name } = agent;
  const model = agent.model ?? options.model;
  if (!model) {
    throw new AgentError(
      'AGENT_CONFIG',
      name,
      `agent ${name} has no model: declare one or pass the model option (LLM_MODEL)`,
    );
  }
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const budget = options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) {
    throw new AgentError(
      'AGENT_CONFIG',
      name,
      `maxSteps must be a positive integer, got ${maxSteps}`,
    );
  }
  if (!(budget > 0)) {
    throw new AgentError('AGENT_CONFIG', name, `timeBudgetMs must be positive, got ${budget}`);
  }
  let toolbox: Toolbox;
  try {
    toolbox = createToolbox({
      uses: agent.uses,
      tools: agent.tools,
      ...(options.policy ? { policy: options.policy } : {}),
      ...(options.describePolicyOption
        ? { describePolicyOption: options.describePolicyOption }
        : {}),
      ...(options.semantics ? { semantics: options.semantics } : {}),
    });
  } catch (cause) {
    throw new AgentError('AGENT_CONFIG', name, `agent ${name}: ${String(cause)}`, { cause });
  }
  let client: OpenAI;
  try {
    client =
      options.client ??
      new OpenAI({
        ...(options.baseURL ? { baseURL: options.baseURL } : {}),
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        maxRetries: options.maxRetries ?? 2,
        timeout: budget,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
  } catch (cause) {
    throw new AgentError(
      'AGENT_CONFIG',
      name,
      `cannot create the model client: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }

  const budgetSignal = AbortSignal.timeout(budget);
  const signal = options.signal ? AbortSignal.any([options.signal, budgetSignal]) : budgetSignal;
  let tools: ReturnType<typeof toOpenAITools>;
  try {
    tools = toOpenAITools(toolbox, { strict: options.strict === true });
  } catch (cause) {
    throw configError(name, cause);
  }
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: agent.systemMessage },
    ...(options.history ?? []),
    { role: 'user', content: instruction },
  ];
  const toolCalls: AgentToolCallRecord[] = [];
  let finishReason: string | null = null;
  let steps = 0;
  const partial = (): AgentRunResult => ({
    text: '',
    steps,
    toolCalls: [...toolCalls],
    messages: [...messages],
    finishReason,
  });
  const stopped = (cause?: unknown): AgentError =>
    options.signal?.aborted
      ? new AgentError('AGENT_ABORTED', name, `agent ${name} was aborted`, {
          partial: partial(),
          cause,
        })
      : new AgentError(
          'AGENT_TIME_BUDGET',
          name,
          `agent ${name} ran out of its ${budget} ms time budget`,
          { partial: partial(), cause },
        );

  for (steps = 1; steps <= maxSteps; steps++) {
    if (signal.aborted) throw stopped();
    options.onEvent?.({ type: 'model-call', agent: name, step: steps });
    let completion: ChatCompletion;
    try {
      completion = await client.chat.completions.create(
        {
          model,
          messages,
          ...(tools.length ? { tools, tool_choice: 'auto' as const } : {}),
          ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
          ...(options.maxTokens !== undefined ? { max_tokens: options.maxTokens } : {}),
        },
        { signal },
      );
    } catch (cause) {
      if (signal.aborted) throw stopped(cause);
      const status = cause instanceof APIError ? cause.status : undefined;
      const reason = cause instanceof Error ? cause.message : String(cause);
      throw new AgentError(
        'AGENT_LLM_FAILED',
        name,
        `the model endpoint failed${status ? ` (HTTP ${status})` : ''}: ${reason}`,
        { status, partial: partial(), cause },
      );
    }
    const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
    if (!choice?.message) {
      throw new AgentError(
        'AGENT_LLM_FAILED',
        name,
        'the model endpoint answered without a message (not an OpenAI-compatible chat completion)',
        { partial: partial() },
      );
    }
    finishReason = choice.finish_reason ?? null;
    const message = choice.message;
    const given: unknown = message.tool_calls;
    if (given !== undefined && given !== null && !Array.isArray(given)) {
      throw new AgentError(
        'AGENT_LLM_FAILED',
        name,
        'the model endpoint answered with tool_calls is not a list (not an OpenAI-compatible chat completion)',
        { partial: partial() },
      );
    }
    const calls = (given ?? []) as ChatCompletionMessageToolCall[];
    if (calls.length === 0) {
      const text = message.content ?? '';
      messages.push({ role: 'assistant', content: text });
      options.onEvent?.({ type: 'answer', agent: name, step: steps, text });
      return { text, steps, toolCalls, messages, finishReason };
    }
    // Each call needs its id: the tool message answering it is addressed by it.
    const read = calls.map(readToolCall);
    const unaddressed = read.findIndex((call) => call.id === undefined);
    if (unaddressed !== -1) {
      throw new AgentError(
        'AGENT_LLM_FAILED',
        name,
        `the model endpoint sent tool call ${unaddressed + 1} with no id, so no answer can be addressed to it (not an OpenAI-compatible chat completion)`,
        { partial: partial() },
      );
    }
    // The history gets complete calls (`type`, `arguments`), whatever the server left out.
    messages.push({
      role: 'assistant',
      content: message.content ?? null,
      tool_calls: read.map((call) => call.call),
    });
    const outcomes = await runOpenAIToolCalls(toolbox, calls, {
      signal,
      onToolCallStart: (call) => options.onToolStart?.({ agent: name, step: steps, ...call }),
    });
    outcomes.forEach(({ message: reply, name: toolName, outcome, arguments: args }) => {
      const record: AgentToolCallRecord = {
        step: steps,
        id: reply.tool_call_id,
        name: toolName,
        arguments: args,
        ok: outcome.ok,
        content: outcome.content,
        ...(outcome.ok ? {} : { code: outcome.error.code }),
      };
      toolCalls.push(record);
      messages.push(reply);
      options.onEvent?.({ type: 'tool-call', agent: name, ...record });
    });
    if (signal.aborted) throw stopped();
  }
  steps = maxSteps;
  throw new AgentError(
    'AGENT_STEP_LIMIT',
    name,
    `agent ${name} still called tools after ${maxSteps} steps (maxSteps)`,
    { partial: partial() },
  );
}
