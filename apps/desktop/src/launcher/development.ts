// `pnpm start` in this repository: the backend's bin from @class-assistant/server run by this Node
// (the pinned one), its usual settings and data, and the UI built from ui/ when it is missing or
// older than its sources.
import { readdir, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LauncherCommand } from './cli.ts';
import { developmentLayout, type LauncherLayout } from './layout.ts';

/** apps/desktop. */
export const DESKTOP_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** The backend package: its folder and its `class-assistant-backend` bin. */
export async function serverPackage(): Promise<{ dir: string; bin: string }> {
  const require = createRequire(join(DESKTOP_DIR, 'package.json'));
  const manifestPath = require.resolve('@class-assistant/server/package.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as {
    bin: Record<string, string>;
  };
  const dir = dirname(manifestPath);
  const bin = manifest.bin['class-assistant-backend'];
  if (!bin) throw new Error('@class-assistant/server has no class-assistant-backend bin');
  return { dir, bin: join(dir, bin) };
}

async function newestChange(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of await readdir(path)) {
    newest = Math.max(newest, await newestChange(join(path, entry)));
  }
  return newest;
}

/** True when dist/ui is missing or older than ui/ or the Vite config. */
export async function uiIsStale(desktopDir = DESKTOP_DIR): Promise<boolean> {
  let built: number;
  try {
    built = (await stat(join(desktopDir, 'dist', 'ui', 'index.html'))).mtimeMs;
  } catch {
    return true;
  }
  const sources = Math.max(
    await newestChange(join(desktopDir, 'ui')),
    (await stat(join(desktopDir, 'vite.config.ts'))).mtimeMs,
  );
  return sources > built;
}

/** Builds the UI with Vite (dist/ui). */
export async function buildUi(desktopDir = DESKTOP_DIR): Promise<void> {
  const { build } = await import('vite');
  await build({ configFile: join(desktopDir, 'vite.config.ts'), logLevel: 'warn' });
}

/** The development layout for a parsed command line. */
export async function developmentLayoutFor(command: LauncherCommand): Promise<LauncherLayout> {
  const server = await serverPackage();
  return developmentLayout({
    serverDir: server.dir,
    serverBin: server.bin,
    desktopDir: DESKTOP_DIR,
    nodePath: process.execPath,
    ...(command.envFile ? { envFile: resolve(command.envFile) } : {}),
    ...(command.dataDir ? { dataDir: resolve(command.dataDir) } : {}),
  });
}
