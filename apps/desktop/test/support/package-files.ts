// Files of packages the backend installs, as tests' real inputs: vosk ships libvosk for Windows,
// Linux and macOS, naudiodon ships PortAudio for them (and for 32-bit ARM).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const fromServer = createRequire(
  join(import.meta.dirname, '..', '..', '..', '..', 'packages', 'server', 'package.json'),
);

/** The path of `path` inside the backend's dependency `name`. */
export function packageFile(name: string, path: string): string {
  return join(dirname(fromServer.resolve(`${name}/package.json`)), path);
}
