import { describe, expect, it } from 'vitest';
import { parseLauncherArgs } from './cli.ts';

describe('parseLauncherArgs', () => {
  it('defaults to port 8765 and a window', () => {
    expect(parseLauncherArgs([], {})).toEqual({
      kind: 'run',
      port: 8765,
      window: 'auto',
      verbose: false,
      cleanupByName: true,
    });
  });

  it('reads flags over CLASS_ASSISTANT_* variables, and pnpm’s "--"', () => {
    expect(
      parseLauncherArgs(
        [
          '--',
          '--port',
          '18770',
          '--no-window',
          '--data-dir',
          'd',
          '--verbose',
          '--no-cleanup-by-name',
        ],
        {
          CLASS_ASSISTANT_PORT: '1',
          CLASS_ASSISTANT_BROWSER: '/usr/bin/chromium',
        },
      ),
    ).toEqual({
      kind: 'run',
      port: 18770,
      window: 'never',
      browser: '/usr/bin/chromium',
      dataDir: 'd',
      verbose: true,
      cleanupByName: false,
    });
    expect(parseLauncherArgs(['-v'], {}).kind).toBe('version');
    expect(parseLauncherArgs(['--help'], {}).kind).toBe('help');
  });

  it('refuses a bad port and unknown flags with a clear message', () => {
    expect(() => parseLauncherArgs(['--port', '0'], {})).toThrow(
      /--port must be a number from 1 to 65535, got "0"/,
    );
    expect(() => parseLauncherArgs([], { CLASS_ASSISTANT_PORT: 'abc' })).toThrow(/got "abc"/);
    expect(() => parseLauncherArgs(['--fullscreen'], {})).toThrow(/--help/);
  });
});
