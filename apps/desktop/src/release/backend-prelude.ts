// Runs first in the packaged backend (release/backend/class-assistant-backend, or the macOS app's
// Contents/Resources/backend/class-assistant-backend.cjs): its defaults are
// the files beside it, so it also works when started by hand. Flags and variables set by the
// caller still win, and a settings file given on the command line brings its own data folder
// ("data" next to it), exactly as with the source bin.
import { dirname, join } from 'node:path';

// The single executable's folder, or the folder of the script Node's own binary runs (the macOS
// app's loader sets it).
const backendDir = process.env.CLASS_ASSISTANT_BACKEND_DIR || dirname(process.execPath);
const given = (flag: string) =>
  process.argv.some((argument) => argument === flag || argument.startsWith(`${flag}=`));
const settingsGiven = given('--env-file') || given('--settings-file');
const defaults: Record<string, string> = {
  CLASS_ASSISTANT_UI_DIR: join(backendDir, 'ui'),
  // The live-audio modes load koffi, naudiodon, vosk and sherpa-onnx from here (never bundled:
  // native code).
  CLASS_ASSISTANT_NATIVE_MODULES: join(backendDir, 'node_modules'),
  ...(settingsGiven ? {} : { CLASS_ASSISTANT_ENV_FILE: join(backendDir, '.env') }),
  ...(settingsGiven || given('--data-dir')
    ? {}
    : { CLASS_ASSISTANT_DATA_DIR: join(backendDir, '..', 'data') }),
};
for (const [name, value] of Object.entries(defaults)) {
  if (!process.env[name]) process.env[name] = value;
}
