import { defineProject } from 'vitest/config';
import { TEST_WORKERS } from '../../vitest.workers.ts';

export default defineProject({
  test: {
    maxWorkers: TEST_WORKERS,
    name: 'agent-std',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Several tests start real child processes (the CLI, the MCP server, shells, a pty); the
    // machine is shared with parallel test runs, so give them room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
