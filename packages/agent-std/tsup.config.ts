import { defineConfig } from 'tsup';

export default defineConfig({
  entry: [
    'src/index.ts',
    'src/index-openai.ts',
    'src/index-mcp.ts',
    'src/index-agent.ts',
    'src/testing/index.ts',
    'src/cli.ts',
  ],
  format: ['esm'],
  target: 'node22',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
});
