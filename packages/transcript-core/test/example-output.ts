// What each example under examples/ must print when it runs offline. Read by
// test/readme-examples.test.ts (the examples of this folder) and by `pnpm check:consumer` (the
// examples of the installed package, run from a copy outside node_modules).
import type { ExampleExpectations } from '../../../scripts/run-example.ts';

export const EXAMPLE_OUTPUT = {
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
    '! alert on #2: 张三 (heard "章三")',
    '~ #2 joined: 章三你来回答一下这个问题。',
    '! alert on #2: 你来回答 (heard "你来回答")',
    '+ #3 秩等于非零行的个数。',
    '! attention on #6: 作业 (heard "作业")',
    'folded 3 lines, #1–#3; kept from #4 on',
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
} satisfies ExampleExpectations;
