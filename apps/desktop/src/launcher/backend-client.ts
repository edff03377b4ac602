// The launcher's HTTP client of a backend: what GET /api/health says about it, and the graceful
// stop (POST /api/shutdown with the run's token, which the backend keeps in its data folder).
// The app talks to the server over HTTP only, so the server's names are repeated here.
import { join } from 'node:path';
import type { LauncherSystem } from './system.ts';

/**
 * Where a backend keeps its run's shutdown token, in its data folder (the server's
 * SHUTDOWN_TOKEN_FILE).
 */
export const SHUTDOWN_TOKEN_FILE = '_shutdown.token';

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

/** GET `url`/api/health: whatever JSON answers within `timeoutMs`, undefined when nothing does. */
export async function readHealth(
  system: LauncherSystem,
  url: string,
  timeoutMs = 2000,
): Promise<BackendHealth | undefined> {
  try {
    const response = await system.fetch(`${url}/api/health`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    return (await response.json()) as BackendHealth;
  } catch {
    return undefined;
  }
}

/**
 * Asks 127.0.0.1:`port` for /api/health; the answer only when a healthy Class Assistant backend
 * gives it (another program's JSON does not count).
 */
export async function classAssistantHealth(
  system: LauncherSystem,
  port: number,
): Promise<BackendHealth | undefined> {
  const body = await readHealth(system, `http://127.0.0.1:${port}`);
  return body?.status === 'healthy' && body.compatible_client !== undefined ? body : undefined;
}

/** The run's shutdown token a backend keeps in its data folder, when it is there. */
export async function readShutdownToken(
  system: LauncherSystem,
  dataDir: string,
): Promise<string | undefined> {
  return (await system.readText(join(dataDir, SHUTDOWN_TOKEN_FILE)))?.trim() || undefined;
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
