import { defineProject } from 'vitest/config';
import { PROCESS_TESTS } from './vitest.config.ts';

// The tests that start, find and stop whole processes: the launcher, the stale-backend cleanup
// (which stops processes by name and port), and the release builds with their packaged
// backends. They run one file at a time, in a group of their own after every other test, so a
// cleanup never meets a backend another file is running, and a release build has both cores.
export default defineProject({
  test: {
    name: 'desktop-processes',
    include: [...PROCESS_TESTS],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    sequence: { groupOrder: 1 },
  },
});
