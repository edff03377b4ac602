// What a TypeScript user of the published packages compiles: the declaration files tsup writes
// for the server and its three libraries, installed into a consumer project the way npm lays
// them out — each package with its published `exports` (publishConfig) and, beside it, only the
// packages its manifest names as dependencies or peers (no devDependencies such as @types/ws) —
// then `tsc` with `skipLibCheck: false` on a file importing every published entry point. A
// declaration that imports a package whose types only a devDependency brings (TS7016) fails here.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const exec = promisify(execFile);
const PACKAGES_DIR = resolve(import.meta.dirname, '..', '..');
const ROOT = resolve(PACKAGES_DIR, '..');
const PUBLISHED = ['server', 'agent-std', 'asr-protocol', 'transcript-core'] as const;
const SCOPE = '@class-assistant/';

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  publishConfig?: { exports?: Record<string, string | { types?: string }> };
}

async function manifest(folder: string): Promise<Manifest> {
  return JSON.parse(await readFile(join(PACKAGES_DIR, folder, 'package.json'), 'utf8'));
}

/** The workspace folder of a published package name (`@class-assistant/agent-std` → agent-std). */
function workspaceFolder(name: string): string | undefined {
  const folder = name.startsWith(SCOPE) ? name.slice(SCOPE.length) : '';
  return (PUBLISHED as readonly string[]).includes(folder) ? folder : undefined;
}

/** Where pnpm installed `name` for the workspace package in `folder` (the real store path). */
function installedPath(folder: string, name: string): string {
  return join(PACKAGES_DIR, folder, 'node_modules', name);
}

/** Links `name` into `modules`, creating its scope folder. */
async function link(modules: string, name: string, target: string): Promise<void> {
  await mkdir(dirname(join(modules, name)), { recursive: true });
  await symlink(target, join(modules, name), 'dir');
}

it('the published declaration files compile in a consumer with skipLibCheck: false and only the declared dependencies', async () => {
  const root = await mkdtemp(join(tmpdir(), 'published-types-'));
  const modules = join(root, 'consumer', 'node_modules');
  const entryPoints: string[] = [];
  const peers = new Map<string, string>();
  // The declarations as `pnpm pack` would ship them (prepack builds dist/ with tsup).
  await Promise.all(
    PUBLISHED.map(async (folder) => {
      const { name } = await manifest(folder);
      await exec('pnpm', ['exec', 'tsup', '--dts-only', '--out-dir', join(modules, name, 'dist')], {
        cwd: join(PACKAGES_DIR, folder),
        maxBuffer: 16 * 1024 * 1024,
      });
    }),
  );
  for (const folder of PUBLISHED) {
    const pkg = await manifest(folder);
    const installed = join(modules, pkg.name);
    const exports = pkg.publishConfig?.exports ?? {};
    await writeFile(
      join(installed, 'package.json'),
      JSON.stringify({ name: pkg.name, type: 'module', exports }),
    );
    for (const [subpath, target] of Object.entries(exports)) {
      if (typeof target === 'object' && target.types) {
        entryPoints.push(`${pkg.name}${subpath.slice(1)}`);
      }
    }
    // npm puts the library packages beside the server (hoisted); every other dependency gets
    // the copy pnpm installed for this package, with that copy's own dependencies around it.
    for (const name of Object.keys(pkg.dependencies ?? {})) {
      if (workspaceFolder(name)) continue;
      await link(join(installed, 'node_modules'), name, installedPath(folder, name));
    }
    for (const name of Object.keys(pkg.peerDependencies ?? {})) {
      peers.set(name, installedPath(folder, name));
    }
  }
  // The consumer installs the peers the READMEs name, and @types/node as any Node.js project.
  for (const [name, target] of peers) await link(modules, name, target);
  await link(modules, '@types/node', join(ROOT, 'node_modules', '@types', 'node'));

  const consumer = join(root, 'consumer');
  await writeFile(join(consumer, 'package.json'), '{ "type": "module" }\n');
  await writeFile(
    join(consumer, 'index.ts'),
    entryPoints.map((entry, index) => `export type * as entry${index} from '${entry}';\n`).join(''),
  );
  await writeFile(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2023',
        strict: true,
        skipLibCheck: false,
        noEmit: true,
        types: ['node'],
      },
      files: ['index.ts'],
    }),
  );
  expect(entryPoints).toContain('@class-assistant/server');
  expect(entryPoints).toContain('@class-assistant/agent-std/mcp');

  const tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
  const result = await exec(process.execPath, [tsc, '-p', consumer], {
    cwd: consumer,
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
  expect(result.stdout).toBe('');
  expect(result.code).toBe(0);
}, 600_000);
