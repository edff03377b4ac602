// Fills a per-platform libvosk package (packages/libvosk-<target>/lib) with that platform's
// libvosk files, copied from the `vosk` npm package (Apache-2.0, by Alpha Cephei), which carries
// the libraries of every platform but whose own binding (ffi-napi) no longer builds on current
// Node. Run by each libvosk package's `build` and `prepack`, from the package folder:
//   node ../../scripts/copy-libvosk.ts linux-x64
// The binaries are never committed (.gitignore): they come from the pinned `vosk` version.
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Our package target -> the folder of the `vosk` package's lib/ holding its files. */
const SOURCES: Record<string, string> = {
  'linux-x64': 'linux-x86_64',
  'win32-x64': 'win-x86_64',
  'darwin-universal': 'osx-universal',
};

const target = process.argv[2] ?? '';
const source = SOURCES[target];
if (!source) {
  process.stderr.write(
    `copy-libvosk: unknown target "${target}"; known: ${Object.keys(SOURCES).join(', ')}\n`,
  );
  process.exit(2);
}
const packageFolder = process.cwd();
const require = createRequire(join(packageFolder, 'package.json'));
const voskFolder = dirname(require.resolve('vosk/package.json'));
const from = join(voskFolder, 'lib', source);
const to = join(packageFolder, 'lib');
rmSync(to, { recursive: true, force: true });
mkdirSync(to, { recursive: true });
const files = readdirSync(from);
for (const file of files) copyFileSync(join(from, file), join(to, file));
process.stdout.write(`copy-libvosk: ${files.join(', ')} -> ${to}\n`);
