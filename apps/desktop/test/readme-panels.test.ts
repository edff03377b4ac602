// The README's count and list of the UI's panels ("a bar and nine panels (class, …)") match the
// panels the UI has: the PanelName type of the store and the panel files of ui/src/panels.
import { readdir, readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';

const DESKTOP = new URL('../', import.meta.url);
/** Numbers as the README writes them, at their index. */
const NUMBERS = 'zero one two three four five six seven eight nine ten eleven twelve'.split(' ');

/** The members of `export type PanelName = | 'a' | 'b' …;` in the UI's store. */
async function panelNames(): Promise<string[]> {
  const store = await readFile(new URL('ui/src/store.ts', DESKTOP), 'utf8');
  const union = /^export type PanelName =([\s\S]*?);$/m.exec(store)?.[1];
  if (union === undefined) throw new Error('no "export type PanelName =" in ui/src/store.ts');
  return [...union.matchAll(/'([a-z-]+)'/g)].map((match) => match[1]!);
}

it('the desktop README counts and names the panels the UI has', async () => {
  const readme = await readFile(new URL('README.md', DESKTOP), 'utf8');
  const sentence = /a bar and (\w+) panels \(([^)]*?):/.exec(readme.replace(/\s+/g, ' '));
  expect(sentence, 'the README says "a bar and N panels (a, b, …: ui/src/panels/)"').not.toBeNull();
  const [, count = '', list = ''] = sentence!;
  const documented = list.split(',').map((name) => name.trim().replaceAll(' ', ''));

  const names = await panelNames();
  const files = (await readdir(new URL('ui/src/panels/', DESKTOP)))
    .filter((file) => /-panel\.tsx?$/.test(file))
    .map((file) => file.replace(/-panel\.tsx?$/, ''));
  expect([...files].sort()).toEqual([...names].sort());
  expect([...documented].sort()).toEqual([...names].sort());
  expect(NUMBERS.indexOf(count)).toBe(names.length);
});
