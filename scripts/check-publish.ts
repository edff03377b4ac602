// Checks what a package would publish, the way a user installing it from npm sees it:
// packs it with pnpm (so `publishConfig` overrides apply), then runs publint and
// are-the-types-wrong on that very tarball. Run from a package folder.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const outDir = mkdtempSync(join(tmpdir(), 'class-assistant-pack-'));
try {
  execFileSync('pnpm', ['pack', '--pack-destination', outDir], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tarball = readdirSync(outDir).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`pnpm pack wrote no tarball to ${outDir}`);
  const path = join(outDir, tarball);
  execFileSync('publint', ['run', path, '--strict'], { stdio: 'inherit' });
  // ESM-only packages: CommonJS `require` resolution is out of scope by design.
  execFileSync('attw', [path, '--profile', 'esm-only'], { stdio: 'inherit' });
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
