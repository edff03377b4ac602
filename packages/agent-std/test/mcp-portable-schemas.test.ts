// The schemas MCP clients get, as the official SDK client lists them over Streamable HTTP: no
// list of types anywhere (`"type": ["string", "null"]`), which the MCP Inspector's strict mode
// reports as not portable — every std tool, and a host tool with nullable inputs and outputs.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { z } from 'zod';
import { defineHostTool } from '../src/host-tool.ts';
import { createMcpServer } from '../src/mcp-server.ts';
import { NAMESPACES } from '../src/tool.ts';

/** Where in `schema` a `type` is a list, as paths such as `properties.note.type`. */
function typeLists(schema: unknown, path = ''): string[] {
  if (Array.isArray(schema)) {
    return schema.flatMap((entry, index) => typeLists(entry, `${path}[${index}]`));
  }
  if (typeof schema !== 'object' || schema === null) return [];
  return Object.entries(schema).flatMap(([key, value]) => [
    ...(key === 'type' && Array.isArray(value) ? [`${path}${path ? '.' : ''}type`] : []),
    ...typeLists(value, `${path}${path ? '.' : ''}${key}`),
  ]);
}

const lookUp = defineHostTool({
  name: 'term_look_up',
  title: 'Look up a term',
  description: 'Where a term was said, if it was.',
  inputSchema: z.object({
    term: z.string(),
    class_id: z.string().nullable().optional(),
    limit: z.number().int().min(1).nullable(),
  }),
  outputSchema: z.object({
    class_id: z.string().nullable(),
    line_id: z.number().int().min(0).nullable(),
    kind: z.enum(['line', 'page']).nullable(),
    hits: z.array(z.object({ text: z.string(), page: z.number().nullable() })),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  execute: async ({ term }) => ({
    class_id: null,
    line_id: term === 'heap' ? 3 : null,
    kind: null,
    hits: [{ text: term, page: null }],
  }),
});

let http: Server;
let client: Client;

beforeAll(async () => {
  const server = createMcpServer({ uses: [...NAMESPACES], tools: [lookUp] });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID });
  await server.connect(transport);
  http = createServer((request, response) => {
    void transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  client = new Client({ name: 'agent-std-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
});

afterAll(async () => {
  await client?.close();
  http?.closeAllConnections();
  await new Promise((resolve) => http?.close(resolve));
});

test('no input or output schema of any tool has a list of types', async () => {
  const { tools } = await client.listTools();
  expect(tools.length).toBeGreaterThan(30);
  const found = tools.flatMap((tool) => [
    ...typeLists(tool.inputSchema).map((path) => `${tool.name} input ${path}`),
    ...typeLists(tool.outputSchema ?? {}).map((path) => `${tool.name} output ${path}`),
  ]);
  expect(found).toEqual([]);
});

test('a nullable value is an anyOf with a null branch, its constraints in the other', async () => {
  const { tools } = await client.listTools();
  const tool = tools.find((entry) => entry.name === 'term_look_up');
  expect(tool?.inputSchema.properties?.limit).toEqual({
    anyOf: [{ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER }, { type: 'null' }],
  });
  expect(tool?.outputSchema?.properties?.class_id).toEqual({
    anyOf: [{ type: 'string' }, { type: 'null' }],
  });
  // The call's structured result still matches the schema the client was given (the SDK
  // client checks it against the output schema).
  const result = await client.callTool({
    name: 'term_look_up',
    arguments: { term: 'heap', limit: null },
  });
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent).toEqual({
    class_id: null,
    line_id: 3,
    kind: null,
    hits: [{ text: 'heap', page: null }],
  });
});
