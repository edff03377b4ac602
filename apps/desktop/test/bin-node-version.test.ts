// Every command of the workspace (the three library CLIs, the backend, the launcher) says which
// Node.js it needs when started on an older one, instead of failing on syntax it cannot read.
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const BINS = [
  'packages/asr-protocol/bin/class-asr.js',
  'packages/agent-std/bin/class-agent.js',
  'packages/server/bin/class-assistant-backend.js',
  'apps/desktop/bin/class-assistant.js',
];
const folders: string[] = [];

afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

/** Runs a copy of `bin` beside a package.json that requires Node `required`. */
async function runRequiring(bin: string, required: string) {
  const folder = await mkdtemp(join(tmpdir(), 'bin-node-version-'));
  folders.push(folder);
  await mkdir(join(folder, 'bin'));
  await writeFile(
    join(folder, 'package.json'),
    JSON.stringify({
      name: '@example/package',
      type: 'module',
      engines: { node: `>=${required}` },
    }),
  );
  const copy = join(folder, 'bin', basename(bin));
  await copyFile(join(root, bin), copy);
  return spawnSync(process.execPath, [copy, '--help'], { encoding: 'utf8', timeout: 20_000 });
}

describe('the commands on an old Node.js', () => {
  it.each(BINS)('%s names the Node.js it needs and exits 1', async (bin) => {
    const result = await runRequiring(bin, '99.0.0');
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      `@example/package needs Node.js 99.0.0 or newer; this is Node.js ${process.versions.node}. Install a current LTS from https://nodejs.org and run it again.\n`,
    );
  });

  it.each(BINS)('%s goes on when the Node.js is new enough', async (bin) => {
    const result = await runRequiring(bin, process.versions.node);
    expect(result.stderr).not.toContain('needs Node.js');
  });
});
