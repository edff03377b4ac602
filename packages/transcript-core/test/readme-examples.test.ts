// Every example under examples/ runs offline as a user runs it, and the README's code blocks are
// those files (see scripts/readme-examples.ts); what each example prints is in
// test/example-output.ts. The checker itself is tested here too: a README
// block that drifts from its file, or a TypeScript block taken from no file, is reported.
import { describe, expect, it } from 'vitest';
import {
  exampleSource,
  importProblem,
  parseReadmeExamples,
  readmeExampleTests,
} from '../../../scripts/readme-examples.ts';
import { EXAMPLE_OUTPUT } from './example-output.ts';

readmeExampleTests(new URL('..', import.meta.url), EXAMPLE_OUTPUT);

describe('the README checker', () => {
  const fence = '```';
  it('reads example blocks and reports TypeScript blocks taken from no file', () => {
    const readme = [
      '<!-- example: examples/a.mts#part -->',
      `${fence}ts`,
      'one();',
      fence,
      '<!-- /example -->',
      '<!-- sketch -->',
      `${fence}ts`,
      'type Shape = { field; };',
      fence,
      `${fence}sh`,
      'npm install',
      fence,
      `${fence}ts`,
      'loadMyEngine();',
      fence,
    ].join('\n');
    const { blocks, problems } = parseReadmeExamples(readme);
    expect(blocks).toEqual([{ file: 'examples/a.mts', region: 'part', code: 'one();', line: 1 }]);
    expect(problems).toEqual([
      'line 13: a ```ts block that comes from no example file (mark it <!-- example: examples/FILE.mts --> or <!-- sketch -->)',
    ]);
  });

  it('reports an example block without its closing marker', () => {
    const readme = ['<!-- example: examples/a.mts -->', `${fence}ts`, 'one();', fence, 'text'];
    expect(parseReadmeExamples(readme.join('\n')).problems).toEqual([
      'line 2: example block not followed by <!-- /example -->',
    ]);
  });

  it('takes a region without its markers and common indentation', () => {
    const file = [
      'a();',
      '  // #region part',
      '  b();',
      '    c();',
      '  // #endregion part',
      'd();',
    ];
    expect(exampleSource(file.join('\n'), 'part')).toBe('b();\n  c();');
    expect(exampleSource(`${file.join('\n')}\n\n`)).toBe(file.join('\n'));
    expect(() => exampleSource(file.join('\n'), 'other')).toThrow('no "// #region other"');
  });

  it('refuses imports a user of the published package could not resolve', () => {
    const manifest = {
      name: '@class-assistant/x',
      exports: { '.': './src/index.ts', './testing': './src/testing/index.ts' },
      dependencies: { zod: '^4' },
    };
    expect(importProblem('@class-assistant/x/testing', manifest)).toBeUndefined();
    expect(importProblem('zod', manifest)).toBeUndefined();
    expect(importProblem('node:fs', manifest)).toBeUndefined();
    expect(importProblem('../src/index.ts', manifest)).toMatch(/by path/);
    expect(importProblem('@class-assistant/x/internal', manifest)).toMatch(/does not export/);
    expect(importProblem('vitest', manifest)).toMatch(/not a runtime dependency/);
  });
});
