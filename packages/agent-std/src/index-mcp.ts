// `@class-assistant/agent-std/mcp`: the MCP server. Needs `@modelcontextprotocol/sdk`.
export type { McpServerOptions } from './mcp-server.ts';
export { createMcpServer, serveMcpOverStdio } from './mcp-server.ts';
