// The MCP server of the student's lectures: the class tools for other agents (Claude Desktop,
// Cursor, VS Code…), read-only, each with its title and annotations. The same server answers
// over Streamable HTTP at /mcp and over stdio (`class-assistant-backend mcp`).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ClassTools } from '../agent/class-tools.ts';
import { SERVER_VERSION } from '../version.ts';

/** The name the server reports to MCP clients. */
export const MCP_SERVER_NAME = 'class-assistant';

/**
 * A new MCP server offering the class tools and nothing else (no std namespaces). The MCP
 * adapter of agent-std and the SDK are loaded on first use: a backend nobody connects to
 * never loads them.
 *
 * @example
 * const server = await createLecturesMcpServer(createClassTools(lectures));
 * await server.connect(transport);
 */
export async function createLecturesMcpServer(tools: ClassTools): Promise<McpServer> {
  const { createMcpServer } = await import('@class-assistant/agent-std/mcp');
  return createMcpServer({ uses: [], tools, name: MCP_SERVER_NAME, version: SERVER_VERSION });
}
