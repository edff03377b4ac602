import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import { z } from 'zod';
import { ToolError } from '../errors.ts';
import type { ResolvedToolPolicy } from '../policy.ts';
import { defineTool } from '../tool.ts';
import {
  collectDescendants,
  newRunMarker,
  type ProcessSet,
  processStartTime,
  RUN_MARKER_VARIABLE,
  signalAll,
} from './process-tree.ts';
import { type PreparedCommand, prepareCommand, visibleInSandbox } from './sandbox.ts';
import { findExecutable } from './shared.ts';
import { checkShellCommand } from './shell-guard.ts';

/** Environment variables passed on to commands; everything else (API keys, tokens) is dropped. */
export const SHELL_ENV_KEPT: readonly string[] = [
  'PATH',
  'HOME',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_MESSAGES',
  'TZ',
  'TERM',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
];

const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';
/** How long the tool waits for output pipes after the shell exited before giving up on them. */
const PIPE_GRACE_MS = 1000;
/** How long a command gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 1000;

/**
 * The clean environment commands run with: the kept variables of the host process, then what the
 * sandbox sets (`sandboxEnv`: HOME and TMPDIR), then `policy.shell.env`.
 */
function shellEnvironment(
  policy: ResolvedToolPolicy,
  sandboxEnv: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of SHELL_ENV_KEPT) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  env.PATH ??= DEFAULT_PATH;
  return { ...env, ...sandboxEnv, ...policy.shell.env };
}

function requireEnabled(policy: ResolvedToolPolicy, tool: string): void {
  if (!policy.shell.enabled) {
    throw new ToolError(
      'TOOL_POLICY_DENIED',
      'the shell is disabled; it must be enabled with policy.shell.enabled',
      { tool },
    );
  }
}

class OutputBuffer {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private dropped = 0;
  private readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }
  push(chunk: Buffer): void {
    const room = this.limit - this.kept;
    if (room > 0) {
      const part = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
      this.chunks.push(part);
      this.kept += part.byteLength;
    }
    this.dropped += Math.max(0, chunk.byteLength - Math.max(room, 0));
  }
  text(): string {
    const text = Buffer.concat(this.chunks).toString('utf8');
    return this.dropped > 0
      ? `${text}\n[output truncated: ${this.dropped} more bytes dropped (policy.shell.maxOutputBytes = ${this.limit})]`
      : text;
  }
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    // The negative pid addresses the whole process group: the shell and everything it started.
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** What `shell_exec` returns. */
export interface ShellResult {
  stdout: string;
  stderr: string;
  returncode: number;
  success: boolean;
}

function runCommand(
  prepared: PreparedCommand,
  timeoutSeconds: number,
  policy: ResolvedToolPolicy,
  signal: AbortSignal,
): Promise<ShellResult> {
  const tool = 'shell_exec';
  return new Promise((resolve, reject) => {
    const stdout = new OutputBuffer(policy.shell.maxOutputBytes);
    const stderr = new OutputBuffer(policy.shell.maxOutputBytes);
    // detached: the shell (or the sandbox program) leads a new process group in a new session,
    // so a timeout can kill the whole tree. The marker in the environment finds, on Linux, what
    // left the group (see process-tree.ts).
    const marker = newRunMarker();
    const child = spawn(prepared.file, prepared.args, {
      cwd: policy.shell.cwd,
      env: { ...shellEnvironment(policy, prepared.env), [RUN_MARKER_VARIABLE]: marker },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Processes found outside the group, kept for the SIGKILL that follows a SIGTERM.
    let outside: ProcessSet = new Map();
    // The shell's start time: its descendants started no earlier, so older processes are skipped.
    const since = child.pid === undefined ? undefined : processStartTime(child.pid);
    const collect = (pid: number, known?: ProcessSet) =>
      collectDescendants(pid, marker, { stop: true, since, ...(known ? { known } : {}) });
    // The kill of what a finished command left behind; the call settles after it.
    let cleanup: Promise<void> = Promise.resolve();
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));

    let ending: ToolError | undefined;
    let settled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    let killTimer: NodeJS.Timeout | undefined;

    let finishing = false;
    const finish = () => {
      if (finishing || settled) return;
      finishing = true;
      void cleanup.finally(settle);
    };
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      clearTimeout(killTimer);
      signal.removeEventListener('abort', onAbort);
      if (ending) {
        reject(
          new ToolError(ending.code, ending.message, {
            tool,
            field: ending.field,
            details: { stdout: stdout.text(), stderr: stderr.text() },
          }),
        );
        return;
      }
      const code = exit?.code;
      const returncode = code ?? (exit?.signal ? -(osConstants.signals[exit.signal] ?? 1) : -1);
      resolve({
        stdout: stdout.text(),
        stderr: stderr.text(),
        returncode,
        success: returncode === 0,
      });
    };
    const stop = (error: ToolError) => {
      if (ending || settled) return;
      ending = error;
      const pid = child.pid;
      if (pid === undefined) return;
      void (async () => {
        // Freeze the group, then find (and freeze) what left it, so nothing forks meanwhile;
        // then SIGTERM everything and let it run to handle the signal.
        killGroup(pid, 'SIGSTOP');
        outside = await collect(pid);
        killGroup(pid, 'SIGTERM');
        signalAll(outside.keys(), 'SIGTERM');
        killGroup(pid, 'SIGCONT');
        signalAll(outside.keys(), 'SIGCONT');
        if (settled) return;
        killTimer = setTimeout(async () => {
          killGroup(pid, 'SIGKILL');
          const left = await collect(pid, outside);
          signalAll(left.keys(), 'SIGKILL');
        }, KILL_GRACE_MS);
      })();
    };
    const timer = setTimeout(
      () =>
        stop(
          new ToolError(
            'TOOL_TIMEOUT',
            `the command ran longer than ${timeoutSeconds} s and was killed with everything it started`,
            { tool, field: 'timeout' },
          ),
        ),
      timeoutSeconds * 1000,
    );
    const onAbort = () => stop(new ToolError('TOOL_ABORTED', 'the call was aborted', { tool }));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });

    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(
        new ToolError('TOOL_FAILED', `could not start the shell: ${error.message}`, {
          tool,
          cause: error,
        }),
      );
    });
    child.on('exit', (code, exitSignal) => {
      exit = { code, signal: exitSignal };
      // Background processes left behind would hold the pipes open: the tool runs one command,
      // so whatever remains of it — its process group, and on Linux what left the group — is
      // ended with it.
      killGroup(child.pid, 'SIGKILL');
      const pid = child.pid;
      if (pid !== undefined) {
        cleanup = collect(pid, outside).then((left) => signalAll(left.keys(), 'SIGKILL'));
      }
      graceTimer = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, PIPE_GRACE_MS);
    });
    child.on('close', finish);
  });
}

