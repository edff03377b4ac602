// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell parameter expansions (${…}), on purpose.
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  allTaggedGone,
  newTag,
  TAG_VARIABLE,
  waitForTagged,
  watchTagged,
} from '../../test/helpers/tagged-processes.ts';
import type { ToolPolicy } from '../policy.ts';
import { createToolbox } from '../toolbox.ts';

let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agent-std-shell-')));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const shell = (extra: ToolPolicy['shell'] = {}) =>
  createToolbox({
    uses: ['std.shell'],
    policy: { fs: { root }, shell: { enabled: true, ...extra } },
  });

describe('shell policy', () => {
  test('the shell is off unless the policy enables it', async () => {
    const off = createToolbox({ uses: ['std.shell'], policy: { fs: { root } } });
    await expect(off.call('shell_exec', { command: 'touch made.txt' })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
      message: expect.stringContaining('policy.shell.enabled'),
    });
    await expect(off.call('shell_which', { command: 'sh' })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
    });
    expect(existsSync(join(root, 'made.txt'))).toBe(false);
  });

  test('a denied command is refused as a whole: nothing of the line runs', async () => {
    await expect(
      shell().call('shell_exec', { command: 'touch made.txt; sudo id' }),
    ).rejects.toMatchObject({ code: 'TOOL_POLICY_DENIED', field: 'command' });
    expect(existsSync(join(root, 'made.txt'))).toBe(false);
  });

  test('the environment is clean: secrets of the host process are not passed on', async () => {
    process.env.OPENAI_API_KEY = 'sk-should-not-leak';
    process.env.LLM_API_KEY = 'llm-should-not-leak';
    try {
      const result = await shell({ env: { PROJECT: 'class' } }).call('shell_exec', {
        command: 'env',
      });
      expect(result.stdout).not.toContain('should-not-leak');
      expect(result.stdout).toMatch(/^PATH=/m);
      expect(result.stdout).toMatch(/^PROJECT=class$/m);
    } finally {
      delete process.env.OPENAI_API_KEY;
      delete process.env.LLM_API_KEY;
    }
  });

  test('allowCommands: a substitution hidden in ${…} is refused and does not run', async () => {
    await expect(
      shell({ allowCommands: ['echo', 'ls'] }).call('shell_exec', {
        command: 'echo ${x:-$(touch PWNED; id -un)}',
      }),
    ).rejects.toMatchObject({ code: 'TOOL_POLICY_DENIED', field: 'command' });
    expect(existsSync(join(root, 'PWNED'))).toBe(false);
  });

  test('a timeout above the policy cap is refused', async () => {
    await expect(
      shell({ maxTimeoutSeconds: 5 }).call('shell_exec', { command: 'true', timeout: 6 }),
    ).rejects.toMatchObject({ code: 'TOOL_POLICY_DENIED', field: 'timeout' });
  });
});

