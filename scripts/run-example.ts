// Runs one example file the way a user runs it — `node <file>` in a fresh process, offline (no
// service keys in its environment) — and compares what it printed with what it promises. Used by
// the package tests (scripts/readme-examples.ts, on the workspace's files) and by
// `pnpm check:consumer` (scripts/check-consumer.ts, on the files of the installed packages), so
// both check the same promises: each package lists them once, in test/example-output.ts.
import { spawn } from 'node:child_process';

/** What one example must print on stdout: each string or pattern, in any order. */
export type ExampleOutput = ReadonlyArray<string | RegExp>;

/**
 * What one example is checked with: the output it must print, or, for an example that reads
 * its stdin (a server on stdin/stdout), what it is sent — stdin then closes — and the output.
 */
export type ExampleExpectation = ExampleOutput | { stdin: string; stdout: ExampleOutput };

/** A package's examples by file name (`streaming.mts`), each with what it must print. */
export type ExampleExpectations = Readonly<Record<string, ExampleExpectation>>;

/** The outcome of one example run. */
export interface ExampleRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Variables that would take an example online; removed so that the offline path runs. */
const ONLINE_VARIABLES = /^(STREAM_ASR_|CLOUD_ASR_|LLM_|OPENAI_|CLASS_ASSISTANT_)|^NODE_OPTIONS$/;

/** `environment` without the variables that would take an example online. */
export function offlineEnvironment(environment: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(environment).filter(([name]) => !ONLINE_VARIABLES.test(name)),
  );
}

/** The stdin an expectation sends and the output it requires. */
export function expectationParts(expectation: ExampleExpectation): {
  stdin: string | undefined;
  stdout: ExampleOutput;
} {
  return 'stdin' in expectation
    ? { stdin: expectation.stdin, stdout: expectation.stdout }
    : { stdin: undefined, stdout: expectation };
}

/**
 * Runs `node <file>` in `cwd` as a user would, without any service keys, and collects its
 * output. `node` is the Node.js binary (default: the one running this); `environment` the
 * environment before the service keys are removed (default: this process's); `stdin` is written
 * to the example, then closed (without it, stdin is closed at once). Killed after `timeoutMs` (default 60 s).
 */
export function runExample(
  cwd: string,
  file: string,
  options: {
    node?: string;
    environment?: NodeJS.ProcessEnv;
    stdin?: string | undefined;
    args?: string[];
    timeoutMs?: number;
  } = {},
): Promise<ExampleRun> {
  const child = spawn(options.node ?? process.execPath, [file, ...(options.args ?? [])], {
    cwd,
    env: offlineEnvironment(options.environment ?? process.env),
    stdio: 'pipe',
    timeout: options.timeoutMs ?? 60_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  // Without input the example sees its stdin closed at once, as with `< /dev/null`. An example
  // that exits before reading its input breaks the pipe (EPIPE): its exit code tells the story.
  child.stdin.on('error', () => {});
  child.stdin.end(options.stdin ?? '');
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** The entries of `output` that `stdout` lacks, as written (a pattern as `/…/`). */
export function missingOutput(stdout: string, output: ExampleOutput): string[] {
  return output
    .filter((expected) =>
      typeof expected === 'string' ? !stdout.includes(expected) : !expected.test(stdout),
    )
    .map(String);
}
