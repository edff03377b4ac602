import OpenAI, { APIError } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import { readToolCall, runOpenAIToolCalls, toOpenAITools } from './openai-tools.ts';
import type { ToolPolicy } from './policy.ts';
import type { Namespace } from './tool.ts';
import { createToolbox, type Toolbox } from './toolbox.ts';

/**
 * Stable codes of {@link AgentError}.
 * - `AGENT_CONFIG`: the agent or run options are unusable (no model, bad `uses`, no API key, …).
 * - `AGENT_STEP_LIMIT`: the model still wanted tools after `maxSteps` model calls.
 * - `AGENT_TIME_BUDGET`: the run took longer than `timeBudgetMs`.
 * - `AGENT_ABORTED`: the caller's `AbortSignal` fired.
 * - `AGENT_LLM_FAILED`: the model endpoint failed (HTTP error, bad response, network).
 */
export type AgentErrorCode =
  | 'AGENT_CONFIG'
  | 'AGENT_STEP_LIMIT'
  | 'AGENT_TIME_BUDGET'
  | 'AGENT_ABORTED'
  | 'AGENT_LLM_FAILED';

const marker = Symbol.for('@class-assistant/agent-std/AgentError');

/** The error `Agent.run` fails with. `partial` holds what happened up to the failure. */
export class AgentError extends Error {
  readonly code: AgentErrorCode;
  readonly agent: string;
  /** HTTP status of the model endpoint, for `AGENT_LLM_FAILED`. */
  readonly status: number | undefined;
  readonly partial: AgentRunResult | undefined;
  readonly [marker] = true;

  constructor(
    code: AgentErrorCode,
    agent: string,
    message: string,
    options: { status?: number | undefined; partial?: AgentRunResult; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AgentError';
    this.code = code;
    this.agent = agent;
    this.status = options.status;
    this.partial = options.partial;
  }
}

/** True for an {@link AgentError} (also from another copy of this package). */
export function isAgentError(error: unknown): error is AgentError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { [marker]?: unknown })[marker] === true
  );
}

/** What an agent is: `agent <Name> uses <ns>, … { role, prompt, model }` in an agent file. */
export interface AgentDefinition<NS extends Namespace = Namespace> {
  name: string;
  uses: readonly NS[];
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

/** Progress of a run, for logs and UIs. */
export type AgentEvent =
  | { type: 'model-call'; agent: string; step: number }
  | ({ type: 'tool-call'; agent: string } & AgentToolCallRecord)
  | { type: 'answer'; agent: string; step: number; text: string };

/** Options of {@link Agent.run}. */
export interface AgentRunOptions {
  /** Base URL of any OpenAI-compatible API, e.g. `http://localhost:11434/v1`. */
  baseURL?: string;
  /** API key for that endpoint. */
  apiKey?: string;
  /** The model, used when the agent declares none. */
  model?: string;
  /** Your own client instead of `baseURL`/`apiKey`. */
  client?: OpenAI;
  /** Most model calls in one run (default 16). */
  maxSteps?: number;
  /** Longest run, model and tool calls together, in milliseconds (default 300 000). */
  timeBudgetMs?: number;
  /** Aborts the run (`AGENT_ABORTED`), including a tool call in progress. */
  signal?: AbortSignal;
  /** Tool policy for this run (the safe defaults otherwise). */
  policy?: ToolPolicy;
  /** Retries of failed model requests by the OpenAI SDK (default 2). */
  maxRetries?: number;
  /** Called for every model call, tool call and the answer. */
  onEvent?: (event: AgentEvent) => void;
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
export interface Agent<NS extends Namespace = Namespace> {
  readonly name: string;
  readonly uses: readonly NS[];
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

export const DEFAULT_MAX_STEPS = 16;
export const DEFAULT_TIME_BUDGET_MS = 300_000;

/**
 * Defines an agent: a name, the namespaces it `uses`, a role and a prompt (together the system
 * message: `Role: <role>` then the prompt), and optionally a model.
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
export function defineAgent<const NS extends Namespace>(
  definition: AgentDefinition<NS>,
): Agent<NS> {
  const { name, role, prompt } = definition;
  if (typeof name !== 'string' || name.trim() === '') {
    throw new AgentError('AGENT_CONFIG', String(name), 'an agent needs a name');
  }
  if (typeof role !== 'string' || typeof prompt !== 'string') {
    throw new AgentError('AGENT_CONFIG', name, `agent ${name} needs a role and a prompt (strings)`);
  }
  try {
    // Validates `uses` now, so a typo fails at definition rather than at the first run.
    createToolbox({ uses: definition.uses });
  } catch (cause) {
    throw new AgentError(
      'AGENT_CONFIG',
      name,
      `agent ${name}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
  const uses = Object.freeze([...definition.uses]);
  const systemMessage = [role.trim() ? `Role: ${role.trim()}` : '', prompt.trim()]
    .filter(Boolean)
    .join('\n\n');

  return Object.freeze({
    name,
    uses,
    role,
    prompt,
    model: definition.model,
    systemMessage,
    run: (instruction: string, options: AgentRunOptions = {}) =>
      runAgent({ name, uses, model: definition.model, systemMessage }, instruction, options),
  });
}

async function runAgent(
  agent: {
    name: string;
    uses: readonly Namespace[];
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
      ...(options.policy ? { policy: options.policy } : {}),
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
  const tools = toOpenAITools(toolbox.tools);
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
    const outcomes = await runOpenAIToolCalls(toolbox, calls, { signal });
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
