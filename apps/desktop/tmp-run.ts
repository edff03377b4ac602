import { build } from 'esbuild';
import { readFile, writeFile } from 'node:fs/promises';
import { asciiOnly, releasePlugin } from './src/release/bundle.ts';
await build({ entryPoints: ['/tmp/rb/entry.mjs'], bundle: true, platform: 'node', format: 'esm', target: 'node24', outfile: '/tmp/rb/out.mjs', minify: true, logLevel: 'warning', nodePaths: ['/work/main/packages/server/node_modules'], plugins: [releasePlugin()], external: ['@audio/decode-ape'] });
const src = await readFile('/tmp/rb/out.mjs', 'utf8');
await writeFile('/tmp/rb/out2.mjs', asciiOnly(src, 'out'));
console.log('ascii ok', src.length);
