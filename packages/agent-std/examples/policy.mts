import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolbox, isToolError } from '@class-assistant/agent-std';

const workspace = await mkdtemp(join(tmpdir(), 'policy-'));
const toolbox = createToolbox({
  uses: ['std.fs', 'std.http', 'std.time'],
  policy: { fs: { root: workspace }, time: { timezone: 'Asia/Shanghai' } },
});

try {
  await toolbox.call('file_read', { path: '../../etc/passwd' });
} catch (error) {
  if (isToolError(error)) console.log(error.code, error.field); // TOOL_POLICY_DENIED path
}

// What a model gets instead of an exception: one line it can act on.
const reply = await toolbox.callForModel('http_get', '{"url": "file:///etc/passwd"}');
console.log(reply.ok); // false
console.log(reply.content);
// Error [TOOL_POLICY_DENIED] http_get: only http and https URLs are allowed, not file (url)

const time = await toolbox.call('time_format', {
  iso_string: '2024-05-01T09:30:00',
  format: '%H:%M %Z',
});
console.log(time); // 09:30 Asia/Shanghai
await rm(workspace, { recursive: true });
