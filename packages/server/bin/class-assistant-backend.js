#!/usr/bin/env node
// Inside the workspace the TypeScript source runs directly (Node >= 22.18 strips types);
// the published package ships only dist/.
import { existsSync, readFileSync } from 'node:fs';
import module from 'node:module';

// Checked before anything else is loaded, so an old Node.js gets a sentence, not a syntax error.
const { name, engines } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
);
const needed = engines.node.replace(/^>=\s*/, '');
const newer = (have, want) => {
  const [a, b] = [have, want].map((version) => version.split('.').map(Number));
  for (let index = 0; index < 3; index++) {
    if ((a[index] ?? 0) !== (b[index] ?? 0)) return (a[index] ?? 0) > (b[index] ?? 0);
  }
  return true;
};
if (!newer(process.versions.node, needed)) {
  process.stderr.write(
    `${name} needs Node.js ${needed} or newer; this is Node.js ${process.versions.node}. Install a current LTS from https://nodejs.org and run it again.\n`,
  );
  process.exit(1);
}

// Node keeps the code it compiles for the backend's modules in its compile cache (in the temp
// folder, or NODE_COMPILE_CACHE), so a later start skips most of the compiling; it checks each
// entry against the file's source, and NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache();

const source = new URL('../src/main.ts', import.meta.url);
await import(existsSync(source) ? source.href : new URL('../dist/main.js', import.meta.url).href);
