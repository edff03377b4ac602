// The `class-agent` executable (bin/class-agent.js runs this file, or dist/cli.js when published).
import { runCli } from './cli-main.ts';

const controller = new AbortController();
let interrupted = false;
process.on('SIGINT', () => {
  // Ctrl-C stops a run cleanly (exit 130); a second one, or two seconds later, exits at once.
  if (interrupted) process.exit(130);
  interrupted = true;
  controller.abort();
  setTimeout(() => process.exit(130), 2000).unref();
});

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
});
