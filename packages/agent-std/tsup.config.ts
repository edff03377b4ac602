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
  // Keep `node:` in imports: built-ins such as node:sqlite exist only under that name.
  removeNodeProtocol: false,
  target: 'node22',
  platform: 'node',
  dts: true,
  sourcemap: true,
  clean: true,
});
