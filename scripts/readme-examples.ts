// Keeps a package's README examples true. Every TypeScript block of the README is taken from a
// file under the package's examples/ folder, and every example runs the way a user runs it: in a
// fresh Node process, importing the package by its name, offline (no service keys in its
// environment).
//
// Examples are `.mts` files: Node strips their types and always loads them as ES modules, also
// when a user copies them into a project whose package.json says `"type": "commonjs"` (what
// `npm init` writes), where a `.ts` file would be loaded as CommonJS and fail on its first import.
//
// In the README, a block taken from a file is written
//
//   <!-- example: examples/streaming.mts -->
//   ```ts
//   …the whole file…
//   ```
//   <!-- /example -->
//
// or, for part of a file, `<!-- example: examples/store.mts#api -->` and the lines between
// `// #region api` and `// #endregion api` in the file (their common indentation removed). A
// block that is an outline rather than code to run (a type's shape) is preceded by
// `<!-- sketch -->`. Any other TypeScript block is an error: it would be code no test runs.
//
// A package's test/example-output.ts lists what each example must print; its
// test/readme-examples.test.ts calls `readmeExampleTests` with that list, and
// `pnpm check:consumer` runs the examples of the installed package against the same list
// (scripts/run-example.ts runs an example and compares).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type ExampleExpectations,
  expectationParts,
  missingOutput,
  runExample,
} from './run-example.ts';

/** A README block taken from an example file. */
export interface ReadmeExampleBlock {
  /** The file, relative to the package (`examples/streaming.mts`). */
  file: string;
  /** The region of the file, when the block shows part of it. */
  region?: string;
  /** The block's code, without the fences. */
  code: string;
  /** 1-based line of the marker in the README. */
  line: number;
}

/** What {@link parseReadmeExamples} finds. */
export interface ReadmeExamples {
  blocks: ReadmeExampleBlock[];
  /** TypeScript blocks outside an example marker and not marked as a sketch: a mistake each. */
  problems: string[];
}

const EXAMPLE_OPEN = /^<!--\s*example:\s*([^\s#]+)(?:#([\w-]+))?\s*-->$/;
const EXAMPLE_CLOSE = /^<!--\s*\/example\s*-->$/;
const SKETCH = /^<!--\s*sketch\s*-->$/;
const FENCE = /^(`{3,}|~{3,})\s*([\w-]*)/;
const TYPESCRIPT = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs', 'mts']);

/**
 * Reads the example blocks of a README and reports TypeScript blocks that come from no file.
 *
 * @example
 * const { blocks, problems } = parseReadmeExamples(readFileSync('README.md', 'utf8'));
 */
export function parseReadmeExamples(readme: string): ReadmeExamples {
  const lines = readme.split(/\r?\n/);
  const blocks: ReadmeExampleBlock[] = [];
  const problems: string[] = [];
  let open: { file: string; region?: string; line: number } | undefined;
  let sketch = false;
  for (let index = 0; index < lines.length; index++) {
    const text = (lines[index] ?? '').trim();
    const opening = EXAMPLE_OPEN.exec(text);
    if (opening) {
      if (open)
        problems.push(`line ${index + 1}: example marker inside the one of line ${open.line}`);
      open = { file: opening[1]!, line: index + 1, ...(opening[2] ? { region: opening[2] } : {}) };
      continue;
    }
    if (EXAMPLE_CLOSE.test(text)) {
      if (open) problems.push(`line ${open.line}: example marker without a code block`);
      else problems.push(`line ${index + 1}: <!-- /example --> without an opening marker`);
      open = undefined;
      continue;
    }
    if (SKETCH.test(text)) {
      sketch = true;
      continue;
    }
    const fence = FENCE.exec(text);
    if (!fence) {
      if (text !== '') sketch = false;
      continue;
    }
    // A fenced block: find its end (the same fence characters, at least as many).
    const marker = fence[1]!;
    const language = fence[2]!.toLowerCase();
    const start = index;
    let end = index + 1;
    while (end < lines.length && !(lines[end] ?? '').trim().startsWith(marker)) end++;
    const code = lines.slice(start + 1, end).join('\n');
    index = end;
    if (open) {
      blocks.push({ ...open, code });
      open = undefined;
      // The closing marker must follow (blank lines allowed).
      let next = index + 1;
      while (next < lines.length && (lines[next] ?? '').trim() === '') next++;
      if (!EXAMPLE_CLOSE.test((lines[next] ?? '').trim()))
        problems.push(`line ${start + 1}: example block not followed by <!-- /example -->`);
      else index = next;
    } else if (TYPESCRIPT.has(language) && !sketch) {
      problems.push(
        `line ${start + 1}: a \`\`\`${language} block that comes from no example file (mark it <!-- example: examples/FILE.mts --> or <!-- sketch -->)`,
      );
    }
    sketch = false;
  }
  if (open) problems.push(`line ${open.line}: example marker without a code block`);
  return { blocks, problems };
}

/**
 * The code a block shows: the whole file, or the lines of one `// #region NAME` … `// #endregion`
 * with their common indentation removed. Line ends are `\n`; no trailing line break.
 */
