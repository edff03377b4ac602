import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'agent-std',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
