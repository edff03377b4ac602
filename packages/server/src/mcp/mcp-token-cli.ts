/**
 * `class-assistant-backend mcp token`: prints the token MCP clients send to `/mcp`, from the data
 * folder the backend uses. The backend never serves it over HTTP (every user of the computer can
 * reach the loopback port); the file and this command are for its owner only.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { CliUsageError, DATA_FOLDER_OPTIONS, dataDirOf } from '../cli-options.ts';
import { loadMcpToken, MCP_TOKEN_FILE } from './mcp-token.ts';

/** Usage text of `class-assistant-backend mcp token --help`. */
const MCP_TOKEN_USAGE = `class-assistant-backend mcp token — print the token of the MCP server

Usage: class-assistant-backend mcp token [--data-dir <dir>] [--settings-file <file>]

Prints the token MCP clients send to http://127.0.0.1:8765/mcp as
"Authorization: Bearer <token>", read from <data folder>/${MCP_TOKEN_FILE} (readable by its owner
only). A data folder without a token gets one, which the backend then uses too.

Options:
  --data-dir <dir>         the data folder, as for the server (CLASS_ASSISTANT_DATA_DIR)
  --settings-file <file>   the settings file, as for the server (its folder holds data/ by
                           default); also --env-file
  -h, --help               show this help`;

/** Where the token and the messages go (the process's, replaced in tests). */
export interface McpTokenCliStreams {
  stdout: Writable;
  stderr: Writable;
}

/**
 * Runs `mcp token`: the token and a newline on stdout, exit code 0; 2 for a usage error, 1 when
 * there is no data folder or the token cannot be read.
 *
 * @example
 * process.exitCode = await runMcpTokenCli(['--data-dir', '/home/me/class-assistant/data']);
 */
export async function runMcpTokenCli(
  argv: readonly string[],
  environment: Readonly<Record<string, string | undefined>> = process.env,
  streams: McpTokenCliStreams = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const say = (message: string) =>
    streams.stderr.write(`class-assistant-backend mcp token: ${message}\n`);
  let dataDir: string;
  try {
    const { values } = parseArgs({
      args: argv.filter((argument) => argument !== '--'),
      options: {
        ...DATA_FOLDER_OPTIONS,
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.help) {
      streams.stdout.write(`${MCP_TOKEN_USAGE}\n`);
      return 0;
    }
    dataDir = dataDirOf(values, environment);
  } catch (error) {
    say(
      `${error instanceof CliUsageError ? error.message : (error as Error).message}\n\n${MCP_TOKEN_USAGE}`,
    );
    return 2;
  }
  if (!existsSync(dataDir)) {
    say(
      `no data folder at ${dataDir}: start Class Assistant once, or name its folder with --data-dir or --settings-file.`,
    );
    return 1;
  }
  const made = !existsSync(join(dataDir, MCP_TOKEN_FILE));
  try {
    const token = await loadMcpToken(dataDir);
    if (made) say(`made a new token in ${join(dataDir, MCP_TOKEN_FILE)}`);
    streams.stdout.write(`${token}\n`);
    return 0;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    say(
      code === 'EACCES' || code === 'EPERM'
        ? `cannot read ${join(dataDir, MCP_TOKEN_FILE)}: only the user who runs Class Assistant may.`
        : `cannot read the token: ${(error as Error).message}`,
    );
    return 1;
  }
}
