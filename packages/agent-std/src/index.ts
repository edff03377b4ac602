export type { ToolErrorCode, ToolErrorOptions } from './errors.ts';
export { formatToolError, isToolError, TOOL_ERROR_CODES, ToolError } from './errors.ts';
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
export type { AnyToolDefinition, Namespace, ToolContext, ToolDefinition } from './tool.ts';
export { defineTool, NAMESPACES } from './tool.ts';
export type { ModelToolResult, Toolbox, ToolboxOptions, ToolCallOptions } from './toolbox.ts';
export { createToolbox, formatToolResult } from './toolbox.ts';
