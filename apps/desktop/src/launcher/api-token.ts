// The backend's opt-in API token (its API_TOKEN setting), as the launcher finds it: the
// environment the backend inherits first, else the settings file. With one, the launcher sends it
// to its backend and opens the app window with a one-time ticket instead of the token (a
// browser's command line is readable by every user of the computer). The app talks to the
// server over HTTP only, so the setting's name and the file's syntax are repeated here.
import type { Environment } from './browser.ts';
import type { LauncherSystem } from './system.ts';

/** The setting's key, in the settings file and in the environment. */
const API_TOKEN_KEY = 'API_TOKEN';

/**
 * The value of API_TOKEN in `.env` text (the last line that sets it, as the backend reads it):
 * `API_TOKEN=value`, optionally `export`ed, quoted, or followed by ` # a comment`. Empty when
 * unset.
 *
 * @example
 * apiTokenInSettings('API_TOKEN="abc" # mine\n'); // 'abc'
 */
export function apiTokenInSettings(text: string): string {
  let value = '';
  for (const line of text.split(/\r\n|\r|\n/)) {
    const match = /^\s*(?:export\s+)?API_TOKEN\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const raw = match[1]!;
    const quote = raw[0];
    if (quote === '"' || quote === "'" || quote === '`') {
      const end = raw.indexOf(quote, 1);
      value = end > 0 ? raw.slice(1, end) : raw.slice(1);
    } else {
      value = raw.replace(/\s+#.*$/, '');
    }
    value = value.trim();
  }
  return value;
}

/** The API token the backend will run with: the environment's, else the settings file's. */
export async function readApiToken(
  system: LauncherSystem,
  envFile: string,
  environment: Environment,
): Promise<string> {
  const fromEnvironment = environment[API_TOKEN_KEY]?.trim();
  if (fromEnvironment) return fromEnvironment;
  return apiTokenInSettings((await system.readText(envFile)) ?? '');
}

/** The header that carries the token (none without one). */
export function authorization(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}
