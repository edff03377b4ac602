import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  type CommandRunner,
  createPrivateFile,
  execFileRunner,
  restrictToCurrentUser,
  writePrivateFileAtomic,
} from './private-file.ts';

/** What happened, in order: each command run, with the content of its file at that moment. */
type Step =
  | { command: string; args: readonly string[]; timeoutMs: number; fileAtThatMoment?: string }
  | { note: string };

/** A command runner standing in for Windows' icacls and whoami, recording every call. */
function recordingRunner(
  steps: Step[],
  answers: { whoami?: string; icaclsFails?: string } = {},
): CommandRunner {
  return async (command, args, { timeoutMs }) => {
    const fileAtThatMoment =
      command === 'icacls' ? await readFile(args[0]!, 'utf8').catch(() => '(missing)') : undefined;
    steps.push({
      command,
      args,
      timeoutMs,
      ...(fileAtThatMoment === undefined ? {} : { fileAtThatMoment }),
    });
    if (command === 'whoami') return answers.whoami ?? '';
    if (answers.icaclsFails) throw new Error(answers.icaclsFails);
    return 'processed file: x\r\nSuccessfully processed 1 files; Failed processing 0 files\r\n';
  };
}

const WINDOWS_USER = { USERDOMAIN: 'LAB-PC-07', USERNAME: 'student' };

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'private-file-'));
});

function warnings() {
  const messages: string[] = [];
  return {
    messages,
    logger: { warn: (_details: object, message?: string) => messages.push(message ?? '') },
  };
}

describe('restrictToCurrentUser', () => {
  it('on Windows runs icacls dropping inherited access and granting DOMAIN\\user full control', async () => {
    const path = join(folder, '.env');
    await writeFile(path, '');
    const steps: Step[] = [];
    const restricted = await restrictToCurrentUser(path, {
      platform: 'win32',
      environment: WINDOWS_USER,
      runCommand: recordingRunner(steps),
    });
    expect(restricted).toBe(true);
    expect(steps).toEqual([
      {
        command: 'icacls',
        args: [path, '/inheritance:r', '/grant:r', 'LAB-PC-07\\student:F'],
        timeoutMs: 10_000,
        fileAtThatMoment: '',
      },
    ]);
  });

  it('asks whoami for the user when USERNAME is not set', async () => {
    const path = join(folder, 'token');
    const steps: Step[] = [];
    await restrictToCurrentUser(path, {
      platform: 'win32',
      environment: {},
      timeoutMs: 3000,
      runCommand: recordingRunner(steps, { whoami: 'lab-pc-07\\student\r\n' }),
    });
    expect(steps.map((step) => ('command' in step ? [step.command, ...step.args] : []))).toEqual([
      ['whoami'],
      ['icacls', path, '/inheritance:r', '/grant:r', 'lab-pc-07\\student:F'],
    ]);
    expect(steps.every((step) => 'timeoutMs' in step && step.timeoutMs === 3000)).toBe(true);
  });

  it('logs a failing icacls as a warning naming the file, and never throws', async () => {
    const path = join(folder, '.env');
    const { messages, logger } = warnings();
    const restricted = await restrictToCurrentUser(
      path,
      {
        platform: 'win32',
        environment: WINDOWS_USER,
        runCommand: recordingRunner([], {
          icaclsFails:
            'icacls exit code 1332: No mapping between account names and security IDs was done.',
        }),
      },
      logger,
    );
    expect(restricted).toBe(false);
    expect(messages).toEqual([
      `Could not make ${path} readable by LAB-PC-07\\student only (icacls exit code 1332: No mapping between account names and security IDs was done.): other users of this computer may be able to read it.`,
    ]);
  });

  it('warns when the real icacls fails (here: not installed; on Windows: an unknown user)', async () => {
    const path = join(folder, '.env');
    const { messages, logger } = warnings();
    const restricted = await restrictToCurrentUser(
      path,
      { platform: 'win32', environment: WINDOWS_USER },
      logger,
    );
    expect(restricted).toBe(false);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(
      `Could not make ${path} readable by LAB-PC-07\\student only (icacls `,
    );
  });

  it('runs nothing on Linux and macOS, where the mode 0600 does it', async () => {
    const steps: Step[] = [];
    for (const platform of ['linux', 'darwin'] as const) {
      expect(
        await restrictToCurrentUser(join(folder, '.env'), {
          platform,
          environment: WINDOWS_USER,
          runCommand: recordingRunner(steps),
        }),
      ).toBe(true);
    }
    expect(steps).toEqual([]);
  });
});

describe('execFileRunner', () => {
  it('gives the output, and names a failure or a timeout', async () => {
    expect(
      await execFileRunner(process.execPath, ['-e', 'process.stdout.write("hi")'], {
        timeoutMs: 20_000,
      }),
    ).toBe('hi');
    await expect(
      execFileRunner(process.execPath, ['-e', 'console.error("access denied"); process.exit(5)'], {
        timeoutMs: 20_000,
      }),
    ).rejects.toThrow(`${process.execPath} exit code 5: access denied`);
    await expect(
      execFileRunner(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { timeoutMs: 300 }),
    ).rejects.toThrow('timed out after 300 ms');
  });
});