export function exampleSource(fileText: string, region?: string): string {
  const lines = fileText.replace(/\r\n/g, '\n').replace(/\n+$/, '').split('\n');
  if (region === undefined) return lines.join('\n');
  const start = lines.findIndex((line) => line.trim() === `// #region ${region}`);
  if (start === -1) throw new Error(`no "// #region ${region}" in the file`);
  const length = lines
    .slice(start + 1)
    .findIndex((line) => /^\/\/ #endregion(?:\s|$)/.test(line.trim()));
  if (length === -1) throw new Error(`region "${region}" has no "// #endregion"`);
  const body = lines.slice(start + 1, start + 1 + length);
  const indent = Math.min(
    ...body.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)![0].length),
  );
  return body.map((line) => line.slice(indent)).join('\n');
}

/** Module specifiers imported by a file (static and dynamic imports, `export … from`). */
export function importedSpecifiers(code: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /(?:^|[\s;])(?:import|export)\s[^'"`]*?\sfrom\s*['"]([^'"]+)['"]/g,
    /(?:^|[\s;])import\s*['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) found.add(match[1]!);
  }
  return [...found];
}

interface PackageJson {
  name: string;
  files?: string[];
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/**
 * Why an import would not work from the published package: not a Node built-in, not the package
 * itself (by name, through a subpath it exports) and not one of its runtime dependencies.
 */
export function importProblem(specifier: string, manifest: PackageJson): string | undefined {
  if (specifier.startsWith('node:')) return undefined;
  if (specifier.startsWith('.') || specifier.startsWith('/'))
    return `imports "${specifier}" by path: import the package by its name, as users do`;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  const subpath = `.${specifier.slice(name.length)}`;
  if (name === manifest.name) {
    return manifest.exports && subpath in manifest.exports
      ? undefined
      : `imports "${specifier}": the package does not export "${subpath}"`;
  }
  const runtime = {
    ...manifest.dependencies,
    ...manifest.peerDependencies,
    ...manifest.optionalDependencies,
  };
  return name in runtime
    ? undefined
    : `imports "${specifier}", which is not a runtime dependency of ${manifest.name}`;
}

/**
 * Registers the tests of a package's examples: every README TypeScript block equals the file or
 * region it names, every file under examples/ is covered by `examples` and imports only what
 * the published package can, the package publishes the folder, and each example exits 0 and
 * prints what `examples` says (a package's test/example-output.ts, also read by
 * `pnpm check:consumer`).
 *
 * @example
 * // test/example-output.ts
 * export const EXAMPLE_OUTPUT = {
 *   'streaming.mts': ['Good morning, class.'],
 * } satisfies ExampleExpectations;
 * // test/readme-examples.test.ts
 * readmeExampleTests(new URL('..', import.meta.url), EXAMPLE_OUTPUT);
 */
export function readmeExampleTests(
  packageUrl: URL,
  examples: ExampleExpectations,
  options: { timeoutMs?: number } = {},
): void {
  const packageDir = fileURLToPath(packageUrl);
  const read = (path: string) => readFileSync(join(packageDir, path), 'utf8');
  const manifest = JSON.parse(read('package.json')) as PackageJson;
  const timeoutMs = options.timeoutMs ?? 60_000;

  describe('README examples', () => {
    const { blocks, problems } = parseReadmeExamples(read('README.md'));

    it('every TypeScript block of the README comes from an example file', () => {
      expect(problems).toEqual([]);
      expect(blocks.length).toBeGreaterThan(0);
    });

    for (const block of blocks) {
      const name = `${block.file}${block.region ? `#${block.region}` : ''}`;
      it(`the block of README line ${block.line} equals ${name}`, () => {
        expect(block.code).toBe(exampleSource(read(block.file), block.region));
      });
    }
  });

  describe('examples/', () => {
    const files = readdirSync(join(packageDir, 'examples'))
      .filter((file) => /\.[cm]?[jt]s$/.test(file))
      .sort();

    it('every example is an .mts file run by this test, and the package publishes them', () => {
      expect(files.filter((file) => !file.endsWith('.mts'))).toEqual([]);
      expect(files).toEqual(Object.keys(examples).sort());
      expect(manifest.files).toContain('examples');
    });

    it('examples import only the package by its name, Node built-ins and its dependencies', () => {
      const problems = files.flatMap((file) =>
        importedSpecifiers(read(join('examples', file)))
          .map((specifier) => importProblem(specifier, manifest))
          .filter((problem) => problem !== undefined)
          .map((problem) => `examples/${file} ${problem}`),
      );
      expect(problems).toEqual([]);
    });

    for (const [file, expectation] of Object.entries(examples)) {
      it(
        `node examples/${file} runs offline and prints what it promises`,
        async () => {
          const { stdin, stdout } = expectationParts(expectation);
          const run = await runExample(packageDir, join('examples', file), { stdin, timeoutMs });
          expect(
            { code: run.code, signal: run.signal, stderr: run.code === 0 ? '' : run.stderr },
            run.stdout,
          ).toEqual({ code: 0, signal: null, stderr: '' });
          expect(missingOutput(run.stdout, stdout), run.stdout).toEqual([]);
        },
        timeoutMs + 5_000,
      );
    }
  });
}
