import { fileURLToPath } from 'node:url';

/**
 * The package's `assets/` folder (bundled mock lecture, LLM prompts). This module sits one level
 * below the package root both as source (src/assets.ts) and once bundled (dist/*.js), so the same
 * relative URL works in the workspace and from npm.
 */
export function assetPath(name: string): string {
  return fileURLToPath(new URL(`../assets/${name}`, import.meta.url));
}

/**
 * URL of a worker entry module that sits next to this one (`src/<name>.ts` in the workspace,
 * `dist/<name>.js` when published; tsup builds each worker as its own entry).
 */
export function workerUrl(name: string): URL {
  const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./${name}${extension}`, import.meta.url);
}

/** A file at the package root (e.g. `.env.example`), from source or from dist alike. */
export function packageFile(name: string): string {
  return fileURLToPath(new URL(`../${name}`, import.meta.url));
}

/** True when running the TypeScript source inside the workspace (not the published dist/). */
export const runningFromSource: boolean = import.meta.url.endsWith('.ts');