describe('createPrivateFile', () => {
  it('on Windows creates the file empty, restricts it, then writes the secret', async () => {
    const path = join(folder, '_shutdown.token');
    const steps: Step[] = [];
    await createPrivateFile(path, 'the-secret-token', {
      platform: 'win32',
      environment: WINDOWS_USER,
      runCommand: recordingRunner(steps),
    });
    // icacls ran on the file once it existed and before the secret was in it.
    expect(steps).toEqual([
      {
        command: 'icacls',
        args: [path, '/inheritance:r', '/grant:r', 'LAB-PC-07\\student:F'],
        timeoutMs: 10_000,
        fileAtThatMoment: '',
      },
    ]);
    expect(await readFile(path, 'utf8')).toBe('the-secret-token');
  });

  it('still writes the file when icacls fails, with a warning', async () => {
    const path = join(folder, '_shutdown.token');
    const { messages, logger } = warnings();
    await createPrivateFile(
      path,
      'the-secret-token',
      {
        platform: 'win32',
        environment: WINDOWS_USER,
        runCommand: recordingRunner([], { icaclsFails: 'icacls exit code 5: Access is denied.' }),
      },
      logger,
    );
    expect(await readFile(path, 'utf8')).toBe('the-secret-token');
    expect(messages).toEqual([
      `Could not make ${path} readable by LAB-PC-07\\student only (icacls exit code 5: Access is denied.): other users of this computer may be able to read it.`,
    ]);
  });

  it('on Linux creates the file with mode 0600 and runs nothing', async () => {
    const path = join(folder, '_shutdown.token');
    const steps: Step[] = [];
    await createPrivateFile(path, 'the-secret-token', {
      platform: 'linux',
      runCommand: recordingRunner(steps),
    });
    expect(await readFile(path, 'utf8')).toBe('the-secret-token');
    if (process.platform !== 'win32') expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(steps).toEqual([]);
  });

  it('refuses to replace an existing file and leaves it as it was', async () => {
    const path = join(folder, '.env');
    await writeFile(path, 'LLM_MODEL=mine\n');
    const steps: Step[] = [];
    const error = await createPrivateFile(path, 'x', {
      platform: 'win32',
      environment: WINDOWS_USER,
      runCommand: recordingRunner(steps),
    }).catch((caught: NodeJS.ErrnoException) => caught);
    expect((error as NodeJS.ErrnoException).code).toBe('EEXIST');
    expect(await readFile(path, 'utf8')).toBe('LLM_MODEL=mine\n');
    expect(steps).toEqual([]);
  });
});

describe('writePrivateFileAtomic', () => {
  it('on Windows restricts an empty temp file beside the target, then fills it and renames it over', async () => {
    const path = join(folder, '.env');
    await writeFile(path, 'LLM_API_KEY=sk-old\n');
    const steps: Step[] = [];
    const runner = recordingRunner(steps);
    await writePrivateFileAtomic(path, 'LLM_API_KEY=sk-new-secret\n', {
      platform: 'win32',
      environment: WINDOWS_USER,
      runCommand: async (command, args, options) => {
        steps.push({ note: `target then: ${await readFile(path, 'utf8')}` });
        return runner(command, args, options);
      },
    });
    expect(steps).toHaveLength(2);
    const icacls = steps[1] as Extract<Step, { command: string }>;
    const temp = icacls.args[0]!;
    expect(dirname(temp)).toBe(folder);
    expect(temp).toMatch(/[/\\]\.\.env\.tmp-\d+-[0-9a-f]{8}$/);
    expect(icacls).toEqual({
      command: 'icacls',
      args: [temp, '/inheritance:r', '/grant:r', 'LAB-PC-07\\student:F'],
      timeoutMs: 10_000,
      fileAtThatMoment: '',
    });
    expect(steps[0]).toEqual({ note: 'target then: LLM_API_KEY=sk-old\n' });
    expect(await readFile(path, 'utf8')).toBe('LLM_API_KEY=sk-new-secret\n');
    expect(await readdir(folder)).toEqual(['.env']);
  });

  it('on Linux writes atomically with mode 0600 and runs nothing', async () => {
    const path = join(folder, 'sub', '.env');
    const steps: Step[] = [];
    await writePrivateFileAtomic(path, 'LLM_API_KEY=sk-new\n', {
      platform: 'linux',
      runCommand: recordingRunner(steps),
    });
    expect(await readFile(path, 'utf8')).toBe('LLM_API_KEY=sk-new\n');
    if (process.platform !== 'win32') expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(folder, 'sub'))).toEqual(['.env']);
    expect(steps).toEqual([]);
  });
});
