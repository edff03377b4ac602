import { defineConfig } from 'tsup';

export default defineConfig({
  // main: the bin; material-worker: the upload parser's worker thread; audio-child: the
  // microphone child process; sherpa-child: the sherpa-onnx engine's process (all loaded by URL).
  entry: {
    index: 'src/index.ts',
    main: 'src/main.ts',
    'material-worker': 'src/material-worker.ts',
    // The worker thread that encodes and writes a class's kept audio.
    'audio-keeper-worker': 'src/audio-keeper-worker.ts',
    'audio-child': 'src/audio-child.ts',
    // The sherpa-onnx engine's process (one per class).
    'sherpa-child': 'src/sherpa-child.ts',
    // The live-event contract, a subpath of its own that imports only zod (the UI's types).
    'events/live-events': 'src/events/live-events.ts',
    // The data folder's layout, a subpath of its own that imports only node:path (the launcher).
    'data-folder': 'src/data-folder.ts',
    // The REST contract: every route's schemas, for typed clients (the UI's are type-only).
    'routes/rest-contract': 'src/routes/rest-contract.ts',
  },
  format: ['esm'],
  // Keep `node:` in imports: built-ins such as node:sqlite exist only under that name.
  removeNodeProtocol: false,
  target: 'node22',
  platform: 'node',
  dts: {
    entry: {
      index: 'src/index.ts',
      'events/live-events': 'src/events/live-events.ts',
      'data-folder': 'src/data-folder.ts',
      'routes/rest-contract': 'src/routes/rest-contract.ts',
    },
  },
  sourcemap: true,
  clean: true,
});
