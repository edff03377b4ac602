// The shell sandbox under attack: dangerous commands run for real inside it — past the deny list,
// through runShellCommand — against canary files outside the fs root, a canary file the sandbox
// shows read-only, a canary process on the host and a listener on a loopback port. Each targeted
// attack is first run unsandboxed against a decoy, which it must damage: that proves the command
// works, so the sandbox is what stops it. Linux with bubblewrap (scripts/setup.sh installs it).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { resolveToolPolicy, type ToolPolicy } from '../src/policy.ts';
import { runShellCommand } from '../src/tools/shell.ts';
import {
  allTaggedGone,
  newTag,
  TAG_VARIABLE,
  taggedProcesses,
  waitForTagged,
} from './helpers/tagged-processes.ts';

const run = promisify(execFile);
const shellOnce = fileURLToPath(new URL('./helpers/shell-once.ts', import.meta.url));

let base: string;
let root: string;
/** Outside the root, not visible in the sandbox. */
let hidden: string;
/** Outside the root, visible read-only in the sandbox (policy.shell.readOnlyPaths). */
let readOnly: string;
/** Outside the root, where the unsandboxed control runs do their damage. */
let decoys: string;
let listener: Server;
let port: number;
let connections = 0;
const sockets = new Set<Socket>();
let hostProcess: ChildProcess;

const CANARY = 'canary.txt';

async function plantCanary(folder: string): Promise<void> {
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, CANARY), 'keep me\n');
  await chmod(join(folder, CANARY), 0o644);
}

/** Everything about a canary an attack could change. */
async function fingerprint(folder: string): Promise<string> {
  const path = join(folder, CANARY);
  if (!existsSync(path)) return 'missing';
  const info = await stat(path);
  const content = await readFile(path, 'utf8');
  return JSON.stringify([content, info.mode, info.mtimeMs, info.nlink, info.size]);
}

function policyFor(shell: ToolPolicy['shell'] = {}) {
  return resolveToolPolicy({
    fs: { root },
    shell: { enabled: true, readOnlyPaths: [readOnly], ...shell },
  });
}

const sandboxed = (command: string, shell: ToolPolicy['shell'] = {}) =>
  runShellCommand(command, 60, policyFor(shell), new AbortController().signal);

beforeAll(async () => {
  if (process.platform !== 'linux') return;
  base = await realpath(await mkdtemp(join(tmpdir(), 'agent-std-sandbox-')));
  root = join(base, 'root');
  hidden = join(base, 'hidden');
  readOnly = join(base, 'read-only');
  decoys = join(base, 'decoys');
  await mkdir(root);
  await plantCanary(hidden);
  await plantCanary(readOnly);
  listener = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.end('hello\n');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as { port: number }).port;
  hostProcess = spawn('sleep', ['600'], { stdio: 'ignore' });
  // Refuse to run anything destructive unless the sandbox demonstrably holds.
  const proof = await sandboxed(
    `touch ${hidden}/proof ${readOnly}/proof /usr/agent-std-proof; cat /proc/1/comm`,
  );
  if (
    proof.stdout !== 'bwrap\n' ||
    existsSync(join(hidden, 'proof')) ||
    existsSync(join(readOnly, 'proof')) ||
    existsSync('/usr/agent-std-proof')
  ) {
    throw new Error(
      `the sandbox does not hold; refusing to run the attacks: ${JSON.stringify(proof)}`,
    );
  }
});

afterAll(async () => {
  if (process.platform !== 'linux') return;
  hostProcess.kill('SIGKILL');
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => listener.close(() => resolve()));
  await rm(base, { recursive: true, force: true });
});

/** Attacks on one file; `{target}` is the canary, `{folder}` its folder. */
const TARGETED = [
  'rm -f {target}',
  'X={target}; rm -rf $X',
  `bash -c 'sh <<< "rm -f {target}"'`,
  `bash -c 'sh <(echo "rm -f {target}")'`,
  `bash -c 'source <(echo "rm -f {target}")'`,
  `python3 -c "import os; os.remove('{target}')"`,
  `python3 -c "open('{target}', 'a').write('pwned')"`,
  `awk 'BEGIN{system("rm -f {target}")}'`,
  `perl -e 'unlink "{target}"'`,
  'eval "rm -f {target}"',
  "printf 'rm -f {target}' | sh",
  'echo pwned >> {target}',
  ': > {target}',
  'truncate -s 0 {target}',
  'dd if=/dev/zero of={target} bs=1 count=1 conv=notrunc',
  'mv {target} {target}.moved',
  'chmod 000 {target}',
  'touch -d 2000-01-01 {target}',
  'find {folder} -name canary.txt -delete',
  'cd {folder} && rm -rf ./*',
  'ln -f {target} ./stolen && echo pwned >> ./stolen',
];

