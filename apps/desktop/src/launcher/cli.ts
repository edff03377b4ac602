// The `class-assistant` command line, shared by `pnpm start` (development layout) and the
// packaged launcher (release layout).
import { parseArgs } from 'node:util';
import type { Environment } from './browser.ts';
import { runLauncher } from './launcher.ts';
import type { LauncherLayout } from './layout.ts';
import { nodeSystem } from './system.ts';

/** The launcher's options after parsing. */
export interface LauncherCommand {
  kind: 'run' | 'help' | 'version';
  port: number;
  window: 'auto' | 'never';
  browser?: string;
  envFile?: string;
  dataDir?: string;
  verbose: boolean;
  /** `--no-cleanup-by-name`: stop stale backends on the port only. */
  cleanupByName: boolean;
}

/** A command-line mistake. */
class LauncherUsageError extends Error {
  readonly code = 'LAUNCHER_USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'LauncherUsageError';
  }
}

/** Usage of `class-assistant --help`. */
const LAUNCHER_USAGE = `class-assistant — start Class Assistant: the backend and its floating window

Usage: class-assistant [options]

  --port <port>          backend port, default 8765 (CLASS_ASSISTANT_PORT)
  --no-window            do not open a window; print the address to open
  --browser <path>       the Chromium-family browser for the window (CLASS_ASSISTANT_BROWSER);
                         default: the first of Chromium, Chrome, Edge, Brave, Vivaldi found
  --settings-file <file> the backend's settings (.env)
  --data-dir <dir>       the backend's data folder
  --verbose              show the backend's console output
  --no-cleanup-by-name   stop stale backends on the port only, not this installation's stale
                         class-assistant-backend processes elsewhere
  -h, --help             show this help
  -v, --version          show the version

When Class Assistant already runs with the same data folder, it opens that one's window (or
prints its address) and leaves it running. Otherwise it stops stale backends (whose launcher is
gone: on the port, or this installation's class-assistant-backend), starts the backend, waits
until it is healthy, opens the app window and stops the backend when the window closes (or on
Ctrl-C). Without a display or a browser it prints the address and runs until Ctrl-C. A running
Class Assistant is never stopped: with a different data folder on the same port, it says so and
exits.`;

/** Reads the launcher's command line. */
export function parseLauncherArgs(
  argv: readonly string[],
  environment: Environment,
): LauncherCommand {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv.filter((argument) => argument !== '--'),
      options: {
        port: { type: 'string' },
        'no-window': { type: 'boolean' },
        browser: { type: 'string' },
        'settings-file': { type: 'string' },
        'data-dir': { type: 'string' },
        verbose: { type: 'boolean' },
        'no-cleanup-by-name': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new LauncherUsageError(`${(error as Error).message}\nRun with --help for the options.`);
  }
  const portText =
    (values.port as string | undefined) ?? environment.CLASS_ASSISTANT_PORT ?? '8765';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) {
    throw new LauncherUsageError(`--port must be a number from 1 to 65535, got "${portText}".`);
  }
  const browser = (values.browser as string | undefined) ?? environment.CLASS_ASSISTANT_BROWSER;
  return {
    kind: values.help ? 'help' : values.version ? 'version' : 'run',
    port,
    window: values['no-window'] ? 'never' : 'auto',
    ...(browser ? { browser } : {}),
    ...(values['settings-file'] ? { envFile: values['settings-file'] as string } : {}),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] as string } : {}),
    verbose: values.verbose === true,
    cleanupByName: values['no-cleanup-by-name'] !== true,
  };
}

/** Options of {@link launcherMain}. */
export interface LauncherMainOptions {
  argv: readonly string[];
  version: string;
  /** The layout, given the settings and data overrides of the command line. */
  layout(command: LauncherCommand): LauncherLayout | Promise<LauncherLayout>;
  prepare?(): Promise<void>;
}

/** Runs the launcher as a program: parses, runs until the window closes or Ctrl-C, exits. */
export async function launcherMain(options: LauncherMainOptions): Promise<number> {
  let command: LauncherCommand;
  try {
    command = parseLauncherArgs(options.argv, process.env);
  } catch (error) {
    if (error instanceof LauncherUsageError) {
      process.stderr.write(`class-assistant: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (command.kind === 'help') {
    process.stdout.write(`${LAUNCHER_USAGE}\n`);
    return 0;
  }
  if (command.kind === 'version') {
    process.stdout.write(`${options.version}\n`);
    return 0;
  }
  const stopSignal = new Promise<string>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.once(signal, () => resolve(`${signal} received`));
    }
  });
  const print = (line: string) => {
    try {
      process.stdout.write(`class-assistant: ${line}\n`);
    } catch {
      // No console (the packaged launcher on Windows): the log file has it.
    }
  };
  print(`Class Assistant ${options.version}`);
  try {
    return await runLauncher({
      layout: await options.layout(command),
      system: nodeSystem(),
      environment: process.env,
      port: command.port,
      window: command.window,
      ...(command.browser ? { browser: command.browser } : {}),
      verbose: command.verbose,
      cleanupByName: command.cleanupByName,
      appVersion: options.version,
      print,
      stopSignal,
      ...(options.prepare ? { prepare: options.prepare } : {}),
    });
  } catch (error) {
    // Whatever went wrong (a folder that cannot be created, a browser that cannot start), say
    // it in one line; the details are not a stack trace for the student.
    print(`could not run: ${(error as Error).message}`);
    return 1;
  }
}
