import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';

let engine: typeof RE2JS | undefined;

/**
 * The RE2 engine (re2js), loaded on first use rather than when the library is imported: most
 * toolboxes never match a regular expression or a glob, and the engine costs milliseconds to load.
 */
export function re2(): typeof RE2JS {
  engine ??= (createRequire(import.meta.url)('re2js') as typeof import('re2js')).RE2JS;
  return engine;
}
