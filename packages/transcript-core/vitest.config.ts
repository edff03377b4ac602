import { defineProject } from 'vitest/config';
import { TEST_WORKERS } from '../../vitest.workers.ts';

export default defineProject({
  test: {
    maxWorkers: TEST_WORKERS,
    name: 'transcript-core',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
