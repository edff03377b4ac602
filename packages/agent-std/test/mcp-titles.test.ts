// Titles, annotations and refusals as MCP clients see them, with the official SDK client: over
// stdio from `class-agent mcp` (refusals name its flags), and over Streamable HTTP from
// `createMcpServer` with host tools (what a backend embeds; refusals name library options).
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { ToolError } from '../src/errors.ts';
import { defineHostTool } from '../src/host-tool.ts';
import { createMcpServer } from '../src/mcp-server.ts';
import { STD_TOOLS, type StdToolName } from '../src/registry.ts';

const bin = fileURLToPath(new URL('../bin/class-agent.js', import.meta.url));
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'agent-std-mcp-titles-'));
  await writeFile(join(root, 'big.txt'), 'x'.repeat(100));
  await writeFile(join(root, 'policy.json'), JSON.stringify({ fs: { maxReadBytes: 10 } }));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function stdioClient(args: string[]): Promise<Client> {
  const client = new Client({ name: 'agent-std-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp', ...args],
      env: { PATH: process.env.PATH ?? '' },
      cwd: root,
      stderr: 'pipe',
    }),
  );
  return client;
}

describe('class-agent mcp', () => {
  let client: Client;
  beforeAll(async () => {
    client = await stdioClient([
      '--uses',
      'std.fs,std.http,std.time,std.json,std.text,std.hash,std.math,std.regex,std.shell,std.ask_human',
      '--root',
      root,
      '--policy',
      'policy.json',
    ]);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  test('lists all 33 tools with their titles and all four annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(33);
    for (const tool of tools) {
      const definition = STD_TOOLS[tool.name as StdToolName];
      expect(tool.title, tool.name).toBe(definition.title);
      expect(tool.annotations, tool.name).toEqual({
        title: definition.title,
        ...definition.annotations,
      });
    }
    const hints = (name: string) => {
      const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } =
        tools.find((tool) => tool.name === name)?.annotations ?? {};
      return { readOnlyHint, destructiveHint, idempotentHint, openWorldHint };
    };
    expect(hints('file_read')).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    // Overwriting destroys; appending only adds, but twice appends twice.
    expect(hints('file_write')).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(hints('file_append')).toMatchObject({ destructiveHint: false, idempotentHint: false });
    expect(hints('http_get')).toMatchObject({ readOnlyHint: true, openWorldHint: true });
    expect(hints('http_post')).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    expect(hints('time_now')).toMatchObject({ readOnlyHint: true, idempotentHint: false });
    expect(hints('math_calc')).toMatchObject({ idempotentHint: true, openWorldHint: false });
    expect(hints('shell_exec')).toMatchObject({ destructiveHint: true, openWorldHint: true });
  });

  test('refusals name the class-agent flag or policy-file key to change, not library options', async () => {
    const texts = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, name).toBe(true);
      return (result.content as Array<{ text: string }>)[0]?.text ?? '';
    };
    const privateAddress = await texts('http_get', { url: 'http://127.0.0.1:9/' });
    expect(privateAddress).toBe(
      'Error [TOOL_POLICY_DENIED] http_get: address 127.0.0.1, a loopback address; set the --allow-private-network flag to reach it',
    );
    expect(await texts('shell_exec', { command: 'ls' })).toBe(
      'Error [TOOL_POLICY_DENIED] shell_exec: the shell is disabled; it must be enabled with the --allow-shell flag',
    );
    expect(await texts('file_read', { path: 'big.txt' })).toBe(
      'Error [TOOL_LIMIT_EXCEEDED] file_read: "big.txt" is 100 bytes, more than the 10-byte read limit (fs.maxReadBytes in the --policy file)',
    );
    expect(await texts('time_sleep', { seconds: 3600 })).toContain(
      '(time.maxSleepSeconds in the --policy file)',
    );
  });
});

describe('class-agent mcp --read-only', () => {
  test('offers only the reading fs tools, all annotated read-only', async () => {
    const client = await stdioClient(['--uses', 'std.fs', '--root', root, '--read-only']);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => [tool.name, tool.annotations?.readOnlyHint])).toEqual([
        ['file_read', true],
        ['file_exists', true],
        ['file_list', true],
      ]);
      const write = await client.callTool({
        name: 'file_write',
        arguments: { path: 'x.txt', content: 'x' },
      });
      expect(write.content).toEqual([
        {
          type: 'text',
          text: 'Error [TOOL_POLICY_DENIED] file_write: the files are read-only here (the --read-only flag); file_write cannot change them',
        },
      ]);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe('createMcpServer with host tools, over Streamable HTTP', () => {
  const pages = ['Heaps', 'Trees'];
  const materialPage = defineHostTool({
    name: 'material_page',
    title: 'Read a page of the material',
    description: 'The text of page N of the current material.',
    inputSchema: z.object({ page: z.number().int().min(1) }),
    outputSchema: z.object({ page: z.number(), text: z.string() }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    execute: async ({ page }) => {
      const text = pages[page - 1];
      if (text === undefined) {
        throw new ToolError('TOOL_NOT_FOUND', `the material has ${pages.length} pages`, {
          field: 'page',
        });
      }
      return { page, text };
    },
  });
  let http: Server;
  let client: Client;

  beforeAll(async () => {
    const server = createMcpServer({
      uses: ['std.http'],
      tools: [materialPage],
      name: 'lectures',
      version: '1.2.3',
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID });
    await server.connect(transport);
    http = createServer((request, response) => {
      void transport.handleRequest(request, response);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const { port } = http.address() as AddressInfo;
    client = new Client({ name: 'agent-std-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
    );
  });
  afterAll(async () => {
    await client?.close();
    http?.closeAllConnections();
    await new Promise((resolve) => http?.close(resolve));
  });

  test('lists the host tool beside the std tools, with its title, annotations and schemas', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'lectures', version: '1.2.3' });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'http_get',
      'http_post',
      'http_put',
      'http_delete',
      'material_page',
    ]);
    expect(tools.at(-1)).toMatchObject({
      title: 'Read a page of the material',
      annotations: {
        title: 'Read a page of the material',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      inputSchema: { type: 'object', required: ['page'], additionalProperties: false },
      outputSchema: { type: 'object', required: ['page', 'text'] },
    });
  });

  test('calls it: records as structuredContent, its refusals and library option names as errors', async () => {
    expect(await client.callTool({ name: 'material_page', arguments: { page: 2 } })).toMatchObject({
      content: [{ type: 'text', text: '{"page":2,"text":"Trees"}' }],
      structuredContent: { page: 2, text: 'Trees' },
    });
    expect(await client.callTool({ name: 'material_page', arguments: { page: 7 } })).toMatchObject({
      isError: true,
      content: [{ text: 'Error [TOOL_NOT_FOUND] material_page: the material has 2 pages' }],
    });
    const refused = await client.callTool({
      name: 'http_get',
      arguments: { url: 'http://127.0.0.1:9/' },
    });
    expect(refused.content).toEqual([
      {
        type: 'text',
        text: 'Error [TOOL_POLICY_DENIED] http_get: address 127.0.0.1, a loopback address; set policy.http.allowPrivateNetwork to reach it',
      },
    ]);
  });
});
