// Runs first in the packaged backend (release/backend/class-assistant-backend): its defaults are
// the files beside it, so it also works when started by hand. Flags and variables set by the
// caller still win.
import { dirname, join } from 'node:path';

const backendDir = dirname(process.execPath);
const defaults: Record<string, string> = {
  CLASS_ASSISTANT_ENV_FILE: join(backendDir, '.env'),
  CLASS_ASSISTANT_DATA_DIR: join(backendDir, '..', 'data'),
  CLASS_ASSISTANT_UI_DIR: join(backendDir, 'ui'),
  // The live-audio modes load koffi, naudiodon and vosk from here (never bundled: native code).
  CLASS_ASSISTANT_NATIVE_MODULES: join(backendDir, 'node_modules'),
};
for (const [name, value] of Object.entries(defaults)) {
  if (!process.env[name]) process.env[name] = value;
}
