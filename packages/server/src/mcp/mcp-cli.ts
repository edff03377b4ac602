/**
 * `class-assistant-backend mcp`: the MCP server of the student's lectures on stdin/stdout, for
 * MCP clients that start a process. It reads the same data folder as the backend (which may be
 * running: the library's index is opened read-only and the class folders only read) and serves
 * until stdin closes. Only the protocol goes to stdout; messages go to stderr.
 */
import { existsSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { createClassTools } from '../agent/class-tools.ts';
import { createLectures, lectureIndexOf } from '../agent/lectures.ts';
import { CliUsageError, DATA_FOLDER_OPTIONS, dataDirOf } from '../cli-options.ts';
import { dataPaths } from '../data-folder.ts';
import { LibraryIndex } from '../library/library-index.ts';
import { createLecturesMcpServer } from './lectures-mcp-server.ts';

/** Usage text of `class-assistant-backend mcp --help`. */
const MCP_USAGE = `class-assistant-backend mcp — the student's lectures over MCP (stdio)

Usage: class-assistant-backend mcp [--data-dir <dir>] [--settings-file <file>]
       class-assistant-backend mcp token [--data-dir <dir>] [--settings-file <file>]

Serves the class tools (class_list, class_search, class_lines, material_page, notes_read) to
an MCP client on stdin/stdout until stdin closes. They only read the data folder; the backend
may run at the same time.

Options:
  --data-dir <dir>         the data folder, as for the server (CLASS_ASSISTANT_DATA_DIR)
  --settings-file <file>   the settings file, as for the server (its folder holds data/ by
                           default); also --env-file
  -h, --help               show this help

The running backend serves the same tools over Streamable HTTP at http://127.0.0.1:8765/mcp
with the token of <data folder>/mcp-token (Authorization: Bearer <token>): \`mcp token\` prints
it. The token is never served over HTTP (every user of the computer can reach that port).`;

/** The protocol's streams and where messages go (the process's, replaced in tests). */
export interface McpCliStreams {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

/**
 * Runs `mcp` and resolves with the exit code once stdin closes (2 for a usage error).
 *
 * @example
 * process.exitCode = await runMcpCli(['--data-dir', '/home/me/class-assistant/data']);
 */
export async function runMcpCli(
  argv: readonly string[],
  environment: Readonly<Record<string, string | undefined>> = process.env,
  streams: McpCliStreams = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const say = (message: string) =>
    streams.stderr.write(`class-assistant-backend mcp: ${message}\n`);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv.filter((argument) => argument !== '--'),
      options: {
        ...DATA_FOLDER_OPTIONS,
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    say(`${(error as Error).message}\n\n${MCP_USAGE}`);
    return 2;
  }
  if (values.help) {
    streams.stderr.write(`${MCP_USAGE}\n`);
    return 0;
  }
  let dataDir: string;
  try {
    dataDir = dataDirOf(values, environment);
  } catch (error) {
    if (error instanceof CliUsageError) {
      say(error.message);
      return 2;
    }
    throw error;
  }
  if (!existsSync(dataDir)) {
    say(`no data folder at ${dataDir} yet: the tools will find no classes until one is recorded`);
  }
  const index = LibraryIndex.openForReading(dataPaths(dataDir).libraryIndex);
  if (!index) say(`no library index in ${dataDir}: searching the class folders directly`);
  const lectures = createLectures({ dataDir, index: index ? lectureIndexOf(index) : null });
  const server = await createLecturesMcpServer(createClassTools(lectures));
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const closed = new Promise<void>((resolve) => {
    streams.stdin.once('end', resolve);
    streams.stdin.once('close', resolve);
  });
  await server.connect(new StdioServerTransport(streams.stdin, streams.stdout));
  say(`serving the lectures of ${dataDir}`);
  await closed;
  await server.close();
  index?.close();
  return 0;
}
