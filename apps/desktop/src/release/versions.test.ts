import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isReleaseVersion, setReleaseVersion, versionFiles, withVersion } from './versions.ts';

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

describe('release versions', () => {
  it('accepts semver versions only', () => {
    for (const good of ['1.2.0', '0.0.1', '10.20.30', '1.2.0-rc.1', '2.0.0-beta']) {
      expect(isReleaseVersion(good), good).toBe(true);
    }
    for (const bad of ['1.2', 'v1.2.0', '01.2.0', '1.2.0-', '1.2.0 ', '']) {
      expect(isReleaseVersion(bad), bad).toBe(false);
    }
  });

  it('replaces only the top-level version and keeps the formatting', () => {
    const manifest =
      '{\n  "name": "x",\n  "version": "1.0.0",\n  "dependencies": {\n    "version": "2.0.0"\n  }\n}\n';
    expect(withVersion(manifest, '1.2.0')).toBe(manifest.replace('"1.0.0"', '"1.2.0"'));
    expect(() => withVersion('{"name":"x"}', '1.2.0')).toThrow(/no top-level "version"/);
  });

  it('sets the version of the root, every private app and app.json, never the libraries', async () => {
    const root = await mkdtemp(join(tmpdir(), 'desktop-version-'));
    folders.push(root);
    const repo = join(import.meta.dirname, '..', '..', '..', '..');
    await cp(join(repo, 'package.json'), join(root, 'package.json'));
    await cp(
      join(repo, 'apps', 'desktop', 'package.json'),
      join(root, 'apps', 'desktop', 'package.json'),
    );
    await cp(join(repo, 'apps', 'desktop', 'app.json'), join(root, 'apps', 'desktop', 'app.json'));
    await cp(
      join(repo, 'packages', 'server', 'package.json'),
      join(root, 'packages', 'server', 'package.json'),
    );
    await writeFile(join(root, 'apps', 'README.md'), 'not a package');

    expect(await versionFiles(root)).toEqual([
      'package.json',
      'apps/desktop/package.json',
      'apps/desktop/app.json',
    ]);
    expect(await setReleaseVersion(root, '3.4.5')).toEqual([
      'package.json',
      'apps/desktop/package.json',
      'apps/desktop/app.json',
    ]);
    for (const file of ['package.json', 'apps/desktop/package.json', 'apps/desktop/app.json']) {
      expect(JSON.parse(await readFile(join(root, file), 'utf8')).version).toBe('3.4.5');
    }
    const server = JSON.parse(
      await readFile(join(root, 'packages', 'server', 'package.json'), 'utf8'),
    );
    expect(server.version).not.toBe('3.4.5');
    // Setting the same version again changes nothing.
    expect(await setReleaseVersion(root, '3.4.5')).toEqual([]);
    await expect(setReleaseVersion(root, 'v3')).rejects.toThrow('"v3" is not a release version');
  });
});
