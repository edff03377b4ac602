// What each example under examples/ must print when it runs offline. Read by
// test/readme-examples.test.ts (the examples of this folder) and by `pnpm check:consumer` (the
// examples of the installed package, run from a copy outside node_modules).
import type { ExampleExpectations } from '../../../scripts/run-example.ts';

export const EXAMPLE_OUTPUT = {
  'custom-recognizer.mts': [
    'health: ASR_MODE local, available: true (scripted engine, reading a recording)',
    'start_monitor: started',
    /engine: phrase of \d\.\d s → 同学们好，今天讲二叉树。\n/,
    'recognizer: ended',
    // Local-mode merging: the short phrase and the next one are one line.
    'transcript #1: 同学们好，今天讲二叉树。\ntranscript #2: 张三你来回答一下什么是完全二叉树。\n',
    'engine freed',
  ],
  'mock-class.mts': [
    /^http:\/\/127\.0\.0\.1:\d+\/api\/health: healthy, version \d+\.\d+\.\d+, ASR_MODE mock$/m,
    'start_monitor: started',
    /^#1 \[\d\d:\d\d:\d\d\] 好，同学们我们开始上课，今天讲数据结构的第二部分。$/m,
    '  ALERT (danger): 点名, 同学回答',
    /^#27 \[\d\d:\d\d:\d\d\] /m,
    'stop_monitor: stopped; 27 lines live, 27 in the transcript',
  ],
} satisfies ExampleExpectations;
