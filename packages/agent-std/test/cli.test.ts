import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  createFakeOpenAIServer,
  type FakeOpenAIServer,
  type FakeOpenAIServerOptions,
} from '../src/testing/index.ts';

const bin = fileURLToPath(new URL('../bin/class-agent.js', import.meta.url));
let work: string;
const servers: FakeOpenAIServer[] = [];

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'agent-std-cli-'));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  await rm(work, { recursive: true, force: true });
});

async function fake(chat: NonNullable<FakeOpenAIServerOptions['chat']>) {
  const server = await createFakeOpenAIServer({ chat, apiKey: 'cli-key' });
  servers.push(server);
  return server;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(
  args: string[],
  env: Record<string, string> = {},
  onStart?: (child: ChildProcess) => void,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '', HOME: work, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    onStart?.(child);
  });
}

const llmEnv = (server: FakeOpenAIServer) => ({
  LLM_BASE_URL: server.baseURL,
  LLM_API_KEY: 'cli-key',
  LLM_MODEL: 'env-model',
});

const SCRIPT = `
agent Calculator uses std.math {
  role: "a calculator",
  prompt: """
    Use math_calc for every computation.
  """
}
agent Scribe uses std.fs, std.text {
  role: "a scribe"
  prompt: "Write what you are told into files."
  model: "scribe-model"
}
flow main {
  answer = Calculator.run("What is (2 + 3) * 4?");
  print(answer);
  note = Scribe.run(f"Save this: {answer}");
  print(f"Scribe says: {note}");
}
`;

