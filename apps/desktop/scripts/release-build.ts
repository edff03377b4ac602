// pnpm release:build <version> [--target <target>[,<target>…]] [--no-check] [--no-zip]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildParts, buildRelease } from '../src/release/build-release.ts';
import { hostTarget, isReleaseTarget, TARGETS } from '../src/release/targets.ts';
import { isReleaseVersion } from '../src/release/versions.ts';

const USAGE = `Usage: pnpm release:build <version> [--target <target>[,<target>…]] [--no-check] [--no-zip]

Targets: linux-x64, win-x64, darwin-arm64, darwin-x64, linux-arm64 (default: this machine's).
Several targets, comma-separated, are built one after another from one UI build and one bundle
(release/ holds the last one).

Sets <version> in the app's manifests and apps/desktop/app.json, builds the UI, makes the
single executables (release/class-assistant and release/backend/class-assistant-backend; .exe
for win-x64) or, for macOS, release/Class Assistant.app around Node's own binary, assembles
release/ with its release.json (target, the Node it carries), checks every binary's format and
CPU, runs the packaged backend on port 18765 to check it (when the target runs here) and writes
dist/class-assistant-<version>-<target>.zip.`;

const { values, positionals } = parseArgs({
  args: process.argv.slice(2).filter((argument) => argument !== '--'),
  options: {
    target: { type: 'string' },
    'no-check': { type: 'boolean' },
    'no-zip': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
  allowPositionals: true,
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const version = positionals[0];
if (!version || positionals.length > 1 || !isReleaseVersion(version)) {
  console.error(
    `release:build: give one version like 1.2.0${version ? ` (got "${positionals.join(' ')}")` : ''}\n\n${USAGE}`,
  );
  process.exit(2);
}
const targets = (values.target ?? hostTarget() ?? '').split(',').filter((name) => name !== '');
const wrong = targets.find((name) => !isReleaseTarget(name));
if (targets.length === 0 || wrong !== undefined) {
  console.error(
    `release:build: --target must be one of ${Object.keys(TARGETS).join(', ')}${wrong ? `, got "${wrong}"` : ' on this machine'}`,
  );
  process.exit(2);
}
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const log = (line: string) => console.log(`release:build: ${line}`);
const shared =
  targets.length > 1 ? await mkdtemp(join(tmpdir(), 'class-assistant-parts-')) : undefined;
try {
  const parts = shared ? await buildParts({ version, folder: shared, log }) : undefined;
  for (const target of targets.filter(isReleaseTarget)) {
    const started = performance.now();
    const result = await buildRelease({
      version,
      target,
      repoRoot,
      ...(parts ? { parts } : {}),
      ...(values['no-check'] ? { check: false } : {}),
      ...(values['no-zip'] ? { zip: false } : {}),
      log: (line) => log(targets.length > 1 ? `${target}: ${line}` : line),
    });
    const steps = Object.entries(result.timings)
      .map(([step, seconds]) => `${step} ${seconds}s`)
      .join(', ');
    log(`${target} done in ${Math.round((performance.now() - started) / 100) / 10}s (${steps})`);
    log(`${result.outDir}${result.zipPath ? `, ${result.zipPath}` : ''}`);
  }
} catch (error) {
  console.error(`release:build: failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  if (shared) await rm(shared, { recursive: true, force: true });
}
