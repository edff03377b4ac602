import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { AnyHostToolDefinition, Namespace } from './tool.ts';
import { toolInputJsonSchema, toolOutputJsonSchema } from './tool-schemas.ts';
import { createToolbox, type ToolboxOptions } from './toolbox.ts';
import { VERSION } from './version.ts';

/**
 * Options of {@link createMcpServer}: the `uses` set, host tools, policy and how refusals name
 * policy options (a CLI passes its flags), plus the server's name.
 */
export interface McpServerOptions<
  NS extends Namespace,
  Host extends AnyHostToolDefinition = AnyHostToolDefinition,
> extends ToolboxOptions<NS, Host> {
  /** Server name reported to clients (default `class-assistant-agent-std`). */
  name?: string;
  /** Server version reported to clients (default: this package's version). */
  version?: string;
}

/**
 * An MCP server (Model Context Protocol, `@modelcontextprotocol/sdk`) exposing the tools of a
 * `uses` set and host tools under a policy. `tools/list` shows only the granted tools, each with
 * its title and annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
 * `openWorldHint`), which clients use to decide what to confirm; `tools/call` goes through the
 * toolbox, so undeclared or unknown tools and bad arguments come back as tool errors
 * (`isError: true`) with the same messages a model gets elsewhere. Record results are also sent
 * as `structuredContent`, described by an `outputSchema`.
 *
 * @example
 * const server = createMcpServer({ uses: ['std.time', 'std.math'] });
 * await server.connect(new StdioServerTransport());
 */
export function createMcpServer<
  const NS extends Namespace,
  const Host extends AnyHostToolDefinition = never,
>(options: McpServerOptions<NS, Host>): McpServer {
  const toolbox = createToolbox(options);
  const server = new McpServer(
    { name: options.name ?? 'class-assistant-agent-std', version: options.version ?? VERSION },
    { capabilities: { tools: {} } },
  );
  const listed = toolbox.tools.map((tool) => {
    const outputSchema = toolOutputJsonSchema(tool);
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: toolInputJsonSchema(tool) as { type: 'object' },
      ...(outputSchema ? { outputSchema: outputSchema as { type: 'object' } } : {}),
      annotations: { title: tool.title, ...tool.annotations },
    };
  });
  const records = new Set(listed.filter((tool) => tool.outputSchema).map((tool) => tool.name));
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
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
export async function serveMcpOverStdio<
  const NS extends Namespace,
  const Host extends AnyHostToolDefinition = never,
>(options: McpServerOptions<NS, Host>): Promise<McpServer> {
  const server = createMcpServer(options);
  await server.connect(new StdioServerTransport());
  return server;
}
