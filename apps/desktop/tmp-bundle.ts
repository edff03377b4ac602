import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { bundleBackend } from './src/release/bundle.ts';
import { makeSea } from './src/release/sea.ts';
const out = process.argv[2]!;
await mkdir(join(out, 'lib'), { recursive: true });
const serverDir = join(import.meta.dirname, '..', '..', 'packages', 'server');
const r = await bundleBackend({ serverMain: join(serverDir, 'src/main.ts'), serverWorker: join(serverDir, 'src/material-worker.ts'), prelude: join(import.meta.dirname, 'src/release/backend-prelude.ts'), outDir: out, appVersion: '1.2.0', minify: process.argv[4] === 'min' });
await makeSea({ nodeBinary: process.execPath, script: r.script, output: process.argv[3]!, workDir: out, windows: false, useCodeCache: true });
