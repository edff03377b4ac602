// Every example under examples/ runs offline as a user runs it, and the README's code blocks are
// those files (see scripts/readme-examples.ts). The checker itself is tested here too: a README
// block that drifts from its file, or a TypeScript block taken from no file, is reported.
import { describe, expect, it } from 'vitest';
import {
  exampleSource,
  importProblem,
  parseReadmeExamples,
  readmeExampleTests,
} from '../../../scripts/readme-examples.ts';

readmeExampleTests(new URL('..', import.meta.url), {
  'keywords.mts': [
    'keywords: 张三 (alert), Tom (alert), 作业 (attention), deadline (attention)',
    'line 7: unknown section "[重要]"',
    'line 8: a keyword needs at least one letter or digit; line skipped',
    /homophones: off\n {2}章三你来回答一下。 → no alert\n/,
    /homophones: pinyin\n {2}章三你来回答一下。 → 张三 \(alert\)\n/,
    'See you tomorrow, everyone. → no alert',
    '作业周五交，DEADLINE 是晚上十点。 → 作业 (attention), deadline (attention)',
  ],
  'pipeline.mts': [
    '+ #1 同学们好，今天我们讲第三章，矩阵的秩。',
    '- not-meaningful: 嗯嗯',
    '- near-duplicate: 同学们好，今天我们讲第三章，矩阵的秩',
    '! alert: 张三 (heard "章三")',
    '~ #2 joined: 章三你来回答一下这个问题。',
    '! alert: 你来回答 (heard "你来回答")',
    '… 秩等于\n+ #3 秩等于非零行的个数。',
    '- repeated-utterance: 秩等于非零行的个数。',
    '! attention: 作业 (heard "作业")',
    'folded 3 lines',
    'recent lines: #4 #5 #6',
    /=== 已折叠 3 条 ===\n\n=== 历史摘要 开始 ===\n\d\d:\d\d:\d\d 同学们好，今天我们讲第三章，矩阵的秩。\n=== 历史摘要 结束 ===\n\[\d\d:\d\d:\d\d\] 初等变换不改变矩阵的秩。\n/,
  ],
  'store.mts': [
    /^appended #1 at \d\d:\d\d:\d\d; replaced #2: 每个节点保存数据和指向下一个节点的指针。$/m,
    'fold: {"folded":true,"foldedCount":1,"keptCount":1}; summary: 开场：今天讲链表。',
    'header: 数据结构, lists.pptx, 1 folded',
    'after an outside edit the next line is #4',
    'readTranscriptFile: #2 每个节点保存数据和指向下一个节点的指针。, #3 手工补记的一行, #4 下面看双向链表。',
  ],
});

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
