import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'agent-std',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Several tests start real child processes (the CLI, the MCP server, shells, a pty); the
    // machine is shared with parallel test runs, so give them room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
