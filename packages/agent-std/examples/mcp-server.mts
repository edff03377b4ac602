// An MCP server on stdin/stdout: std.time and std.math plus a tool of your own. MCP clients
// start it as a process (see the configuration in the README); it serves until stdin closes.
import { defineHostTool } from '@class-assistant/agent-std';
import { serveMcpOverStdio } from '@class-assistant/agent-std/mcp';
import { z } from 'zod';

const glossary: Record<string, string> = {
  heap: 'A complete binary tree in which every parent is smaller than its children.',
  stack: 'A list where the last element added is the first one taken.',
};

const define = defineHostTool({
  name: 'glossary_define',
  title: 'Define a term',
  description: 'The course glossary entry for a term.',
  inputSchema: z.object({ term: z.string().describe('The term, e.g. "heap".') }),
  outputSchema: z.object({ term: z.string(), definition: z.string() }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  execute: async ({ term }) => ({
    term,
    definition: glossary[term.toLowerCase()] ?? 'not in the glossary',
  }),
});

await serveMcpOverStdio({
  name: 'course-glossary',
  uses: ['std.time', 'std.math'],
  tools: [define],
  policy: { time: { timezone: 'UTC' } },
});
