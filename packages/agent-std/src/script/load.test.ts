import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { loadAgentScript } from './load.ts';
import { runAgentScript } from './run.ts';
import { isAgentScriptError } from './script-error.ts';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'agent-script-load-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function files(entries: Record<string, string>) {
  for (const [name, text] of Object.entries(entries)) {
    await mkdir(join(folder, name, '..'), { recursive: true });
    await writeFile(join(folder, name), text);
  }
}

async function loadError(file: string) {
  try {
    await loadAgentScript(join(folder, file));
  } catch (error) {
    if (!isAgentScriptError(error)) throw error;
    return {
      file: error.fileName.slice(folder.length + 1),
      at: `${error.line}:${error.column}`,
      reason: error.reason.replace(folder, '<folder>'),
    };
  }
  throw new Error('loaded without an error');
}

describe('loadAgentScript', () => {
  test('reads includes relative to the including file, each file once; included code runs in place', async () => {
    await files({
      'main.nx':
        'include "lib/tools.nxlib";\ninclude "lib/tools.nxlib";\nprint("main top")\nflow main { greet("Ada") }',
      'lib/tools.nxlib':
        'include "../shared/words.nxlib"\nprint("lib top")\nflow greet(name) { print(salute + ", " + name) }',
      'shared/words.nxlib': 'include "../lib/tools.nxlib"\nlet salute = "Hello"',
    });
    const script = await loadAgentScript(join(folder, 'main.nx'));
    expect(
      script.flows.map((flow) => [flow.name, flow.fileName?.slice(folder.length + 1)]),
    ).toEqual([
      ['main', undefined],
      ['greet', 'lib/tools.nxlib'],
    ]);
    expect(script.includes).toEqual([]);
    const printed: string[] = [];
    await runAgentScript(script, { print: (line) => printed.push(line) });
    expect(printed).toEqual(['lib top', 'main top', 'Hello, Ada']);
  });

  test('errors in an included file carry its name; a name defined in two files names both', async () => {
    await files({
      'a.nx': 'include "b.nxlib"\nagent Twin { prompt: "a" }\nflow main {}',
      'b.nxlib': 'agent Twin { prompt: "b" }',
      'c.nx': 'include "d.nxlib"\nflow main {}',
      'd.nxlib': 'flow helper {\n  x = = 1\n}',
      'e.nx': 'include "missing.nxlib"\nflow main {}',
    });
    expect(await loadError('a.nx')).toMatchObject({
      file: 'b.nxlib',
      at: '1:1',
      reason: expect.stringMatching(/^agent Twin is defined twice \(also in .*a\.nx\)$/),
    });
    expect(await loadError('c.nx')).toEqual({
      file: 'd.nxlib',
      at: '2:7',
      reason: 'expected an expression, found "="',
    });
    expect(await loadError('e.nx')).toMatchObject({
      file: 'e.nx',
      at: '1:1',
      reason: expect.stringMatching(/^cannot read the included file "missing\.nxlib": ENOENT/),
    });
  });

  test('the agent dialect checks names across the included files', async () => {
    await files({
      'main.agent': 'include "lib.agent"\nflow main { x = Helper.run("hi")\n print(y) }',
      'lib.agent': 'agent Helper { prompt: "p" }',
    });
    expect(await loadError('main.agent')).toEqual({
      file: 'main.agent',
      at: '3:8',
      reason: 'variable "y" is used before it is set',
    });
  });

  test('a secrets file include (.nxs) is left for the run, which refuses it at its line', async () => {
    await files({ 'main.nx': 'include "secrets.nxs";\nflow main { print("never") }' });
    const script = await loadAgentScript(join(folder, 'main.nx'));
    await expect(runAgentScript(script, { print: () => {} })).rejects.toMatchObject({
      code: 'AGENT_SCRIPT_UNSUPPORTED',
      line: 1,
      column: 1,
    });
  });
});
