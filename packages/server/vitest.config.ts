import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'server',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Real sockets, worker threads and files on a machine shared with other test runs.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
