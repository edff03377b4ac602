// `@class-assistant/agent-std/openai`: the OpenAI function-calling adapter. It imports only types
// of the `openai` package (install `openai` for them); nothing of it runs.
export type {
  OpenAIToolOutcome,
  OpenAIToolsOptions,
  ReadToolCall,
  RunOpenAIToolCallsOptions,
} from './openai-tools.ts';
export {
  readToolCall,
  runOpenAIToolCalls,
  toOpenAITools,
  toolStrictJsonSchema,
} from './openai-tools.ts';
export { STRICT_STRING_FORMATS } from './strict-schema.ts';
