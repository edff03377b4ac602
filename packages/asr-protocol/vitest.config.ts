import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'asr-protocol',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
