// `@class-assistant/agent-std/agent`: runnable agents and agent scripts. Needs `openai`.
export type {
  Agent,
  AgentDefinition,
  AgentEvent,
  AgentRunOptions,
  AgentRunResult,
  AgentToolCallRecord,
  AgentToolStart,
} from './agent.ts';
export { defineAgent } from './agent.ts';
export type { AgentErrorCode } from './agent-error.ts';
export { AgentError, isAgentError } from './agent-error.ts';
export type { AgentScriptResult, AgentScriptRunOptions } from './script/run.ts';
export { DEFAULT_SCRIPT_LIMITS, runAgentScript } from './script/run.ts';
