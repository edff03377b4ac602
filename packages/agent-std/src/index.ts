// The main entry: the tools, toolboxes, host tools, policies and errors. It loads neither the
// OpenAI SDK nor the MCP SDK; the adapters live in `./openai`, `./mcp` and `./agent`.
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
  AgentScript,
  AgentScriptErrorCode,
  Expression as AgentScriptExpression,
  FlowDeclaration,
  FStringPart,
  Position as AgentScriptPosition,
  Statement as AgentScriptStatement,
} from './script/parse.ts';
export { AgentScriptError, isAgentScriptError, parseAgentScript } from './script/parse.ts';
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
export { SHELL_ENV_KEPT } from './tools/shell.ts';
export { checkShellCommand, DENY_RULES as SHELL_DENY_RULES } from './tools/shell-guard.ts';
export { VERSION } from './version.ts';