const fill = (template: string, folder: string) =>
  template.replaceAll('{target}', join(folder, CANARY)).replaceAll('{folder}', folder);

describe.runIf(process.platform === 'linux')('the shell sandbox under attack', () => {
  test.each(TARGETED)(
    '%s: damages a decoy unsandboxed, changes nothing outside the root sandboxed',
    async (template) => {
      await plantCanary(decoys);
      const before = await fingerprint(decoys);
      await sandboxed(fill(template, decoys), { unsandboxed: true });
      expect(await fingerprint(decoys), 'the attack works without the sandbox').not.toBe(before);

      for (const folder of [hidden, readOnly]) {
        const kept = await fingerprint(folder);
        const result = await sandboxed(fill(template, folder));
        expect(await fingerprint(folder), `${folder}: ${result.stderr}`).toBe(kept);
      }
    },
  );

  test.each([
    'rm -rf /tmp/..',
    'X=/; rm -rf $X',
    'rm -rf /*',
    'rm -rf --no-preserve-root /',
    `rm -rf ~ /root /home ${homedir()}`,
    'chmod -R 000 /',
    'kill -9 -1',
    'mount -o remount,rw,bind /usr; touch /usr/agent-std-pwned',
    'mount -o remount,rw,bind {readOnly}; rm -f {readOnly}/canary.txt',
    'echo pwned > /etc/agent-std-pwned',
    'umount -l /usr; umount -l /etc; echo pwned > /etc/agent-std-pwned',
  ])('%s: the host keeps its files and processes', async (command) => {
    const kept = [await fingerprint(hidden), await fingerprint(readOnly)];
    await sandboxed(command.replaceAll('{readOnly}', readOnly));
    expect([await fingerprint(hidden), await fingerprint(readOnly)]).toEqual(kept);
    expect(existsSync('/usr/agent-std-pwned')).toBe(false);
    expect(existsSync('/etc/agent-std-pwned')).toBe(false);
    expect(hostProcess.exitCode).toBeNull();
    expect(hostProcess.signalCode).toBeNull();
    expect(existsSync(homedir())).toBe(true);
  });

  test('the fs root is writable and /tmp is private: nothing written there reaches the host', async () => {
    const name = `agent-std-private-${newTag()}`;
    const result = await sandboxed(`echo inside > made.txt; echo x > /tmp/${name}; ls /tmp`);
    expect(result.success).toBe(true);
    expect(await readFile(join(root, 'made.txt'), 'utf8')).toBe('inside\n');
    expect(result.stdout).toContain(name);
    expect(existsSync(join('/tmp', name))).toBe(false);
  });

  test('with read-only files (policy.fs.readOnly) the fs root can be read but not changed', async () => {
    await writeFile(join(root, 'kept.txt'), 'kept\n');
    const policy = resolveToolPolicy({
      fs: { root, readOnly: true },
      shell: { enabled: true },
    });
    const result = await runShellCommand(
      'cat kept.txt; echo changed > kept.txt; rm kept.txt; touch new.txt; test -e new.txt && echo made',
      60,
      policy,
      new AbortController().signal,
    );
    expect(result.stdout).toBe('kept\n');
    expect(result.stderr).toContain('Read-only file system');
    expect(await readFile(join(root, 'kept.txt'), 'utf8')).toBe('kept\n');
    expect(existsSync(join(root, 'new.txt'))).toBe(false);
    await rm(join(root, 'kept.txt'));
  });

  test('there is no home folder and no other user data: HOME is the private /tmp', async () => {
    const result = await sandboxed(`echo "$HOME"; ls -d ${homedir()} /home /root /work /var 2>&1`);
    expect(result.stdout.split('\n')[0]).toBe('/tmp');
    for (const folder of [homedir(), '/home', '/root', '/var']) {
      expect(result.stdout).toContain(`cannot access '${folder}'`);
    }
  });

  test('secrets of /etc are hidden', async () => {
    const result = await sandboxed(
      'cat /etc/shadow && echo shadow-read; grep -c . /etc/passwd > /dev/null && echo readable',
    );
    expect(result.stdout).toBe('readable\n');
  });

  test('the command sees only its own processes', async () => {
    const result = await sandboxed(
      `ls /proc | grep -c '^[0-9]'; kill -0 ${hostProcess.pid} && echo reached`,
    );
    expect(Number(result.stdout.split('\n')[0])).toBeLessThanOrEqual(5);
    expect(result.stdout).not.toContain('reached');
  });

  test.each([
    `bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}; cat <&3'`,
    `python3 -c "import socket; print(socket.create_connection(('127.0.0.1', {port}), timeout=5).recv(10))"`,
    `perl -MIO::Socket::INET -e 'print IO::Socket::INET->new("127.0.0.1:{port}")->getline'`,
    'curl -s --http0.9 --max-time 5 http://127.0.0.1:{port}/',
  ])(
    '%s: no connection leaves the sandbox, unless the policy allows the network',
    async (template) => {
      const command = template.replaceAll('{port}', String(port));
      const before = connections;
      const closed = await sandboxed(command);
      expect(closed.stdout).not.toContain('hello');
      expect(connections).toBe(before);
      const open = await sandboxed(command, { allowNetwork: true });
      expect(open.stdout).toContain('hello');
      expect(connections).toBeGreaterThan(before);
    },
  );

  test('the network namespace holds only a loopback interface', async () => {
    const result = await sandboxed('cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "');
    expect(result.stdout).toBe('lo\n');
  });
});

