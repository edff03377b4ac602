// One owner of the data folder's layout: src/data-folder.ts. No other source file of the server,
// its CLIs or the desktop app writes a name of the data folder as a string of its own (a second
// copy drifts: a renamed file would be looked for in two places); they take it from the module.
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLASS_FILES, DATA_FOLDER, MODEL_DOWNLOADS_FOLDER } from '../src/data-folder.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const SCANNED = ['packages/server/src', 'packages/server/bin', 'apps/desktop/src'];
const OWNER = 'packages/server/src/data-folder.ts';

/** Every name the module defines inside the data folder. */
const NAMES: readonly string[] = [
  ...Object.values(DATA_FOLDER).map((entry) => entry.name),
  ...Object.values(CLASS_FILES),
  MODEL_DOWNLOADS_FOLDER,
];

/**
 * Lines where one of the names is a word of the API, not a path: `models` is also an OpenAPI
 * tag and a subcommand of the backend's program.
 */
const NOT_A_PATH = [
  /\btags:\s*\[\s*'models'\s*\]/,
  /\{\s*name:\s*'models',\s*description:/,
  /process\.argv\[\d\]\s*===\s*'models'/,
];

/** The string literals of a line of code: '…', "…" and `…` (a template without its parts). */
const STRING = /'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|`(?:\\.|[^`\\])*`/g;

/** True for a literal that is exactly a name of the data folder (or a name and a slash). */
const isName = (literal: string) => NAMES.includes(literal.slice(1, -1).replace(/\/$/, ''));

async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...(await sourceFiles(path)));
    else if (/\.(ts|js|mjs|cjs)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) {
      found.push(path);
    }
  }
  return found;
}

/** The code of a line without its comment (documentation may name the files). */
function codeOf(line: string): string {
  const trimmed = line.trimStart();
  if (trimmed.startsWith('//') || trimmed.startsWith('*') || trimmed.startsWith('/*')) return '';
  return line.replace(/\s\/\/\s.*$/, '');
}

/** `file:line: 'literal'` for every name of the data folder written outside the module. */
async function literalsOutsideTheModule(): Promise<string[]> {
  const found: string[] = [];
  for (const folder of SCANNED) {
    for (const file of await sourceFiles(join(REPO, folder))) {
      const name = relative(REPO, file).split('\\').join('/');
      if (name === OWNER) continue;
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines.forEach((line, index) => {
        const code = codeOf(line);
        if (NOT_A_PATH.some((pattern) => pattern.test(code))) return;
        for (const [literal] of code.matchAll(STRING)) {
          if (isName(literal)) found.push(`${name}:${index + 1}: ${literal}`);
        }
      });
    }
  }
  return found;
}

describe('the data folder’s layout', () => {
  it('names every file and folder once, in src/data-folder.ts', async () => {
    // The scan sees real sources: the module itself writes the names it defines.
    const owner = await readFile(join(REPO, OWNER), 'utf8');
    const literals = [...owner.matchAll(STRING)].map(([literal]) => literal);
    for (const name of NAMES) expect(literals).toContain(`'${name}'`);
    expect(await literalsOutsideTheModule()).toEqual([]);
  });
});
