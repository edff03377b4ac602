import { defineConfig } from 'vitest/config';
import { TEST_WORKERS } from './vitest.workers.ts';

// One root run covers every package; each package keeps its own vitest config
// (timeouts, setup) and can also be tested alone with `pnpm --filter <name> test`.
export default defineConfig({
  test: {
    projects: [
      'packages/*',
      'apps/desktop/vitest.config.ts',
      // The desktop tests that start and stop whole processes: alone, after the others.
      'apps/desktop/vitest.processes.config.ts',
    ],
    globalSetup: ['./scripts/vitest-temp-folder.ts'],
    // Each project sets its own maxWorkers (vitest.workers.ts); this bounds the run as a whole.
    maxWorkers: TEST_WORKERS,
  },
});
