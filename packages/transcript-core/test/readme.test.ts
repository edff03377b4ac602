// Runs the README's "pipeline in 20 lines" block as written, with fakes for the LLM, the UI and
// the WebSocket that it talks to, so the documented example cannot rot.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'readme-example-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

it('the README pipeline example runs and does what it says', async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const block = /## The pipeline in 20 lines\n\n```ts\n([\s\S]*?)\n```/u.exec(readme)?.[1];
  expect(block).toBeDefined();
  const index = pathToFileURL(fileURLToPath(new URL('../src/index.ts', import.meta.url))).href;
  const code = block!
    .replace(`'@class-assistant/transcript-core'`, `'${index}'`)
    .replaceAll(`'data/`, `'${folder}/data/`);
  const prelude = [
    'export const sent = [];',
    'const llm = { summarize: async (previous, entries) => previous + entries.length };',
    'const ui = { send: (name, data) => sent.push([name, data]) };',
    "const ws = { send: (message) => sent.push(['ws', message]) };",
  ].join('\n');
  const file = join(folder, 'example.mjs');
  await writeFile(file, `${prelude}\n${code}\nexport { recent, store };\n`);
  const example = await import(/* @vite-ignore */ pathToFileURL(file).href);

  // Three intakes, three lines (modes are never mixed in a real class: no merging across them).
  expect(example.recent.map((entry: { text: string }) => entry.text)).toEqual([
    '同学们好，今天我们讲第三章。',
    '张三你来',
    '回答一下这个问题。',
  ]);
  expect(example.sent.filter(([name]: [string]) => name === 'line-appended')).toHaveLength(3);
  // 回答 is a default keyword: the old product's WebSocket alert went out.
  expect(example.sent).toContainEqual([
    'ws',
    expect.objectContaining({
      type: 'keyword_alert',
      level: 'alert',
      keywords: ['回答'],
      text: '回答一下这个问题。',
    }),
  ]);
  expect(await readFile(join(folder, 'data', 'keywords.txt'), 'utf8')).toContain('# 课堂助手');
  expect((await example.store.readHeader()).courseName).toBe('线性代数');
  await example.store.close();
});
