import { configDefaults, defineProject } from 'vitest/config';
import { TEST_WORKERS } from '../../vitest.workers.ts';

/** Run by vitest.processes.config.ts, alone and one at a time (see there). */
export const PROCESS_TESTS = [
  'test/launcher.test.ts',
  'test/cleanup.test.ts',
  'test/release.test.ts',
  'test/code-cache.test.ts',
  'test/mac-app.test.ts',
  'test/bin-node-version.test.ts',
  'test/bundle.test.ts',
] as const;

export default defineProject({
  // Components' JSX, as vite.config.ts builds it.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  test: {
    maxWorkers: TEST_WORKERS,
    name: 'desktop',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'ui/src/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...PROCESS_TESTS],
    // Real processes, sockets, Chromium and a backend per file on a machine shared with other
    // test runs; each browser test has its own backend on its own port and its own data folder,
    // so files run side by side.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