describe('class-agent run FILE (a real child process against the fake LLM server)', () => {
  test('runs the flow: tool calls, f-strings, models from the script and LLM_MODEL', async () => {
    const server = await fake([
      {
        type: 'tool-calls',
        calls: [{ name: 'math_calc', arguments: '{"expression":"(2 + 3) * 4"}' }],
      },
      { type: 'text', content: 'It is 20.' },
      {
        type: 'tool-calls',
        calls: [
          { name: 'file_write', arguments: '{"path":"notes/answer.txt","content":"It is 20."}' },
          { name: 'shell_exec', arguments: '{"command":"touch pwned"}' },
        ],
      },
      { type: 'text', content: 'Saved.' },
    ]);
    await writeFile(join(work, 'main.agent'), SCRIPT);
    const result = await cli(['run', 'main.agent'], llmEnv(server));
    expect(result).toEqual({ code: 0, stdout: 'It is 20.\nScribe says: Saved.\n', stderr: '' });
    expect(server.chatRequests.map((request) => request.body.model)).toEqual([
      'env-model',
      'env-model',
      'scribe-model',
      'scribe-model',
    ]);
    expect(server.chatRequests[1]?.body.messages?.at(-1)).toMatchObject({
      role: 'tool',
      content: '{"result":20,"expression":"(2 + 3) * 4","exact":true}',
    });
    expect(server.chatRequests[2]?.body.messages?.[1]).toEqual({
      role: 'user',
      content: 'Save this: It is 20.',
    });
    const toolReplies = server.chatRequests[3]?.body.messages?.filter((m) => m.role === 'tool');
    expect(toolReplies?.map((m) => m.content)).toEqual([
      'Wrote 9 characters to notes/answer.txt',
      expect.stringContaining('[TOOL_NOT_DECLARED] shell_exec'),
    ]);
    expect(await readFile(join(work, 'notes/answer.txt'), 'utf8')).toBe('It is 20.');
    expect((await readdir(work)).sort()).toEqual(['main.agent', 'notes']);
  });

  test('flags override the environment; --verbose logs model and tool calls to stderr', async () => {
    const server = await fake([
      { type: 'tool-calls', calls: [{ name: 'math_calc', arguments: '{"expression":"1/0"}' }] },
      { type: 'text', content: 'Cannot divide by zero.' },
    ]);
    await writeFile(
      join(work, 'one.agent'),
      'agent C uses std.math { role: "r", prompt: "p" }\nflow main { print(C.run("1/0?")) }',
    );
    const result = await cli(
      ['run', 'one.agent', '--model', 'flag-model', '--base-url', server.baseURL, '--verbose'],
      { LLM_API_KEY: 'cli-key', LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_MODEL: 'env-model' },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Cannot divide by zero.\n');
    expect(result.stderr).toContain('[C] step 1: asking the model');
    expect(result.stderr).toContain(
      '[C] math_calc({"expression":"1/0"}) -> refused: Error [TOOL_BAD_INPUT] math_calc: expression: division by zero',
    );
    expect(server.chatRequests[0]?.body.model).toBe('flag-model');
  });

  test('a script error is shown with file, line, column and a caret; nothing runs', async () => {
    const server = await fake([]);
    await writeFile(
      join(work, 'bad.agent'),
      'agent A uses std.fs, std.files {\n  role: "r", prompt: "p"\n}\nflow main { print(A.run("x")) }\n',
    );
    const result = await cli(['run', 'bad.agent'], llmEnv(server));
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'bad.agent:1:22: error: unknown namespace "std.files"; known: std.fs, std.http, std.time, std.json, std.text, std.hash, std.math, std.regex, std.shell, std.ask_human\n' +
        '1 | agent A uses std.fs, std.files {\n' +
        '                         ^\n',
    );
    expect(server.chatRequests).toHaveLength(0);
  });

  test('a failing model endpoint exits 1 with the error code (after the SDK retries)', async () => {
    const failure = { type: 'error' as const, status: 500, message: 'model exploded' };
    const server = await fake([failure, failure, failure]);
    await writeFile(
      join(work, 'x.agent'),
      'agent A { role: "r", prompt: "p" }\nflow main { print(A.run("x")) }',
    );
    const result = await cli(['run', 'x.agent'], { ...llmEnv(server) });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/HTTP 500.*model exploded.*\[AGENT_LLM_FAILED\]/);
    expect(server.chatRequests).toHaveLength(3);
  });

  test('Ctrl-C (SIGINT) stops a run that waits on the model with exit code 130', async () => {
    const server = await fake([{ type: 'hang' }]);
    await writeFile(
      join(work, 'x.agent'),
      'agent A { role: "r", prompt: "p" }\nflow main { print(A.run("x")) }',
    );
    const result = await cli(['run', 'x.agent'], llmEnv(server), (child) => {
      const poll = setInterval(() => {
        if (server.chatRequests.length > 0) {
          clearInterval(poll);
          child.kill('SIGINT');
        }
      }, 20);
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('[AGENT_ABORTED]');
  });

  test('Nexa scripts: check lists what cannot run yet; run stops there with the line (exit 2)', async () => {
    const server = await fake([{ type: 'text', content: 'Paris' }]);
    await writeFile(join(work, 'lib.nxlib'), 'agent Guide { role: "a guide" }\n');
    await writeFile(
      join(work, 'trip.nx'),
      [
        '/* a trip planner */',
        'include "lib.nxlib";',
        'flow main {',
        '  city = Guide.run("Capital of France?")',
        '  print("#{city} it is")',
        '  python! """print(1)"""',
        '}',
        '',
      ].join('\n'),
    );
    expect(await cli(['check', 'trip.nx'])).toEqual({
      code: 0,
      stdout:
        'trip.nx: ok (1 agent(s), 1 flow(s))\n  note: trip.nx:6:3: python! blocks cannot run yet\n',
      stderr: '',
    });
    const result = await cli(['run', 'trip.nx'], llmEnv(server));
    expect(result).toEqual({
      code: 2,
      stdout: 'Paris it is\n',
      stderr:
        'trip.nx:6:3: error: python! blocks: not supported yet\n6 |   python! """print(1)"""\n      ^\n',
    });
    expect(server.chatRequests[0]?.body.messages?.[0]).toEqual({
      role: 'system',
      content: 'Role: a guide',
    });
  });

  test('a run-time error exits 1 with the line; --dialect picks the rules for any file name', async () => {
    await writeFile(join(work, 'count.txt'), 'flow main {\n  print("#{1 + 1}")\n  x = [1][3]\n}\n');
    const result = await cli(['run', 'count.txt', '--dialect', 'nexa']);
    expect(result).toEqual({
      code: 1,
      stdout: '2\n',
      stderr:
        'count.txt:3:11: error: index 3 is out of range (1 items)\n3 |   x = [1][3]\n              ^\n',
    });
    expect((await cli(['run', 'count.txt'])).stdout).toBe('#{1 + 1}\n');
    expect((await cli(['check', 'count.txt', '--dialect', 'python'])).stderr).toContain(
      '--dialect must be agent or nexa, got "python"',
    );
  });

  test('check, tools, help, version and usage errors', async () => {
    await writeFile(join(work, 'ok.agent'), SCRIPT);
    expect(await cli(['check', 'ok.agent'])).toEqual({
      code: 0,
      stdout: 'ok.agent: ok (2 agent(s), 1 flow(s))\n',
      stderr: '',
    });
    const tools = await cli(['tools', '--uses', 'std.math']);
    expect(tools.code).toBe(0);
    expect(tools.stdout).toMatch(/^std\.math\n {2}math_calc {8}Evaluate/);
    expect((await cli(['--help'])).stdout).toContain('class-agent run FILE');
    expect((await cli(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const missing = await cli(['run', 'nope.agent']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read nope.agent');
    expect((await cli(['fly'])).code).toBe(2);
    expect((await cli(['run', 'ok.agent', '--max-steps', 'many'])).stderr).toContain('--max-steps');
    expect((await cli(['run', 'ok.agent', '--bogus'])).code).toBe(2);
  });
});

describe('class-agent policy flags', () => {
  const SHELL_SCRIPT =
    'agent Sh uses std.shell, std.fs { role: "r", prompt: "p" }\nflow main { print(Sh.run("go")) }';

  /** Runs SHELL_SCRIPT with `flags`, the model calling `calls`; returns the tool replies. */
  async function toolRepliesFor(
    flags: string[],
    calls: Array<{ name: string; arguments: string }>,
  ) {
    const server = await fake([
      { type: 'tool-calls', calls },
      { type: 'text', content: 'done' },
    ]);
    await writeFile(join(work, 'sh.agent'), SHELL_SCRIPT);
    const result = await cli(['run', 'sh.agent', ...flags], llmEnv(server));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return server.chatRequests[1]?.body.messages
      ?.filter((message) => message.role === 'tool')
      .map((message) => message.content);
  }

  test('--unsandboxed-shell runs commands outside the sandbox; without it they run inside', async () => {
    await writeFile(join(work, 'outside.txt'), 'seen from outside the root');
    const root = join(work, 'root');
    await mkdir(root);
    const call = [
      { name: 'shell_exec', arguments: `{"command":"cat ${join(work, 'outside.txt')}"}` },
    ];
    const unsandboxed = await toolRepliesFor(
      ['--root', root, '--allow-shell', '--unsandboxed-shell'],
      call,
    );
    expect(unsandboxed?.[0]).toContain('"stdout":"seen from outside the root"');
    const sandboxed = await toolRepliesFor(['--root', root, '--allow-shell'], call);
    expect(sandboxed?.[0]).toContain('No such file or directory');
  });

  test('--read-only: the model is told the write was refused, in the flag’s words, and nothing is written', async () => {
    const replies = await toolRepliesFor(
      ['--read-only'],
      [{ name: 'file_write', arguments: '{"path":"x.txt","content":"x"}' }],
    );
    expect(replies).toEqual([
      'Error [TOOL_POLICY_DENIED] file_write: the files are read-only here (the --read-only flag); file_write cannot change them',
    ]);
    expect(existsSync(join(work, 'x.txt'))).toBe(false);
  });

  test('flags that need the shell, bad policy files and conflicting settings are usage errors', async () => {
    await writeFile(join(work, 'sh.agent'), SHELL_SCRIPT);
    expect(await cli(['mcp', '--uses', 'std.shell', '--unsandboxed-shell'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'class-agent: --unsandboxed-shell only applies to the shell: add --allow-shell\n',
    });
    expect((await cli(['run', 'sh.agent', '--allow-shell-network'])).stderr).toContain(
      '--allow-shell-network only applies to the shell',
    );
    await writeFile(join(work, 'bad.json'), '{"fs": {"maxReadBytez": 1}}');
    const unknown = await cli(['mcp', '--uses', 'std.fs', '--policy', 'bad.json']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('bad.json: unknown policy option "fs.maxReadBytez"');
    await writeFile(join(work, 'handler.json'), '{"askHuman": {"handler": "x"}}');
    expect((await cli(['mcp', '--uses', 'std.fs', '--policy', 'handler.json'])).stderr).toContain(
      'unknown policy option "askHuman.handler"',
    );
    const conflict = await cli([
      'mcp',
      '--uses',
      'std.fs',
      '--read-only',
      '--allow-shell',
      '--unsandboxed-shell',
    ]);
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toBe(
      'class-agent: the --read-only flag cannot be kept by an unsandboxed shell, which can write anywhere your user can; drop the --unsandboxed-shell flag or the --read-only flag [TOOL_BAD_POLICY]\n',
    );
    const help = (await cli(['--help'])).stdout;
    for (const flag of ['--unsandboxed-shell', '--read-only', '--policy FILE', '--allowed-hosts']) {
      expect(help).toContain(flag);
    }
  });
});
