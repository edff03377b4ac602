// The launcher's HTTP client of a backend: what GET /api/health says about it, and the graceful
// stop (POST /api/shutdown with the run's token, which the backend keeps in its data folder).
// Where the token is comes from the server's data-folder layout.
import { dataPaths } from '@class-assistant/server/data-folder';
import { authorization } from './api-token.ts';
import type { LauncherSystem } from './system.ts';

/** What /api/health says about the backend answering it. */
export interface BackendHealth {
  status: string;
  compatible_client?: string;
  pid?: number;
  launcher_pid?: number | null;
  data_dir?: string;
  app_version?: string | null;
  monitor?: { state?: string };
}

/**
 * GET `url`/api/health (with the backend's API token, when it has one): whatever JSON answers
 * within `timeoutMs`, undefined when nothing does.
 */
export async function readHealth(
  system: LauncherSystem,
  url: string,
  timeoutMs = 2000,
  token?: string,
): Promise<BackendHealth | undefined> {
  try {
    const response = await system.fetch(`${url}/api/health`, {
      headers: authorization(token),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return (await response.json()) as BackendHealth;
  } catch {
    return undefined;
  }
}

/**
 * True for the answer of a Class Assistant backend that has an API token this request did not
 * carry (401 API_UNAUTHORIZED): a running app the launcher cannot look into, to be left alone.
 */
function asksForApiToken(answer: unknown): boolean {
  return (answer as { code?: unknown } | undefined)?.code === 'API_UNAUTHORIZED';
}

/**
 * Asks 127.0.0.1:`port` for /api/health; the answer only when a healthy Class Assistant backend
 * gives it (another program's JSON does not count), or `locked` when one that needs another API
 * token answers.
 */
export async function probeBackend(
  system: LauncherSystem,
  port: number,
  token?: string,
): Promise<{ health?: BackendHealth; locked: boolean }> {
  const body = await readHealth(system, `http://127.0.0.1:${port}`, 2000, token);
  if (asksForApiToken(body)) return { locked: true };
  return body?.status === 'healthy' && body.compatible_client !== undefined
    ? { health: body, locked: false }
    : { locked: false };
}

/**
 * A one-time address (`/?token=<ticket>`) that lets the app window in to a backend with an API
 * token, asked for with the token; undefined when the backend gives none.
 */
export async function requestLoginPath(
  system: LauncherSystem,
  url: string,
  token: string,
): Promise<string | undefined> {
  try {
    const answer = await system.fetch(`${url}/api/login_ticket`, {
      method: 'POST',
      headers: authorization(token),
      signal: AbortSignal.timeout(5000),
    });
    if (answer.status !== 200) return undefined;
    const { path } = (await answer.json()) as { path?: unknown };
    return typeof path === 'string' && path.startsWith('/?') ? path : undefined;
  } catch {
    return undefined;
  }
}

/** The run's shutdown token a backend keeps in its data folder, when it is there. */
export async function readShutdownToken(
  system: LauncherSystem,
  dataDir: string,
): Promise<string | undefined> {
  return (await system.readText(dataPaths(dataDir).shutdownToken))?.trim() || undefined;
}

/** POST `url`/api/shutdown with the run's token; true when the backend said it would stop. */
export async function postShutdown(
  system: LauncherSystem,
  url: string,
  token: string,
): Promise<boolean> {
  try {
    const answer = await system.fetch(`${url}/api/shutdown`, {
      method: 'POST',
      headers: { 'x-shutdown-token': token },
      signal: AbortSignal.timeout(2000),
    });
    return answer.status === 202;
  } catch {
    return false;
  }
}

/**
 * Asks the backend on `port` to stop with the token from the data folder its health names; false
 * when it names none, the token is missing or the backend refuses. Only for a backend of this
 * user: another user's process could name our data folder to get our token.
 */
export async function askBackendToStop(
  system: LauncherSystem,
  port: number,
  health: BackendHealth,
): Promise<boolean> {
  if (typeof health.pid !== 'number' || !health.data_dir) return false;
  const token = await readShutdownToken(system, health.data_dir);
  return token !== undefined && postShutdown(system, `http://127.0.0.1:${port}`, token);
}