// The process lifecycle holds the same with and without the sandbox. Each command carries a tag
// in its environment (policy.shell.env) by which the test finds its processes on the host.
describe.each([
  ['in the sandbox', {}],
  ['unsandboxed', { unsandboxed: true }],
] as const)('shell process lifecycle, %s', (_mode, mode) => {
  const tagged = (tag: string, extra: ToolPolicy['shell'] = {}) =>
    shell({ ...mode, env: { [TAG_VARIABLE]: tag }, ...extra });

  test('a timeout kills the whole process tree, background children included', async () => {
    const tag = newTag();
    const watcher = watchTagged(tag);
    const started = Date.now();
    const failure = await tagged(tag)
      .call('shell_exec', { command: 'sleep 60 & echo started; sleep 60', timeout: 1 })
      .catch((error: unknown) => error);
    const seen = await watcher.stop();
    expect(failure).toMatchObject({
      code: 'TOOL_TIMEOUT',
      details: { stdout: 'started\n' },
    });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect([...seen.values()].filter((line) => line === 'sleep 60')).toHaveLength(2);
    expect(await allTaggedGone(tag)).toBe(true);
  });

  test.runIf(process.platform === 'linux')(
    'a timeout also kills descendants that left the process group (setsid)',
    async () => {
      const tag = newTag();
      const watcher = watchTagged(tag);
      const failure = await tagged(tag)
        .call('shell_exec', { command: "setsid sh -c 'exec sleep 60' & sleep 60", timeout: 1 })
        .catch((error: unknown) => error);
      const seen = await watcher.stop();
      expect(failure).toMatchObject({ code: 'TOOL_TIMEOUT' });
      expect([...seen.values()].filter((line) => line === 'sleep 60')).toHaveLength(2);
      expect(await allTaggedGone(tag)).toBe(true);
    },
  );

  test.runIf(process.platform === 'linux')(
    'a finished command takes along what it left running in another session, even reparented',
    async () => {
      const tag = newTag();
      const watcher = watchTagged(tag);
      // The subshell exits at once: the setsid'd process is an orphan before the command ends.
      const result = await tagged(tag).call('shell_exec', {
        command: "(setsid sh -c 'exec sleep 60' > /dev/null 2>&1 &); sleep 1",
      });
      const seen = await watcher.stop();
      expect(result.success).toBe(true);
      expect([...seen.values()]).toContain('sleep 60');
      expect(await allTaggedGone(tag)).toBe(true);
    },
  );

  test('background processes left behind by a finished command are ended with it', async () => {
    const tag = newTag();
    const watcher = watchTagged(tag);
    const result = await tagged(tag).call('shell_exec', { command: 'sleep 60 & sleep 1' });
    const seen = await watcher.stop();
    expect(result.success).toBe(true);
    expect([...seen.values()]).toContain('sleep 60');
    expect(await allTaggedGone(tag)).toBe(true);
  });

  test('an aborted call kills the command', async () => {
    const tag = newTag();
    const controller = new AbortController();
    const pending = tagged(tag).call(
      'shell_exec',
      { command: 'sleep 60; echo never' },
      { signal: controller.signal },
    );
    await waitForTagged(tag, 'sleep 60');
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'TOOL_ABORTED' });
    expect(await allTaggedGone(tag)).toBe(true);
  });

  test('output beyond the cap is dropped and marked; the command still completes', async () => {
    const result = await shell({ ...mode, maxOutputBytes: 1000 }).call('shell_exec', {
      command: "head -c 3000000 /dev/zero | tr '\\0' x; echo done >&2",
    });
    expect(result.success).toBe(true);
    expect(result.stdout.startsWith('x'.repeat(1000))).toBe(true);
    expect(result.stdout).toContain('[output truncated: 2999000 more bytes dropped');
    expect(result.stderr).toBe('done\n');
  });

  test('returns the documented record: stdout, stderr, returncode, success; runs in the fs root', async () => {
    expect(await shell(mode).call('shell_exec', { command: 'pwd; echo oops >&2; exit 3' })).toEqual(
      {
        stdout: `${root}\n`,
        stderr: 'oops\n',
        returncode: 3,
        success: false,
      },
    );
    expect(await shell(mode).call('shell_exec', { command: 'printf "%s" 你好' })).toEqual({
      stdout: '你好',
      stderr: '',
      returncode: 0,
      success: true,
    });
  });
});

describe('shell_exec and shell_which', () => {
  test('a command killed by a signal reports minus the signal number', async () => {
    expect(
      await shell({ unsandboxed: true }).call('shell_exec', { command: 'kill -TERM $$' }),
    ).toMatchObject({ returncode: -15, success: false });
  });

  test('in the sandbox a signal death reports 128 + the signal number, as a shell does', async () => {
    expect(await shell().call('shell_exec', { command: 'kill -TERM $$' })).toMatchObject({
      returncode: 143,
      success: false,
    });
  });

  test('shell_which finds programs on the PATH and refuses paths', async () => {
    const found = await shell().call('shell_which', { command: 'sh' });
    expect(found).toMatchObject({ command: 'sh', found: true });
    expect(found.path).toMatch(/\/sh$/);
    expect(await shell().call('shell_which', { command: 'no-such-program-xyz' })).toEqual({
      command: 'no-such-program-xyz',
      path: '',
      found: false,
    });
    await expect(shell().call('shell_which', { command: '../bin/sh' })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'command',
    });
  });
});
