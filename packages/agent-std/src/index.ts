// The main entry: the tools, toolboxes, host tools, policies, errors and agent-script parsing. It
// loads neither the OpenAI SDK nor the MCP SDK; the adapters live in `./openai`, `./mcp` and
// `./agent` (which also runs agent scripts).
export type { ToolErrorCode, ToolErrorOptions } from './errors.ts';
export { formatToolError, isToolError, TOOL_ERROR_CODES, ToolError } from './errors.ts';
export type { HostToolOptions } from './host-tool.ts';
export { defineHostTool, isHostTool } from './host-tool.ts';
export type {
  AskHumanHandler,
  AskHumanRequest,
  HostResolver,
  ResolvedToolPolicy,
  ToolPolicy,
} from './policy.ts';
export { DEFAULT_TOOL_POLICY, resolveToolPolicy } from './policy.ts';
export type { DescribePolicyOption, PolicyOption } from './policy-options.ts';
export { POLICY_OPTIONS, renamePolicyOptions } from './policy-options.ts';
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
export type {
  AgentScriptErrorCode,
  Position as AgentScriptPosition,
} from './script/script-error.ts';
export { AgentScriptError, isAgentScriptError } from './script/script-error.ts';
export type { ScriptValue } from './script/values.ts';
export type { JsonSchema } from './strict-schema.ts';
export type {
  AnyHostToolDefinition,
  AnyToolDefinition,
  HostToolDefinition,
  Namespace,
  ToolAnnotations,
  ToolContext,
  ToolDefinition,
  ToolSpec,
} from './tool.ts';
export { defineTool, HOST_NAMESPACE, NAMESPACES, PURE_TOOL } from './tool.ts';
export { toolInputJsonSchema, toolOutputJsonSchema } from './tool-schemas.ts';
export type {
  ModelToolResult,
  Toolbox,
  ToolboxInput,
  ToolboxOptions,
  ToolboxResult,
  ToolboxToolName,
  ToolCallOptions,
} from './toolbox.ts';
export { createToolbox, formatToolResult } from './toolbox.ts';
export type { ExactJsonValue, RawJsonNumber } from './tools/exact-json.ts';
export { isRawJsonNumber } from './tools/exact-json.ts';
export type { ToolSemantics } from './tools/nexa-tools.ts';
export { SHELL_ENV_KEPT } from './tools/shell.ts';
export { checkShellCommand, DENY_RULES as SHELL_DENY_RULES } from './tools/shell-guard.ts';
export { VERSION } from './version.ts';
