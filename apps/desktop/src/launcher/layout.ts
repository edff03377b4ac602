// Where the launcher finds the backend, its settings, data and the UI: in this repository
// (`pnpm start`) or in an unpacked release (release/backend/…, release/data).
import { join } from 'node:path';
import { dataPaths } from '@class-assistant/server/data-folder';

/** The files the launcher works with. */
export interface LauncherLayout {
  kind: 'development' | 'packaged';
  /** The backend program and the arguments before the launcher's own. */
  backend: { file: string; args: string[] };
  envFile: string;
  dataDir: string;
  uiDir: string;
  /** The browser profile of the app window. */
  profileDir: string;
  /** The launcher's own log (the packaged launcher has no console on Windows). */
  logFile: string;
}

/**
 * The layout of an unpacked release:
 *
 * ```
 * release/class-assistant(.exe)          this launcher
 * release/backend/class-assistant-backend(.exe)
 * release/backend/.env, .env.example, ui/, assets/, lib/, node_modules/
 * release/data/                          transcript, notes, _startup.log, browser profile
 * ```
 */
export function packagedLayout(root: string, platform: NodeJS.Platform): LauncherLayout {
  const backendDir = join(root, 'backend');
  const dataDir = join(root, 'data');
  return {
    kind: 'packaged',
    backend: {
      file: join(
        backendDir,
        platform === 'win32' ? 'class-assistant-backend.exe' : 'class-assistant-backend',
      ),
      args: [],
    },
    envFile: join(backendDir, '.env'),
    dataDir,
    uiDir: join(backendDir, 'ui'),
    profileDir: dataPaths(dataDir).browserProfile,
    logFile: dataPaths(dataDir).launcherLog,
  };
}

/** The macOS app's name, as Finder shows it (`Class Assistant.app`). */
export const MAC_APP_NAME = 'Class Assistant';

/** The macOS app's backend script (its loader), run by Node's own binary. */
export const APP_BACKEND_SCRIPT = 'class-assistant-backend.cjs';

/**
 * The layout of the macOS app, `Class Assistant.app/Contents/Resources/` being `resources`:
 *
 * ```
 * Resources/node                               Node's own binary, as Node ships it
 * Resources/launcher.cjs                       this launcher (Contents/MacOS/ runs it with node)
 * Resources/backend/class-assistant-backend.cjs (the loader), backend.cjs, ui/, assets/, lib/, …
 * ~/Library/Application Support/Class Assistant/.env, data/
 * ```
 *
 * Settings and data live in the user's Application Support folder, never in the app: an app is
 * replaced by its next version, may sit in a folder only an administrator writes, and macOS runs
 * a downloaded app from a read-only copy the first times it is opened.
 */
export function appLayout(resources: string, home: string): LauncherLayout {
  const support = join(home, 'Library', 'Application Support', MAC_APP_NAME);
  const dataDir = join(support, 'data');
  return {
    kind: 'packaged',
    backend: {
      file: join(resources, 'node'),
      args: [join(resources, 'backend', APP_BACKEND_SCRIPT)],
    },
    envFile: join(support, '.env'),
    dataDir,
    uiDir: join(resources, 'backend', 'ui'),
    profileDir: dataPaths(dataDir).browserProfile,
    logFile: dataPaths(dataDir).launcherLog,
  };
}

/**
 * The layout in this repository: the backend's bin run by this Node, its usual files
 * (packages/server/.env and data/), and the UI built to apps/desktop/dist/ui.
 */
export function developmentLayout(options: {
  serverDir: string;
  serverBin: string;
  desktopDir: string;
  nodePath: string;
  envFile?: string;
  dataDir?: string;
}): LauncherLayout {
  const dataDir = options.dataDir ?? join(options.serverDir, 'data');
  return {
    kind: 'development',
    backend: { file: options.nodePath, args: [options.serverBin] },
    envFile: options.envFile ?? join(options.serverDir, '.env'),
    dataDir,
    uiDir: join(options.desktopDir, 'dist', 'ui'),
    profileDir: dataPaths(dataDir).browserProfile,
    logFile: dataPaths(dataDir).launcherLog,
  };
}
