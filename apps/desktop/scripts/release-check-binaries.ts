// pnpm release:check-binaries <release folder or zip> --target <target>
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { describeBinaryKind } from '../src/release/binary-format.ts';
import {
  checkReleaseBinaries,
  filesInFolder,
  filesInZip,
  isReleaseBinaryError,
} from '../src/release/release-binaries.ts';
import { isReleaseTarget, TARGETS } from '../src/release/targets.ts';

const USAGE = `Usage: pnpm release:check-binaries <release folder or .zip> --target linux-x64|win-x64|darwin-arm64|darwin-x64|linux-arm64

Lists every binary of a built release (by name: .node .dll .so .dylib .exe; or by an ELF, PE or
Mach-O header) with its format and CPU, and fails when one is not the target's (a macOS
universal binary must hold the target's CPU), when a Windows
launcher is not a GUI program or the backend not a console one, or when an executable is missing.
pnpm release:build runs the same check on release/ before it writes the zip.`;

const { values, positionals } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: { target: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  allowPositionals: true,
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const [release] = positionals;
const target = values.target;
if (!release || positionals.length > 1 || !target || !isReleaseTarget(target)) {
  console.error(
    `release:check-binaries: give one release folder or zip and --target ${Object.keys(TARGETS).join(', ')}${target && !isReleaseTarget(target) ? ` (got --target ${target})` : ''}\n\n${USAGE}`,
  );
  process.exit(2);
}
// pnpm runs the script in apps/desktop; relative paths are meant from where it was typed.
const path = resolve(process.env.INIT_CWD ?? process.cwd(), release);
try {
  const files = (await stat(path)).isDirectory() ? filesInFolder(path) : filesInZip(path);
  const binaries = await checkReleaseBinaries(files, target);
  console.log(`release:check-binaries: ${path}: ${binaries.length} binaries, all ${target}'s`);
  for (const binary of binaries) {
    console.log(`  ${binary.path}: ${describeBinaryKind(binary.kind)}`);
  }
} catch (error) {
  console.error(`release:check-binaries: ${path}: ${(error as Error).message}`);
  if (isReleaseBinaryError(error)) {
    for (const binary of error.binaries.filter((entry) => !entry.problem)) {
      console.error(`  (right) ${binary.path}: ${describeBinaryKind(binary.kind)}`);
    }
  }
  process.exitCode = 1;
}
