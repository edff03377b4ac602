import { execFile } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import type { AskHumanHandler } from '../policy.ts';
import { createToolbox } from '../toolbox.ts';

const run = promisify(execFile);
const askOnce = fileURLToPath(new URL('../../test/helpers/ask-once.ts', import.meta.url));

const withHandler = (handler: AskHumanHandler, timeoutSeconds = 300) =>
  createToolbox({ uses: ['std.ask_human'], policy: { askHuman: { handler, timeoutSeconds } } });

describe('ask_human with an injected handler (as the desktop UI answers it)', () => {
  test('returns the answer; empty or blank answers give the default', async () => {
    const seen: Array<{ prompt: string; default: string }> = [];
    const answers = ['Alice', '', '   ', 'line\n'];
    const box = withHandler(({ prompt, default: fallback }) => {
      seen.push({ prompt, default: fallback });
      return answers.shift() ?? '';
    });
    expect(await box.call('ask_human', { prompt: 'Name?' })).toBe('Alice');
    expect(await box.call('ask_human', { prompt: 'Name?', default: 'Bob' })).toBe('Bob');
    expect(await box.call('ask_human', { prompt: 'Name?', default: 'Bob' })).toBe('Bob');
    expect(await box.call('ask_human', { prompt: 'Name?' })).toBe('line');
    expect(seen[1]).toEqual({ prompt: 'Name?', default: 'Bob' });
  });

  test('the wait is bounded even when the handler never answers', async () => {
    let signalled = false;
    const box = withHandler(
      ({ signal }) =>
        new Promise<string>(() => {
          signal.addEventListener('abort', () => {
            signalled = true;
          });
        }),
      1,
    );
    await expect(box.call('ask_human', { prompt: 'Still there?' })).rejects.toMatchObject({
      code: 'TOOL_TIMEOUT',
      message: expect.stringContaining('1 s'),
    });
    expect(signalled).toBe(true);
  });

  test('abort, handler failures and non-text answers are reported', async () => {
    const controller = new AbortController();
    const pending = withHandler(() => new Promise<string>(() => {})).call(
      'ask_human',
      { prompt: 'x' },
      { signal: controller.signal },
    );
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'TOOL_ABORTED' });
    await expect(
      withHandler(() => {
        throw new Error('window closed');
      }).call('ask_human', { prompt: 'x' }),
    ).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: expect.stringContaining('window closed'),
    });
    await expect(
      withHandler(() => 42 as unknown as string).call('ask_human', { prompt: 'x' }),
    ).rejects.toMatchObject({ code: 'TOOL_FAILED' });
  });
});

describe('ask_human on a terminal', () => {
  test('given streams: shows the question and default, reads a line, EOF gives the default', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (chunk: Buffer) => {
      shown += chunk.toString();
    });
    const box = createToolbox({ uses: ['std.ask_human'], policy: { askHuman: { input, output } } });
    const first = box.call('ask_human', { prompt: 'Colour?', default: 'blue' });
    input.write('green\n');
    expect(await first).toBe('green');
    expect(shown).toContain('Colour? [blue]');
    const second = box.call('ask_human', { prompt: 'Colour?', default: 'blue' });
    input.write('\n');
    expect(await second).toBe('blue');
    const third = box.call('ask_human', { prompt: 'Colour?', default: 'red' });
    input.end();
    expect(await third).toBe('red');
  });

  test('the default path reads a real TTY (a pseudo-terminal), and /dev/tty when stdin is redirected', async () => {
    const driver = `
import os, pty, sys
node, script, redirect = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
pid, fd = pty.fork()
if pid == 0:
    if redirect:
        os.execv("/bin/sh", ["sh", "-c", '"$0" "$1" < /dev/null', node, script])
    os.execv(node, [node, script])
seen = b""
while b"> " not in seen:
    seen += os.read(fd, 1024)
os.write(fd, b"green\\n")
try:
    while True:
        data = os.read(fd, 1024)
        if not data:
            break
        seen += data
except OSError:
    pass
os.waitpid(pid, 0)
sys.stdout.write(seen.decode())
`;
    for (const redirect of ['0', '1']) {
      const { stdout } = await run('python3', ['-c', driver, process.execPath, askOnce, redirect], {
        timeout: 60_000,
      });
      expect(stdout).toContain('Favourite colour? [blue]');
      expect(stdout).toContain('RESULT="green"');
    }
  });

  test('without any terminal and without a handler the call fails clearly', async () => {
    const { stdout } = await run('setsid', [process.execPath, askOnce], { timeout: 60_000 });
    expect(stdout).toContain('TOOL_FAILED');
    expect(stdout).toContain('policy.askHuman.handler');
  });
});
