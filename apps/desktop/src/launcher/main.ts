// `class-assistant` in this repository (`pnpm start`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launcherMain } from './cli.ts';
import { buildUi, DESKTOP_DIR, developmentLayoutFor, uiIsStale } from './development.ts';

// The app's version lives in app.json (the release build stamps it); the backend hears it from
// the launcher, never by reading this package.
const { version } = JSON.parse(readFileSync(join(DESKTOP_DIR, 'app.json'), 'utf8')) as {
  version: string;
};

const code = await launcherMain({
  argv: process.argv.slice(2),
  version,
  layout: developmentLayoutFor,
  async prepare() {
    if (await uiIsStale()) {
      process.stdout.write('class-assistant: building the UI (apps/desktop/dist/ui)…\n');
      await buildUi();
    }
  },
});
process.exitCode = code;
// Nothing should be left running; if a handle lingers, it must not keep the launcher alive.
setTimeout(() => process.exit(code), 500).unref();
