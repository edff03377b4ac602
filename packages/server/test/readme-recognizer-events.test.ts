// The README's table of what a recognizer emits names exactly the events of the RecognizerEvent
// type (read from its declaration), so the text cannot keep an event the code dropped or miss
// one it added.
import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';

const README = new URL('../README.md', import.meta.url);
const RECOGNIZER = new URL('../src/recognizers/recognizer.ts', import.meta.url);

/** The `type` of each member of the `RecognizerEvent` union, as its declaration writes them. */
async function eventTypes(): Promise<string[]> {
  const source = await readFile(RECOGNIZER, 'utf8');
  const declaration = /^export type RecognizerEvent =\n([\s\S]*?);$/m.exec(source)?.[1];
  if (declaration === undefined) {
    throw new Error('no "export type RecognizerEvent =" union in recognizer.ts');
  }
  return [...declaration.matchAll(/^\s*\| \{ type: '([a-z-]+)'/gm)].map((match) => match[1]!);
}

/** The events of the README's table after "What a recognizer emits". */
async function readmeEvents(): Promise<string[]> {
  const readme = await readFile(README, 'utf8');
  const start = readme.indexOf('What a recognizer emits');
  expect(start, 'the README introduces the table with "What a recognizer emits"').toBeGreaterThan(
    -1,
  );
  const table = /\n((?:\|.*\n)+)/.exec(readme.slice(start))?.[1] ?? '';
  return [...table.matchAll(/^\| `\{type:'([a-z-]+)'/gm)].map((match) => match[1]!);
}

it("the server README's recognizer events are those of the RecognizerEvent type", async () => {
  const documented = await readmeEvents();
  const declared = await eventTypes();
  expect(declared.length).toBeGreaterThan(3);
  expect([...documented].sort()).toEqual([...declared].sort());
});
