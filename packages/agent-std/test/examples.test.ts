// The files in examples/ run as written — offline, without an API key, against the package's
// fake OpenAI-compatible server — and the README shows them verbatim: each region between
// `<!-- example: examples/NAME.ts -->` and `<!-- /example -->` must equal that file.
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, test } from 'vitest';

const run = promisify(execFile);
const packageFolder = fileURLToPath(new URL('..', import.meta.url));
const exampleFolder = fileURLToPath(new URL('../examples/', import.meta.url));
// No LLM_API_KEY: the examples that talk to a model use the fake server.
const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

/** What each example prints, exactly. */
const OUTPUT: Record<string, string> = {
  'quick-start.ts': 'buy milk\n20\nTOOL_NOT_DECLARED\n',
  'policy.ts': [
    'TOOL_POLICY_DENIED path',
    'false',
    'Error [TOOL_POLICY_DENIED] http_get: only http and https URLs are allowed, not file (url)',
    '09:30 Asia/Shanghai',
    '',
  ].join('\n'),
  'host-tools.ts': [
    'file_read file_exists file_list text_split text_replace text_upper text_lower slide_text',
    'Binary search trees',
    'Error [TOOL_NOT_FOUND] slide_text: there are 3 slides',
    'Error [TOOL_BAD_INPUT] slide_text: missing required argument "number" (number); unexpected argument "page" (allowed: number, upper)',
    'Error [TOOL_POLICY_DENIED] file_write: the files are read-only here (policy.fs.readOnly); file_write cannot change them',
    '',
  ].join('\n'),
  'openai.ts': '60 hours.\n',
  'agent.ts': [
    '… class_search {"query": "heap", "limit": null}',
    'The teacher first mentioned heaps at [09:15:40] A heap is a complete binary tree; the smallest key sits on top.',
    '2 model calls, tools: class_search',
    '',
  ].join('\n'),
};

describe('examples/', () => {
  test('every example is covered below', async () => {
    const files = (await readdir(exampleFolder)).filter((name) => name.endsWith('.ts')).sort();
    expect(files).toEqual([...Object.keys(OUTPUT), 'mcp-server.ts'].sort());
  });

  test.each(Object.keys(OUTPUT))(
    '%s runs offline and prints what its comments say',
    async (name) => {
      const { stdout, stderr } = await run(process.execPath, [`examples/${name}`], {
        cwd: packageFolder,
        env,
      });
      expect(stderr).toBe('');
      expect(stdout).toBe(OUTPUT[name]);
    },
  );

  test('mcp-server.ts serves its tools to an MCP client over stdio', async () => {
    const client = new Client({ name: 'examples-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['examples/mcp-server.ts'],
        cwd: packageFolder,
        env,
        stderr: 'pipe',
      }),
    );
    try {
      expect(client.getServerVersion()?.name).toBe('course-glossary');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([
        'time_now',
        'time_diff',
        'time_format',
        'time_sleep',
        'time_timestamp',
        'math_calc',
        'math_random',
        'glossary_define',
      ]);
      expect(
        await client.callTool({ name: 'glossary_define', arguments: { term: 'Heap' } }),
      ).toMatchObject({
        structuredContent: {
          term: 'Heap',
          definition: 'A complete binary tree in which every parent is smaller than its children.',
        },
      });
    } finally {
      await client.close();
    }
  });
});

describe('README.md', () => {
  test('shows each marked example exactly as the file is, and shows every example', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const regions = [
      ...readme.matchAll(
        /<!-- example: examples\/([\w-]+\.ts) -->\n```ts\n([\s\S]*?)```\n<!-- \/example -->/g,
      ),
    ];
    const shown = regions.map(([, name]) => name);
    expect(new Set(shown)).toEqual(new Set([...Object.keys(OUTPUT), 'mcp-server.ts']));
    for (const [, name, code] of regions) {
      expect(code, name).toBe(await readFile(`${exampleFolder}${name}`, 'utf8'));
    }
    // A marker without a well-formed region after it would escape the check.
    expect(readme.match(/<!-- example:/g)).toHaveLength(regions.length);
  });
});
