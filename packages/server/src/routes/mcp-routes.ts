import { join } from 'node:path';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CLASS_TOOL_NAMES } from '../agent/agent-constants.ts';
import { packageFile } from '../assets.ts';
import { packagedSelf } from '../audio/audio-child-process.ts';
import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import { createLecturesMcpServer, MCP_SERVER_NAME } from '../mcp/lectures-mcp-server.ts';
import { hasMcpToken, MCP_TOKEN_FILE } from '../mcp/mcp-token.ts';
import { errors } from './schemas.ts';

/** This backend's command (`class-assistant-backend`) with `args`. */
function backendCommand(args: string[]): { command: string; args: string[] } {
  // A single-file build is the backend itself; otherwise Node runs the package's bin.
  const self = packagedSelf();
  if (self) return { command: self.command, args: [...self.args, ...args] };
  return {
    command: process.execPath,
    args: [packageFile('bin/class-assistant-backend.js'), ...args],
  };
}

/** The command an MCP client starts for the same tools over stdio, on this data folder. */
function stdioCommand(dataDir: string): { command: string; args: string[] } {
  return backendCommand(['mcp', '--data-dir', dataDir]);
}

/** The command that prints the MCP token of this data folder (`class-assistant-backend mcp token`). */
function tokenCommand(dataDir: string): { command: string; args: string[] } {
  return backendCommand(['mcp', 'token', '--data-dir', dataDir]);
}

export const McpInfoSchema = z.object({
  status: z.literal('success'),
  name: z.string().describe('The server name MCP clients see.'),
  url: z.string().describe('The Streamable HTTP endpoint.'),
  token_file: z
    .string()
    .describe(
      'Where the token is kept (readable by its owner only). Send it as `Authorization: Bearer <token>`. The token itself is never served over HTTP: any program of any user of this computer can reach this port.',
    ),
  token_command: z
    .object({ command: z.string(), args: z.array(z.string()) })
    .describe('The command that prints the token (`class-assistant-backend mcp token`).'),
  stdio: z
    .object({ command: z.string(), args: z.array(z.string()) })
    .describe('The same tools over stdio, for clients that start a process.'),
  tools: z.array(z.object({ name: z.string(), title: z.string() })),
});

const JsonRpcErrorSchema = z.object({
  jsonrpc: z.literal('2.0'),
  error: z.object({ code: z.number().int(), message: z.string() }),
  id: z.null(),
});

const unauthorized = () =>
  new ServerError(
    'MCP_UNAUTHORIZED',
    localized(
      `/mcp 需要 Authorization: Bearer <令牌>：令牌在数据文件夹的 ${MCP_TOKEN_FILE} 文件中，命令 class-assistant-backend mcp token 会显示它。`,
      `/mcp needs Authorization: Bearer <token>: the token is in the ${MCP_TOKEN_FILE} file of the data folder; the command class-assistant-backend mcp token prints it.`,
    ),
    { hint: MCP_TOKEN_FILE },
  );

/**
 * The MCP server of the student's lectures over Streamable HTTP at `/mcp` (stateless: a new
 * server and transport per request), behind the Host/Origin guard of every route and the
 * bearer token; and `GET /api/mcp/connection`, what the settings panel shows to connect a
 * client.
 */
export const mcpRoutes: FastifyPluginAsyncZod = async (app) => {
  const services = app.classAssistant;

  app.get(
    '/api/mcp/connection',
    {
      schema: {
        tags: ['mcp'],
        summary: 'How to connect an MCP client to the lectures',
        description: `The address, where the token is and the command that prints it, and the stdio command of the MCP server of the student's lectures (the class tools, read-only). The token is made at the first start and kept in <data>/${MCP_TOKEN_FILE}, readable by its owner only; it is never in an answer, since every user of the computer can reach this port.`,
        response: { 200: McpInfoSchema, ...errors() },
      },
    },
    async () => ({
      status: 'success' as const,
      name: MCP_SERVER_NAME,
      url: `http://127.0.0.1:${services.port()}/mcp`,
      token_file: join(services.dataDir, MCP_TOKEN_FILE),
      token_command: tokenCommand(services.dataDir),
      stdio: stdioCommand(services.dataDir),
      tools: (await services.classTools()).map((tool) => ({ name: tool.name, title: tool.title })),
    }),
  );

  const schema = (method: string) => ({
    tags: ['mcp'],
    summary:
      method === 'POST'
        ? 'MCP server of the lectures (Streamable HTTP)'
        : `MCP: ${method} is not used by this stateless server (405)`,
    description: `The Model Context Protocol over Streamable HTTP: JSON-RPC in a POST. Stateless, so GET (a server-sent stream) and DELETE (ending a session) answer 405. Tools: ${CLASS_TOOL_NAMES.join(', ')} — read-only, with titles and annotations (readOnlyHint, openWorldHint false). Needs \`Authorization: Bearer <token>\` (the content of <data>/${MCP_TOKEN_FILE}, printed by \`class-assistant-backend mcp token\`): 401 MCP_UNAUTHORIZED without it; 403 from a foreign Origin or Host, like every route.`,
    headers: z.object({ authorization: z.string().optional() }),
    response: { ...errors(401), 405: JsonRpcErrorSchema },
  });

  const authorize = (authorization: string | undefined, reply: FastifyReply) => {
    if (hasMcpToken(authorization, services.mcpToken)) return;
    reply.header('www-authenticate', `Bearer realm="${MCP_SERVER_NAME}"`);
    throw unauthorized();
  };

  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      schema: schema(method),
      handler: async (request, reply) => {
        authorize(request.headers.authorization, reply);
        return reply
          .code(405)
          .header('allow', 'POST')
          .send({
            jsonrpc: '2.0' as const,
            error: { code: -32000, message: 'Method not allowed: this MCP server is stateless.' },
            id: null,
          });
      },
    });
  }

  app.post('/mcp', { schema: schema('POST') }, async (request, reply) => {
    authorize(request.headers.authorization, reply);
    const { StreamableHTTPServerTransport } = await import(
      '@modelcontextprotocol/sdk/server/streamableHttp.js'
    );
    const server = await createLecturesMcpServer(await services.classTools());
    // No session id generator: stateless. JSON answers rather than an event stream per call.
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    // The transport writes the response itself; the guard's CORS headers go along.
    for (const [name, value] of Object.entries(reply.getHeaders())) {
      if (value !== undefined) reply.raw.setHeader(name, value as string | number | string[]);
    }
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
};
