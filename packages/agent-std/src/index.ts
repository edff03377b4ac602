export type {
  Agent,
  AgentDefinition,
  AgentErrorCode,
  AgentEvent,
  AgentRunOptions,
  AgentRunResult,
  AgentToolCallRecord,
} from './agent.ts';
export { AgentError, defineAgent, isAgentError } from './agent.ts';
export type { ToolErrorCode, ToolErrorOptions } from './errors.ts';
export { formatToolError, isToolError, TOOL_ERROR_CODES, ToolError } from './errors.ts';
export type { McpServerOptions } from './mcp-server.ts';
export { createMcpServer, serveMcpOverStdio } from './mcp-server.ts';
export type { OpenAIToolOutcome } from './openai-tools.ts';
export { runOpenAIToolCalls, toOpenAITools, toolInputJsonSchema } from './openai-tools.ts';
export type {
  AskHumanHandler,
  AskHumanRequest,
  HostResolver,
  ResolvedToolPolicy,
  ToolPolicy,
} from './policy.ts';
export { DEFAULT_TOOL_POLICY, resolveToolPolicy } from './policy.ts';
export type {
  StdToolName,
  StdTools,
  ToolInput,
  ToolNameIn,
  ToolParameters,
  ToolResult,
} from './registry.ts';
export { getTool, isNamespace, STD_TOOLS, TOOLS_BY_NAMESPACE } from './registry.ts';
export type {
  AgentDeclaration,
  AgentField,
  AgentScript,
  Constant as AgentScriptConstant,
  Contract as AgentScriptContract,
  Decorator as AgentScriptDecorator,
  Expression as AgentScriptExpression,
  FlowDeclaration,
  FStringPart,
  FunctionDeclaration as AgentScriptFunction,
  MatchArm as AgentScriptMatchArm,
  OtherDeclaration as AgentScriptOtherDeclaration,
  Parameter as AgentScriptParameter,
  Pattern as AgentScriptPattern,
  ProtocolDeclaration,
  ScriptDialect,
  Statement as AgentScriptStatement,
  TestDeclaration as AgentScriptTest,
  ToolDeclaration as AgentScriptTool,
  TypeExpression as AgentScriptType,
  UseReference as AgentScriptUse,
} from './script/ast.ts';
export type { UnsupportedUse } from './script/check.ts';
export { unsupportedUses } from './script/check.ts';
export type { LoadAgentScriptOptions } from './script/load.ts';
export { loadAgentScript } from './script/load.ts';
export type { ParseAgentScriptOptions } from './script/parse.ts';
export { AGENT_FIELDS, dialectOf, parseAgentScript } from './script/parse.ts';
export type { AgentScriptResult, AgentScriptRunOptions } from './script/run.ts';
export { DEFAULT_SCRIPT_LIMITS, runAgentScript } from './script/run.ts';
export type {
  AgentScriptErrorCode,
  Position as AgentScriptPosition,
} from './script/script-error.ts';
export { AgentScriptError, isAgentScriptError } from './script/script-error.ts';
export type { ScriptValue } from './script/values.ts';
export type { AnyToolDefinition, Namespace, ToolContext, ToolDefinition } from './tool.ts';
export { defineTool, NAMESPACES } from './tool.ts';
export type { ModelToolResult, Toolbox, ToolboxOptions, ToolCallOptions } from './toolbox.ts';
export { createToolbox, formatToolResult } from './toolbox.ts';
export type { ExactJsonValue, RawJsonNumber } from './tools/exact-json.ts';
export { isRawJsonNumber } from './tools/exact-json.ts';
export { SHELL_ENV_KEPT } from './tools/shell.ts';
export { checkShellCommand, DENY_RULES as SHELL_DENY_RULES } from './tools/shell-guard.ts';
export { VERSION } from './version.ts';
