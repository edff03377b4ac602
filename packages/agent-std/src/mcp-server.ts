import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { toolInputJsonSchema } from './openai-tools.ts';
import type { AnyToolDefinition, Namespace } from './tool.ts';
import { createToolbox, type ToolboxOptions } from './toolbox.ts';
import { VERSION } from './version.ts';

/** Options of {@link createMcpServer}: the `uses` set and policy, plus the server's name. */
export interface McpServerOptions<NS extends Namespace> extends ToolboxOptions<NS> {
  /** Server name reported to clients (default `class-assistant-agent-std`). */
  name?: string;
}

function outputJsonSchema(tool: AnyToolDefinition): Record<string, unknown> | undefined {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(tool.outputSchema, { io: 'output' });
  return schema.type === 'object' ? schema : undefined;
}

/**
 * An MCP server (Model Context Protocol, `@modelcontextprotocol/sdk`) exposing the tools of a
 * `uses` set under a policy. `tools/list` shows only the declared tools; `tools/call` goes through
 * the toolbox, so undeclared or unknown tools and bad arguments come back as tool errors
 * (`isError: true`) with the same messages a model gets elsewhere. Record results are also sent as
 * `structuredContent`, described by an `outputSchema`.
 *
 * @example
 * const server = createMcpServer({ uses: ['std.time', 'std.math'] });
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer<const NS extends Namespace>(
  options: McpServerOptions<NS>,
): McpServer {
  const toolbox = createToolbox(options);
  const server = new McpServer(
    { name: options.name ?? 'class-assistant-agent-std', version: VERSION },
    { capabilities: { tools: {} } },
  );
  const records = new Set<string>(
    toolbox.tools.filter((tool) => outputJsonSchema(tool) !== undefined).map((tool) => tool.name),
  );
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: toolbox.tools.map((tool) => {
      const outputSchema = outputJsonSchema(tool);
      return {
        name: tool.name,
        description: tool.description,
        inputSchema: toolInputJsonSchema(tool) as { type: 'object' },
        ...(outputSchema ? { outputSchema: outputSchema as { type: 'object' } } : {}),
      };
    }),
  }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const reply = await toolbox.callForModel(request.params.name, request.params.arguments ?? {}, {
      signal: extra.signal,
    });
    const content = [{ type: 'text' as const, text: reply.content }];
    if (!reply.ok) return { content, isError: true };
    return records.has(request.params.name)
      ? { content, structuredContent: reply.result as Record<string, unknown> }
      : { content };
  });
  return server;
}

/**
 * Starts {@link createMcpServer} on stdin/stdout (what MCP clients such as Claude Desktop spawn).
 * Resolves once connected; the process then serves until stdin closes.
 */
export async function serveMcpOverStdio<const NS extends Namespace>(
  options: McpServerOptions<NS>,
): Promise<McpServer> {
  const server = createMcpServer(options);
  await server.connect(new StdioServerTransport());
  return server;
}
