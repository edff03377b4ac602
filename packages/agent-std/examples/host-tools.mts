import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolbox, defineHostTool, ToolError } from '@class-assistant/agent-std';
import { z } from 'zod';

const slides = ['Heaps', 'Binary search trees', 'Hash tables'];

// Your own tool, typed by its zod schema: `number` and `upper` are inferred in execute.
const slideText = defineHostTool({
  name: 'slide_text',
  title: 'Read a slide',
  description: 'The text of one slide of the lecture, by number.',
  inputSchema: z.object({
    number: z.number().int().min(1).describe('Slide number, from 1.'),
    upper: z.boolean().default(false).describe('Upper-case the text.'),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  execute: async ({ number, upper }) => {
    const text = slides[number - 1];
    if (text === undefined) {
      throw new ToolError('TOOL_NOT_FOUND', `there are ${slides.length} slides`, {
        field: 'number',
      });
    }
    return upper ? text.toUpperCase() : text;
  },
});

const folder = await mkdtemp(join(tmpdir(), 'host-tools-'));
await writeFile(join(folder, 'notes.md'), 'Heaps: the smallest element is on top.');

// std.fs read-only: file_read, file_exists and file_list; writes are refused by the policy.
const toolbox = createToolbox({
  uses: ['std.fs', 'std.text'],
  tools: [slideText],
  policy: { fs: { root: folder, readOnly: true } },
});
console.log(toolbox.tools.map((tool) => tool.name).join(' '));
// file_read file_exists file_list text_split text_replace text_upper text_lower slide_text

console.log(await toolbox.call('slide_text', { number: 2 })); // Binary search trees
console.log((await toolbox.callForModel('slide_text', '{"number": 9}')).content);
// Error [TOOL_NOT_FOUND] slide_text: there are 3 slides
console.log((await toolbox.callForModel('slide_text', '{"page": 1}')).content);
// Error [TOOL_BAD_INPUT] slide_text: missing required argument "number" (number); unexpected
// argument "page" (allowed: number, upper)
console.log((await toolbox.callForModel('file_write', { path: 'notes.md', content: '' })).content);
// Error [TOOL_POLICY_DENIED] file_write: the files are read-only here (policy.fs.readOnly);
// file_write cannot change them
await rm(folder, { recursive: true });
