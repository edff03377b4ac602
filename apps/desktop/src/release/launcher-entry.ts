// The packaged launcher: release/class-assistant (ClassAssistant.exe on Windows), a single
// executable — or, in the macOS app, launcher.cjs run by Node's own binary — the same launcher as
// `pnpm start`, with the release's layout around it.
import { chmodSync, copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { dataPaths } from '@class-assistant/server/data-folder';
import appConfig from '../../app.json' with { type: 'json' };
import { launcherMain } from '../launcher/cli.ts';
import { appLayout, type LauncherLayout, packagedLayout } from '../launcher/layout.ts';

const sea = process.getBuiltinModule?.('node:sea') as { isSea?: () => boolean } | undefined;
/** In the macOS app this script runs with Node's binary beside it, in Contents/Resources. */
const inMacApp = !(sea?.isSea?.() ?? false);
const root = inMacApp ? __dirname : dirname(process.execPath);

/** The app's settings the first time: the release's (AUDIO_INPUT=app), with the owner's rights. */
function firstSettings(layout: LauncherLayout): void {
  if (existsSync(layout.envFile)) return;
  mkdirSync(dirname(layout.envFile), { recursive: true, mode: 0o700 });
  copyFileSync(join(root, 'backend', '.env.example'), layout.envFile);
  chmodSync(layout.envFile, 0o600);
}

void launcherMain({
  // Finder of old macOS versions adds a process serial number argument: not the student's.
  argv: process.argv.slice(2).filter((argument) => !argument.startsWith('-psn_')),
  version: appConfig.version,
  layout(command) {
    const layout = inMacApp ? appLayout(root, homedir()) : packagedLayout(root, process.platform);
    if (command.envFile) layout.envFile = resolve(command.envFile);
    if (command.dataDir) {
      layout.dataDir = resolve(command.dataDir);
      layout.profileDir = dataPaths(layout.dataDir).browserProfile;
      layout.logFile = dataPaths(layout.dataDir).launcherLog;
    }
    if (inMacApp) firstSettings(layout);
    return layout;
  },
}).then((code) => {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 200).unref();
});
