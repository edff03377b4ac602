// Entry of the sherpa engine's process (see src/recognizers/engines/sherpa-child.ts). tsup builds
// it as its own entry so the published package can spawn dist/sherpa-child.js.
import { runSherpaChild } from './recognizers/engines/sherpa-child.ts';

await runSherpaChild();
if (process.connected) process.disconnect();
// onnxruntime's thread pool may keep the process alive: leave once the last message is out.
setTimeout(() => process.exit(0), 50);
