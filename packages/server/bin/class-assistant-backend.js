#!/usr/bin/env node
// Inside the workspace the TypeScript source runs directly (Node >= 22.18 strips types);
// the published package ships only dist/.
import { existsSync } from 'node:fs';

const source = new URL('../src/main.ts', import.meta.url);
await import(existsSync(source) ? source.href : new URL('../dist/main.js', import.meta.url).href);
