import { defineProject } from 'vitest/config';
import { TEST_WORKERS } from '../../vitest.workers.ts';

export default defineProject({
  test: {
    maxWorkers: TEST_WORKERS,
    name: 'asr-protocol',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The CLI tests start processes: on a busy machine one may take several seconds to start.
    // Tests wait for what they need; this is only the upper bound.
    testTimeout: 60_000,
  },
});
