// The native packages of the live-audio modes (koffi, naudiodon's addon, vosk's libraries) cannot
// be bundled: they are copied with their dependencies into release/backend/node_modules, where
// the backend loads them (CLASS_ASSISTANT_NATIVE_MODULES). A missing one only disables its mode;
// the demo mode needs none.
import { cp, readFile, realpath } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** What was copied, and what could not be. */
export interface NativeCopyReport {
  copied: string[];
  missing: string[];
}

async function packageDir(fromDir: string, name: string): Promise<string | undefined> {
  const require = createRequire(join(fromDir, 'package.json'));
  try {
    return await realpath(dirname(require.resolve(`${name}/package.json`)));
  } catch {
    // Packages whose exports hide package.json: resolve the main file and walk up.
    try {
      let dir = dirname(require.resolve(name));
      for (;;) {
        try {
          const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
            name?: string;
          };
          if (manifest.name === name) return await realpath(dir);
        } catch {
          // Keep walking.
        }
        const parent = dirname(dir);
        if (parent === dir) return undefined;
        dir = parent;
      }
    } catch {
      return undefined;
    }
  }
}

/**
 * Copies `names` (resolved from `fromDir`, the backend package) and their production
 * dependencies into `destination` (a node_modules folder), dereferencing pnpm's links.
 */
export async function copyNativeModules(
  fromDir: string,
  names: readonly string[],
  destination: string,
): Promise<NativeCopyReport> {
  const report: NativeCopyReport = { copied: [], missing: [] };
  const done = new Set<string>();
  const visit = async (name: string, resolveFrom: string, required: boolean) => {
    if (done.has(name)) return;
    const source = await packageDir(resolveFrom, name);
    if (!source) {
      if (required) report.missing.push(name);
      return;
    }
    done.add(name);
    await cp(source, join(destination, name), { recursive: true, dereference: true });
    report.copied.push(name);
    const manifest = JSON.parse(await readFile(join(source, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      await visit(dependency, source, true);
    }
    for (const dependency of Object.keys(manifest.optionalDependencies ?? {})) {
      await visit(dependency, source, false);
    }
  };
  for (const name of names) await visit(name, fromDir, true);
  return report;
}
