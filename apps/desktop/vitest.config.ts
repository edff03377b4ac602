import { defineProject } from 'vitest/config';

export default defineProject({
  // Components' JSX, as vite.config.ts builds it.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  test: {
    name: 'desktop',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'ui/src/**/*.test.ts'],
    // Real processes, sockets, Chromium and single executables on a machine shared with other
    // test runs.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // One file at a time: the launcher and cleanup tests stop processes by name and port, which
    // must not hit the packaged backend another file is running.
    fileParallelism: false,
  },
});