describe.runIf(process.platform === 'linux')('the sandbox and the process running it', () => {
  test('when the process running the tool dies, everything in the sandbox dies with it', async () => {
    const tag = newTag();
    for (const unsandboxed of [false, true]) {
      const child = spawn(
        process.execPath,
        [
          shellOnce,
          root,
          'sleep 60',
          JSON.stringify({ unsandboxed, env: { [TAG_VARIABLE]: tag } }),
        ],
        { stdio: 'ignore' },
      );
      await waitForTagged(tag, 'sleep 60');
      child.kill('SIGKILL');
      if (unsandboxed) {
        // Without the sandbox an orphan survives its parent: the difference the sandbox makes.
        const survivors = await taggedProcesses(tag);
        expect(survivors.size).toBeGreaterThan(0);
        for (const pid of survivors.keys()) process.kill(pid, 'SIGKILL');
      } else {
        expect(await allTaggedGone(tag)).toBe(true);
      }
    }
  });

  test('without bubblewrap on the PATH the shell is refused, naming policy.shell.unsandboxed', async () => {
    const { stdout } = await run(process.execPath, [shellOnce, root, 'echo ran', '{}'], {
      env: { ...process.env, PATH: '/nonexistent' },
    });
    const reply = JSON.parse(stdout) as { ok: boolean; code: string; content: string };
    expect(reply).toMatchObject({ ok: false, code: 'TOOL_SANDBOX_UNAVAILABLE' });
    expect(reply.content).toContain('bubblewrap (bwrap) is not installed');
    expect(reply.content).toContain('policy.shell.unsandboxed: true');
    const { stdout: allowed } = await run(
      process.execPath,
      [shellOnce, root, 'echo ran', '{"unsandboxed":true}'],
      { env: { ...process.env, PATH: '/nonexistent' } },
    );
    expect(JSON.parse(allowed)).toMatchObject({ ok: true });
  });

  test('where the kernel refuses the namespaces, the shell is refused with bubblewrap’s reason', async () => {
    // An outer bubblewrap that forbids new user namespaces: the tool's bubblewrap cannot start.
    const bwrap = (await run('sh', ['-c', 'command -v bwrap'])).stdout.trim();
    const { stdout } = await run(bwrap, [
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--bind',
      base,
      base,
      '--unshare-user',
      '--disable-userns',
      '--unshare-pid',
      '--cap-drop',
      'ALL',
      '--',
      process.execPath,
      shellOnce,
      root,
      'echo ran',
      '{}',
    ]);
    const reply = JSON.parse(stdout) as { ok: boolean; code: string; content: string };
    expect(reply).toMatchObject({ ok: false, code: 'TOOL_SANDBOX_UNAVAILABLE' });
    expect(reply.content).toMatch(/cannot set it up on this machine: bwrap: .*namespace/);
    expect(reply.content).toContain('policy.shell.unsandboxed: true');
  });
});
