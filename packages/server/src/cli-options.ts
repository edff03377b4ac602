import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { packageFile, runningFromSource } from './assets.ts';
import { appFolderPaths, dataDirBeside } from './data-folder.ts';
import { BUNDLED_APP_VERSION } from './version.ts';

/** How the backend process is started. */
export interface CliOptions {
  host: string;
  port: number;
  /**
   * True when neither `--port` nor CLASS_ASSISTANT_PORT gave the port: then the settings'
   * API_PORT (the original product's key) is used, and `port` is only its default.
   */
  portFromSettings?: boolean;
  dataDir: string;
  envFile: string;
  /** A folder with a built web UI (index.html) to serve at `/`; absent: the landing page. */
  uiDir?: string;
  /** The desktop app's version (CLASS_ASSISTANT_APP_VERSION, or the release bundle's). */
  appVersion?: string;
  /** The desktop launcher that started and owns this backend (CLASS_ASSISTANT_LAUNCHER_PID). */
  launcherPid?: number;
}

/** The outcome of reading the command line. */
export type CliCommand =
  | { kind: 'run'; options: CliOptions }
  | { kind: 'help' }
  | { kind: 'version' };

/** A command-line mistake, reported without a stack trace. */
export class CliUsageError extends Error {
  readonly code = 'CLI_USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

/** Usage text of `class-assistant-backend --help`. */
export const USAGE = `class-assistant-backend — the local backend of Class Assistant

Usage: class-assistant-backend [options]
       class-assistant-backend models list|pull|remove …   offline models (models --help)
       class-assistant-backend eval <folder> [--engine …]   recognition error rates on your
                                                            recordings (eval --help)
       class-assistant-backend import <file> [--course NAME] [--material FILE]
                                                            a recorded lecture into the
                                                            library (import --help)
       class-assistant-backend mcp [--data-dir <dir>]       the lectures over MCP on stdio
                                                            (mcp --help)
       class-assistant-backend mcp token [--data-dir <dir>] print the token of /mcp
       class-assistant-backend check-native [--json]        load the offline recognition
                                                            libraries (check-native --help)

Options (each also as an environment variable):
  --host <host>       loopback address to bind: 127.0.0.1 (default), ::1 or localhost
                      (CLASS_ASSISTANT_HOST). Other addresses are refused: the API has no login
                      unless API_TOKEN is set.
  --port <port>       port (CLASS_ASSISTANT_PORT); without it, API_PORT from the settings
                      file, default 8765
  --data-dir <dir>    data folder: transcript, keywords, cite/, summaries/, _startup.log
                      (CLASS_ASSISTANT_DATA_DIR)
  --env-file <file>   settings file (CLASS_ASSISTANT_ENV_FILE); created from .env.example when missing
  --settings-file <file>
                      the same as --env-file. Node itself checks a script argument named
                      --env-file and exits ("not found") when the file does not exist yet
                      (nodejs/node#54232): use this spelling or the variable for a new file.
  --ui-dir <dir>      a built web UI (index.html and its assets) to serve at /
                      (CLASS_ASSISTANT_UI_DIR); without it / is a short landing page
  -h, --help          show this help
  -v, --version       show the version

Set by the desktop launcher (reported by /api/health):
  CLASS_ASSISTANT_APP_VERSION   the app's version, e.g. 1.2.0
  CLASS_ASSISTANT_LAUNCHER_PID  the launcher process that owns this backend

With API_TOKEN set in the settings, every route needs Authorization: Bearer <API_TOKEN> (the
app window gets a cookie instead); without it the API answers any program on this computer.

POST /api/shutdown needs the X-Shutdown-Token header with the token the backend writes to
<data folder>/_shutdown.token (readable by its owner only) while it runs.

Defaults: run from the repository, the settings are packages/server/.env and the data
packages/server/data; installed from npm, both live in the user's application-data folder
(~/.local/share/class-assistant, ~/Library/Application Support/Class Assistant or
%APPDATA%\\Class Assistant). With only --env-file, the data folder is "data" next to it.

Then open http://127.0.0.1:8765/docs.`;

/** The folder holding .env and data/ when nothing is given. */
export function defaultAppFolder(
  platform: NodeJS.Platform = process.platform,
  environment: Readonly<Record<string, string | undefined>> = process.env,
): string {
  if (runningFromSource) return dirname(packageFile('package.json'));
  if (platform === 'win32')
    return join(environment.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Class Assistant');
  if (platform === 'darwin')
    return join(homedir(), 'Library', 'Application Support', 'Class Assistant');
  return join(environment.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'class-assistant');
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * The options that name the backend's data folder and settings file, as every command that
 * reads them takes them (`parseArgs` options; {@link dataDirOf} turns their values into the
 * folder).
 */
export const DATA_FOLDER_OPTIONS = {
  'data-dir': { type: 'string' },
  'env-file': { type: 'string' },
  'settings-file': { type: 'string' },
} as const;

/**
 * Reads the command line and the CLASS_ASSISTANT_* environment variables (flags win).
 *
 * @example
 * parseCli(['--port', '18765'], process.env); // { kind: 'run', options: { port: 18765, … } }
 */
export function parseCli(
  argv: readonly string[],
  environment: Readonly<Record<string, string | undefined>> = process.env,
): CliCommand {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      // `pnpm start -- --port 1` passes the `--` through: it separates nothing here.
      args: argv.filter((argument) => argument !== '--'),
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        ...DATA_FOLDER_OPTIONS,
        'ui-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new CliUsageError(`${(error as Error).message}\nRun with --help for the options.`);
  }
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  /** The flag's value, else the variable's (when given); blank counts as absent. */
  const pick = (flag: string, variable?: string): string | undefined => {
    const value =
      (values[flag] as string | undefined) ??
      (variable === undefined ? undefined : environment[variable]);
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const host = pick('host', 'CLASS_ASSISTANT_HOST') ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) {
    throw new CliUsageError(
      `--host ${host} is not a loopback address. The backend has no login and must only be reachable from this computer: use 127.0.0.1 (default), ::1 or localhost.`,
    );
  }
  const givenPort = pick('port', 'CLASS_ASSISTANT_PORT');
  const portText = givenPort ?? '8765';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) {
    throw new CliUsageError(`--port must be a number from 1 to 65535, got "${portText}".`);
  }
  if (values['env-file'] !== undefined && values['settings-file'] !== undefined) {
    throw new CliUsageError('Give either --env-file or --settings-file, not both.');
  }
  // Either flag wins over the variable (a packaged build sets the variable to its own default).
  const envFileOption = pick('settings-file') ?? pick('env-file', 'CLASS_ASSISTANT_ENV_FILE');
  const dataDirOption = pick('data-dir', 'CLASS_ASSISTANT_DATA_DIR');
  const folder = defaultAppFolder(process.platform, environment);
  const envFile = envFileOption ? resolve(envFileOption) : appFolderPaths(folder).settingsFile;
  const dataDir = dataDirOption
    ? resolve(dataDirOption)
    : envFileOption
      ? dataDirBeside(envFile)
      : appFolderPaths(folder).dataDir;
  const uiDir = pick('ui-dir', 'CLASS_ASSISTANT_UI_DIR');
  const appVersion = environment.CLASS_ASSISTANT_APP_VERSION?.trim() || BUNDLED_APP_VERSION;
  const launcherPidText = environment.CLASS_ASSISTANT_LAUNCHER_PID?.trim() ?? '';
  if (launcherPidText !== '' && !/^[1-9]\d{0,9}$/.test(launcherPidText)) {
    throw new CliUsageError(
      `CLASS_ASSISTANT_LAUNCHER_PID must be a process id, got "${launcherPidText}".`,
    );
  }
  return {
    kind: 'run',
    options: {
      host,
      port,
      ...(givenPort === undefined ? { portFromSettings: true } : {}),
      dataDir,
      envFile,
      ...(uiDir ? { uiDir: resolve(uiDir) } : {}),
      ...(appVersion ? { appVersion } : {}),
      ...(launcherPidText !== '' ? { launcherPid: Number(launcherPidText) } : {}),
    },
  };
}

/**
 * The data folder the server would use with these `--data-dir`, `--env-file` and
 * `--settings-file` values (and the CLASS_ASSISTANT_* variables): for subcommands that read the
 * backend's data folder. Throws {@link CliUsageError} for a mistake.
 *
 * @example
 * dataDirOf({ 'data-dir': '/home/me/data' }); // '/home/me/data'
 */
export function dataDirOf(
  values: Readonly<Record<string, string | boolean | undefined>>,
  environment: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const flags = ['data-dir', 'env-file', 'settings-file'].flatMap((flag) =>
    typeof values[flag] === 'string' ? [`--${flag}`, values[flag] as string] : [],
  );
  const parsed = parseCli(flags, environment);
  if (parsed.kind !== 'run') throw new CliUsageError('Give a data folder with --data-dir.');
  return parsed.options.dataDir;
}