/**
 * Runs `command` the way `shell_exec` does once its checks passed: in the OS sandbox (unless
 * `policy.shell.unsandboxed`), with the clean environment, the timeout, the output caps and the
 * process-tree kill — but without the deny list, the allow list and the policy switch. The
 * sandbox tests use it to run what the deny list would refuse.
 */
export async function runShellCommand(
  command: string,
  timeoutSeconds: number,
  policy: ResolvedToolPolicy,
  signal: AbortSignal,
): Promise<ShellResult> {
  const prepared = await prepareCommand(policy, command);
  try {
    return await runCommand(prepared, timeoutSeconds, policy, signal);
  } finally {
    await prepared.dispose();
  }
}

export const shellExec = defineTool({
  name: 'shell_exec',
  namespace: 'std.shell',
  title: 'Run a shell command',
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  description:
    'Run a command with /bin/sh in the allowed folder and return its stdout, stderr and exit code. Only when the shell is enabled by policy. Commands run in an OS sandbox: only the allowed folder is writable, /tmp is private, there is no home folder and no network unless the policy allows it; obviously dangerous commands are refused; a clean environment and a timeout (default 30 s).',
  schemas: () => ({
    input: z
      .object({
        command: z.string().min(1).describe('The shell command line.'),
        timeout: z
          .number()
          .int()
          .min(1)
          .default(30)
          .describe(
            'Seconds before the command and everything it started are killed (default 30).',
          ),
      })
      .strict(),
    output: z.object({
      stdout: z.string().describe('Standard output (capped).'),
      stderr: z.string().describe('Standard error (capped).'),
      returncode: z
        .number()
        .int()
        .describe(
          'Exit code; minus the signal number if killed (in the sandbox 128 + the signal number, as a shell reports it).',
        ),
      success: z.boolean().describe('True when the exit code is 0.'),
    }),
  }),
  async execute({ command, timeout }, { policy, signal }) {
    const tool = 'shell_exec';
    requireEnabled(policy, tool);
    if (command.includes('\0')) {
      throw new ToolError('TOOL_BAD_INPUT', 'command contains a NUL byte', {
        tool,
        field: 'command',
      });
    }
    const limit = policy.shell.maxTimeoutSeconds;
    if (timeout > limit) {
      throw new ToolError(
        'TOOL_POLICY_DENIED',
        `timeout ${timeout} s is above the policy limit of ${limit} s (policy.shell.maxTimeoutSeconds)`,
        { tool, field: 'timeout' },
      );
    }
    const refusal = checkShellCommand(command, policy.shell);
    if (refusal) {
      throw new ToolError('TOOL_POLICY_DENIED', `command refused: ${refusal}`, {
        tool,
        field: 'command',
      });
    }
    try {
      if (!(await stat(policy.shell.cwd)).isDirectory()) throw new Error('not a folder');
    } catch (cause) {
      throw new ToolError(
        'TOOL_BAD_POLICY',
        `the shell's working folder ${policy.shell.cwd} does not exist`,
        { tool, field: 'policy.shell.cwd', cause },
      );
    }
    return runShellCommand(command, timeout, policy, signal);
  },
});

export const shellWhich = defineTool({
  name: 'shell_which',
  namespace: 'std.shell',
  title: 'Find a program',
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  description:
    'Find where an executable is on the PATH (like `which`). Only when the shell is enabled by policy.',
  schemas: () => ({
    input: z.object({ command: z.string().describe('A bare command name, e.g. "git".') }).strict(),
    output: z.object({
      command: z.string().describe('The name as given.'),
      path: z.string().describe('Full path of the executable, or "" when not found.'),
      found: z.boolean().describe('Whether it was found.'),
    }),
  }),
  async execute({ command }, { policy }) {
    const tool = 'shell_which';
    requireEnabled(policy, tool);
    if (!/^[A-Za-z0-9._+-]+$/.test(command) || command === '.' || command === '..') {
      throw new ToolError(
        'TOOL_BAD_INPUT',
        'command must be a bare program name (letters, digits, . _ + -), without a path',
        { tool, field: 'command' },
      );
    }
    const path = await findExecutable(
      command,
      shellEnvironment(policy).PATH ?? DEFAULT_PATH,
      (candidate) => visibleInSandbox(candidate, policy),
    );
    return path === undefined
      ? { command, path: '', found: false }
      : { command, path, found: true };
  },
});
