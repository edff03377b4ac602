// The packaged launcher (release/class-assistant, ClassAssistant.exe on Windows): the same
// launcher as `pnpm start`, with the release's layout around its own executable.
import { dirname, resolve } from 'node:path';
import { dataPaths } from '@class-assistant/server/data-folder';
import appConfig from '../../app.json' with { type: 'json' };
import { launcherMain } from '../launcher/cli.ts';
import { packagedLayout } from '../launcher/layout.ts';

const root = dirname(process.execPath);

void launcherMain({
  argv: process.argv.slice(2),
  version: appConfig.version,
  layout(command) {
    const layout = packagedLayout(root, process.platform);
    if (command.envFile) layout.envFile = resolve(command.envFile);
    if (command.dataDir) {
      layout.dataDir = resolve(command.dataDir);
      layout.profileDir = dataPaths(layout.dataDir).browserProfile;
      layout.logFile = dataPaths(layout.dataDir).launcherLog;
    }
    return layout;
  },
}).then((code) => {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 200).unref();
});
