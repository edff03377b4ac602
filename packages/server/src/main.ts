// The `class-assistant-backend` command: parse options, start, stop gracefully on SIGINT/SIGTERM.
import { flushCompileCache } from 'node:module';
import { AUDIO_CHILD_FLAG, runAudioChild } from './audio/audio-child.ts';
import { CliUsageError, parseCli, USAGE } from './cli-options.ts';
import { runModelsCli } from './models/models-cli.ts';
import { runSherpaChild, SHERPA_CHILD_FLAG } from './recognizers/engines/sherpa-child.ts';
import { type RunningServer, StartupError, startServer } from './server.ts';
import { SERVER_VERSION } from './version.ts';

/**
 * The most a graceful stop may take before the process exits anyway (code 1): the launcher and
 * the operating system expect a backend gone within 5 s of one SIGTERM. AI requests in flight are
 * cancelled at once, so a stop normally takes milliseconds (a class's last lines flushed).
 */
const SHUTDOWN_TIMEOUT_MS = 4_500;

async function main(): Promise<number> {
  // A single-file build starts its microphone child as itself with this flag (no script files).
  if (process.argv.includes(AUDIO_CHILD_FLAG)) {
    const code = await runAudioChild(process.argv);
    if (process.connected) process.disconnect();
    return code;
  }
  // The same for the sherpa engine's process (a class's offline recognition).
  if (process.argv.includes(SHERPA_CHILD_FLAG)) {
    await runSherpaChild();
    return 0;
  }
  // `class-assistant-backend models …` manages offline models and exits.
  if (process.argv[2] === 'models') return runModelsCli(process.argv.slice(3));
  // `class-assistant-backend check-native` loads the offline recognition libraries and exits.
  if (process.argv[2] === 'check-native') {
    const { runCheckNativeCli } = await import('./audio/native-check.ts');
    return runCheckNativeCli(process.argv.slice(3));
  }
  // `class-assistant-backend mcp token` prints the token of /mcp.
  if (process.argv[2] === 'mcp' && process.argv[3] === 'token') {
    const { runMcpTokenCli } = await import('./mcp/mcp-token-cli.ts');
    return runMcpTokenCli(process.argv.slice(4));
  }
  // `class-assistant-backend mcp …` serves the lectures to an MCP client on stdio.
  if (process.argv[2] === 'mcp') {
    // Loaded only for this command: the class tools and agent-std.
    const { runMcpCli } = await import('./mcp/mcp-cli.ts');
    return runMcpCli(process.argv.slice(3));
  }
  // `class-assistant-backend import <file>` imports a recorded lecture and exits.
  if (process.argv[2] === 'import') {
    // Loaded only for this command.
    const { runImportCli } = await import('./import-cli.ts');
    return runImportCli(process.argv.slice(3));
  }
  // `class-assistant-backend eval <folder>` measures offline recognition and exits.
  if (process.argv[2] === 'eval') {
    // Loaded only for this command.
    const { runEvalCli } = await import('./quality/eval-cli.ts');
    return runEvalCli(process.argv.slice(3));
  }
  let command: ReturnType<typeof parseCli>;
  try {
    command = parseCli(process.argv.slice(2));
  } catch (error) {
    if (error instanceof CliUsageError) {
      process.stderr.write(`class-assistant-backend: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (command.kind === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command.kind === 'version') {
    process.stdout.write(`${SERVER_VERSION}\n`);
    return 0;
  }
  // The stop handlers are in place before anything of the server starts: a SIGTERM that comes
  // during start-up (a launcher closing right after it started the backend) is a clean stop too,
  // not the default action of the signal (killed, exit code null). It waits for the start to
  // finish, then closes what started, within the same time limit.
  let server: RunningServer | undefined;
  let stopping = false;
  let finish: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => {
    finish = resolve;
  });
  const closeServer = (running: RunningServer) => {
    running.close().then(
      () => finish(0),
      (error: unknown) => {
        process.stderr.write(
          `class-assistant-backend: shutdown failed: ${(error as Error).message}\n`,
        );
        finish(1);
      },
    );
  };
  const stop = (signal: NodeJS.Signals | 'shutdown request') => {
    if (stopping && signal === 'shutdown request') return;
    if (stopping) {
      process.stderr.write(`class-assistant-backend: ${signal} again, exiting now\n`);
      finish(1);
      return;
    }
    stopping = true;
    const timer = setTimeout(() => {
      process.stderr.write('class-assistant-backend: shutdown took too long, exiting\n');
      finish(1);
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    // Still starting: closed as soon as the start is over (below).
    if (server) closeServer(server);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const start = async (): Promise<number> => {
    try {
      // POST /api/shutdown stops like SIGTERM (Windows has no signals for a windowless process).
      server = await startServer(command.options, {
        requestShutdown: () => stop('shutdown request'),
      });
    } catch (error) {
      if (error instanceof StartupError) {
        process.stderr.write(`class-assistant-backend: ${error.message}\n`);
        return 1;
      }
      throw error;
    }
    // A stop asked for while starting.
    if (stopping) closeServer(server);
    // What was compiled to start is kept for the next start now, not only at exit (a backend
    // stopped by its window closing may never exit cleanly). A no-op unless the bin enabled it.
    else flushCompileCache();
    return done;
  };
  // A second signal, or the time limit, ends the process even while it is still starting.
  return Promise.race([done, start()]);
}

// No top-level await: the release build bundles this file as CommonJS for a Node single
// executable application, and CommonJS has none.
void main().then((code) => {
  process.exitCode = code;
  // A lingering handle (a half-open client socket) must not keep a stopped backend alive.
  setTimeout(() => process.exit(code), 200).unref();
});
