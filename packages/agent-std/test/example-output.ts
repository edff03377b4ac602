// What each example under examples/ must print when it runs offline (no LLM_API_KEY: the ones
// that talk to a model use the package's fake OpenAI-compatible server). Read by
// test/readme-examples.test.ts (the examples of this folder) and by `pnpm check:consumer` (the
// examples of the installed package, run from a copy outside node_modules).
import type { ExampleExpectations } from '../../../scripts/run-example.ts';

/** One MCP session on stdin: initialize, list the tools, call the example's own tool. */
const MCP_SESSION = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'readme-examples', version: '1.0.0' },
    },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  {
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'glossary_define', arguments: { term: 'Heap' } },
  },
];

export const EXAMPLE_OUTPUT = {
  'quick-start.mts': ['buy milk\n20\nTOOL_NOT_DECLARED\n'],
  'policy.mts': [
    [
      'TOOL_POLICY_DENIED path',
      'false',
      'Error [TOOL_POLICY_DENIED] http_get: only http and https URLs are allowed, not file (url)',
      '09:30 Asia/Shanghai',
      '',
    ].join('\n'),
  ],
  'host-tools.mts': [
    [
      'file_read file_exists file_list text_split text_replace text_upper text_lower slide_text',
      'Binary search trees',
      'Error [TOOL_NOT_FOUND] slide_text: there are 3 slides',
      'Error [TOOL_BAD_INPUT] slide_text: missing required argument "number" (number); unexpected argument "page" (allowed: number, upper)',
      'Error [TOOL_POLICY_DENIED] file_write: the files are read-only here (policy.fs.readOnly); file_write cannot change them',
      '',
    ].join('\n'),
  ],
  'openai.mts': ['60 hours.\n'],
  'agent.mts': [
    [
      '… class_search {"query": "heap", "limit": null}',
      'The teacher first mentioned heaps at [09:15:40] A heap is a complete binary tree; the smallest key sits on top.',
      '2 model calls, tools: class_search',
      '',
    ].join('\n'),
  ],
  // The server answers each request with one line of JSON-RPC; stdin closing ends it.
  'mcp-server.mts': {
    stdin: MCP_SESSION.map((message) => `${JSON.stringify(message)}\n`).join(''),
    stdout: [
      '"serverInfo":{"name":"course-glossary"',
      // std.time and std.math, in their order, then the example's own tool.
      /"tools":\[\{"name":"time_now",.*\{"name":"time_diff",.*\{"name":"time_format",.*\{"name":"time_sleep",.*\{"name":"time_timestamp",.*\{"name":"math_calc",.*\{"name":"math_random",.*\{"name":"glossary_define",/,
      '"structuredContent":{"term":"Heap","definition":"A complete binary tree in which every parent is smaller than its children."}',
    ],
  },
} satisfies ExampleExpectations;
