#!/usr/bin/env node
// `class-assistant`: starts Class Assistant from this repository (`pnpm start`).
import { readFileSync } from 'node:fs';

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

await import('../src/launcher/main.ts');
