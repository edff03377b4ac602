import { defineProject } from 'vitest/config';
import { TEST_WORKERS } from '../../vitest.workers.ts';

export default defineProject({
  test: {
    maxWorkers: TEST_WORKERS,
    name: 'server',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Real sockets, worker threads and files on a machine shared with other test runs.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
