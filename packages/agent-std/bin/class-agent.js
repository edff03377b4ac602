#!/usr/bin/env node
// Inside the workspace the TypeScript source runs directly (Node >= 22.18 strips types);
// the published package ships only dist/.
import { existsSync, readFileSync } from 'node:fs';

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

const source = new URL('../src/cli.ts', import.meta.url);
await import(existsSync(source) ? source.href : new URL('../dist/cli.js', import.meta.url).href);
