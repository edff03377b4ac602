import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolbox, isToolError } from '@class-assistant/agent-std';

const root = await mkdtemp(join(tmpdir(), 'quick-start-'));
const toolbox = createToolbox({ uses: ['std.fs', 'std.math'], policy: { fs: { root } } });

await toolbox.call('file_write', { path: 'notes/todo.txt', content: 'buy milk' });
console.log(await toolbox.call('file_read', { path: 'notes/todo.txt' })); // buy milk
const { result } = await toolbox.call('math_calc', { expression: '(2 + 3) * 4' });
console.log(result); // 20

try {
  // @ts-expect-error: std.shell is not declared, so shell_exec is no name to call
  await toolbox.call('shell_exec', { command: 'ls' });
} catch (error) {
  if (isToolError(error)) console.log(error.code); // TOOL_NOT_DECLARED
}
await rm(root, { recursive: true });
