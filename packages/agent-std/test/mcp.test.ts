import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const bin = fileURLToPath(new URL('../bin/class-agent.js', import.meta.url));
let root: string;
let client: Client;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'agent-std-mcp-'));
  await writeFile(join(root, 'hello.txt'), 'hello from disk');
  // The server is a real child process (`class-agent mcp`), driven by the SDK's own client.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', '--uses', 'std.math,std.fs', '--root', root],
    env: { PATH: process.env.PATH ?? '', OPENAI_API_KEY: 'not-for-tools' },
    stderr: 'pipe',
  });
  client = new Client({ name: 'agent-std-test', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await rm(root, { recursive: true, force: true });
});

describe('class-agent mcp (MCP over stdio)', () => {
  test('identifies itself and lists only the declared tools, with JSON Schemas', async () => {
    expect(client.getServerVersion()?.name).toBe('class-assistant-agent-std');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'math_calc',
      'math_random',
      'file_read',
      'file_write',
      'file_append',
      'file_exists',
      'file_list',
      'file_delete',
    ]);
    const calc = tools.find((tool) => tool.name === 'math_calc');
    expect(calc?.inputSchema).toMatchObject({
      type: 'object',
      properties: { expression: { type: 'string' } },
      required: ['expression'],
      additionalProperties: false,
    });
    expect(calc?.outputSchema).toMatchObject({
      type: 'object',
      required: ['result', 'expression', 'exact'],
    });
    expect(tools.find((tool) => tool.name === 'file_read')?.outputSchema).toBeUndefined();
  });

  test('calls tools: records come back as text and structuredContent', async () => {
    const result = await client.callTool({
      name: 'math_calc',
      arguments: { expression: '(1 + 2) * 3' },
    });
    expect(result).toMatchObject({
      content: [{ type: 'text', text: '{"result":9,"expression":"(1 + 2) * 3","exact":true}' }],
      structuredContent: { result: 9, expression: '(1 + 2) * 3', exact: true },
    });
    expect(result.isError).toBeFalsy();
    // An exact big integer crosses the wire digit for digit (a client reading it as a double
    // rounds it on its side).
    const big = await client.callTool({
      name: 'math_calc',
      arguments: { expression: '99999999999999999999*99999999999999999999' },
    });
    expect(big.content).toEqual([
      {
        type: 'text',
        text: '{"result":9999999999999999999800000000000000000001,"expression":"99999999999999999999*99999999999999999999","exact":true}',
      },
    ]);
    expect(
      await client.callTool({ name: 'file_read', arguments: { path: 'hello.txt' } }),
    ).toMatchObject({
      content: [{ type: 'text', text: 'hello from disk' }],
    });
    await client.callTool({
      name: 'file_write',
      arguments: { path: 'out/new.txt', content: 'via MCP' },
    });
    expect(await readFile(join(root, 'out/new.txt'), 'utf8')).toBe('via MCP');
  });

  test('undeclared tools, bad arguments and policy refusals are tool errors, not crashes', async () => {
    const undeclared = await client.callTool({ name: 'shell_exec', arguments: { command: 'id' } });
    expect(undeclared.isError).toBe(true);
    expect(undeclared.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^Error \[TOOL_NOT_DECLARED\] shell_exec/) },
    ]);
    const extra = await client.callTool({
      name: 'math_calc',
      arguments: { expression: '1', x: 1 },
    });
    expect(extra).toMatchObject({
      isError: true,
      content: [
        { text: 'Error [TOOL_BAD_INPUT] math_calc: unexpected argument "x" (allowed: expression)' },
      ],
    });
    const outside = await client.callTool({
      name: 'file_read',
      arguments: { path: '/etc/passwd' },
    });
    expect(outside).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining('TOOL_POLICY_DENIED') }],
    });
    // The server is still serving after all of that.
    expect(
      (await client.callTool({ name: 'math_random', arguments: { min_val: 4, max_val: 4 } }))
        .content,
    ).toEqual([{ type: 'text', text: '4' }]);
  });
});
