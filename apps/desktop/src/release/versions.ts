// `pnpm release:build <version>` sets the app's version in the manifests of the app — the
// workspace root and every private package under apps/ — and in the app's config
// (apps/desktop/app.json). Published libraries keep the versions changesets gives them.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/** A release version: semver `MAJOR.MINOR.PATCH` with an optional pre-release (`1.2.0-rc.1`). */
export function isReleaseVersion(version: string): boolean {
  return /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/.test(
    version,
  );
}

/**
 * Replaces the value of the top-level `"version"` of a JSON text without reformatting the rest
 * (key order, spacing and the final newline stay as they are).
 */
export function withVersion(jsonText: string, version: string): string {
  const parsed = JSON.parse(jsonText) as { version?: unknown };
  if (typeof parsed.version !== 'string') throw new Error('no top-level "version" string');
  // The first "version" key at indentation level one is the top-level one in these files.
  const pattern = /^(\s{0,2}"version"\s*:\s*)"[^"]*"/m;
  if (!pattern.test(jsonText)) throw new Error('no top-level "version" line');
  const updated = jsonText.replace(pattern, `$1"${version}"`);
  if ((JSON.parse(updated) as { version: string }).version !== version) {
    throw new Error('the "version" that was replaced is not the top-level one');
  }
  return updated;
}

/** The files carrying the app's version, relative to the repository root. */
export async function versionFiles(repoRoot: string): Promise<string[]> {
  const files = ['package.json'];
  for (const entry of await readdir(join(repoRoot, 'apps'), { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const manifest = join('apps', entry.name, 'package.json');
    try {
      const parsed = JSON.parse(await readFile(join(repoRoot, manifest), 'utf8')) as {
        private?: boolean;
      };
      if (parsed.private === true) files.push(manifest);
    } catch {
      // Not a package.
    }
  }
  files.push(join('apps', 'desktop', 'app.json'));
  return files;
}

/** Sets `version` in every file of {@link versionFiles}; returns the files that changed. */
export async function setReleaseVersion(repoRoot: string, version: string): Promise<string[]> {
  if (!isReleaseVersion(version)) {
    throw new Error(`"${version}" is not a release version: use MAJOR.MINOR.PATCH, e.g. 1.2.0`);
  }
  const changed: string[] = [];
  for (const file of await versionFiles(repoRoot)) {
    const path = join(repoRoot, file);
    const before = await readFile(path, 'utf8');
    const after = withVersion(before, version);
    if (after !== before) {
      await writeFile(path, after);
      changed.push(relative(repoRoot, path));
    }
  }
  return changed;
}
