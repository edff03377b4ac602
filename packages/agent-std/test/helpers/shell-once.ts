// Runs one shell_exec call in a process of its own and prints the model-facing reply as JSON.
// Arguments: the fs root, the command, and the policy.shell fields as JSON. Used by
// shell-sandbox.test.ts to test the sandbox from a process that can be killed, or that runs where
// bubblewrap cannot work.
import { createToolbox } from '../../src/index.ts';

const [root, command, shellPolicy] = process.argv.slice(2);
const toolbox = createToolbox({
  uses: ['std.shell'],
  policy: {
    fs: { root: root as string },
    shell: { enabled: true, ...JSON.parse(shellPolicy ?? '{}') },
  },
});
const reply = await toolbox.callForModel('shell_exec', { command, timeout: 120 });
process.stdout.write(
  JSON.stringify({
    ok: reply.ok,
    content: reply.content,
    code: reply.ok ? undefined : reply.error.code,
  }),
);
