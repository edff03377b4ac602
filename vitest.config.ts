import { defineConfig } from 'vitest/config';

// One root run covers every package; each package keeps its own vitest config
// (timeouts, setup) and can also be tested alone with `pnpm --filter <name> test`.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*'],
    globalSetup: ['./scripts/vitest-temp-folder.ts'],
  },
});
