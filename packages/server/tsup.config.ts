import { defineConfig } from 'tsup';

export default defineConfig({
  // main: the bin; material-worker: the upload parser's worker thread; audio-child: the
  // microphone child process (both loaded by URL).
  entry: ['src/index.ts', 'src/main.ts', 'src/material-worker.ts', 'src/audio-child.ts'],
  format: ['esm'],
  target: 'node22',
  platform: 'node',
  dts: { entry: 'src/index.ts' },
  sourcemap: true,
  clean: true,
});
