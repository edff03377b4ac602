import type { AgentRunResult } from './agent.ts';

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
