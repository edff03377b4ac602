import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'transcript-core',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
