// A class's transcript from a recogniser's output: one pipeline drops fragments and repeats,
// merges cut sentences, raises keyword alerts, folds old lines into a summary and writes a
// crash-safe file.
//
//   node examples/pipeline.mts
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createKeywordMatcher,
  loadKeywordsFile,
  type Summarize,
  TranscriptPipeline,
  TranscriptStore,
} from '@class-assistant/transcript-core';

const folder = await mkdtemp(join(tmpdir(), 'transcript-example-'));
const store = await TranscriptStore.open(join(folder, 'class_transcript.txt'));
await store.reset({ courseName: '线性代数', materialName: 'ch3.txt' }); // a new class
const { keywords } = await loadKeywordsFile(join(folder, 'keywords.txt'), {
  createIfMissing: true, // writes the default keywords: 点名, 你来回答, 作业, 考试, …
});

// History folding keeps a long class small: the oldest lines become a summary. An LLM usually
// writes it; any async function will do. This one keeps the longest line of each fold.
const summarize: Summarize = async (previousSummary, entries) => {
  const longest = entries.reduce((best, entry) =>
    entry.text.length > best.text.length ? entry : best,
  );
  return [previousSummary, `${longest.time} ${longest.text}`].filter(Boolean).join('\n');
};

const pipeline = new TranscriptPipeline({
  store,
  // The default keywords plus the student's own name; 章三 or 张叁 alert for 张三 too.
  keywords: createKeywordMatcher([...keywords, { text: '张三', level: 'alert' }], {
    homophones: 'pinyin',
  }),
  summarize,
  fold: { threshold: 6, keepRecent: 3 }, // small for the demo; defaults 50 and 20
});
pipeline.on('line-appended', ({ entry }) => console.log(`+ #${entry.id} ${entry.text}`));
pipeline.on('line-updated', ({ entry, merge }) =>
  console.log(`~ #${entry.id} ${merge}: ${entry.text}`),
);
pipeline.on('line-dropped', ({ text, reason }) => console.log(`- ${reason}: ${text}`));
pipeline.on('alert-raised', (alert) =>
  console.log(
    `! ${alert.level} on #${alert.lineId}: ${alert.keywords.join(', ')} (heard "${alert.matches[0]?.matchedText}")`,
  ),
);
pipeline.on('history-folded', ({ foldedCount, firstFoldedId, lastFoldedId, firstKeptId }) =>
  console.log(
    `folded ${foldedCount} lines, #${firstFoldedId}–#${lastFoldedId}; kept from #${firstKeptId} on`,
  ),
);

// Mock and cloud modes hand over finished sentences.
await pipeline.pushLine('同学们好，今天我们讲第三章，矩阵的秩。');
await pipeline.pushLine('嗯嗯'); // not meaningful: dropped
await pipeline.pushLine('同学们好，今天我们讲第三章，矩阵的秩'); // a repeat: dropped
// Local mode hands over segments with their audio times: a cut sentence is joined.
await pipeline.pushSegment({ text: '章三', startMs: 0, endMs: 600 });
await pipeline.pushSegment({ text: '你来回答一下这个问题。', startMs: 900, endMs: 2500 });
// A streaming service repeats every finished sentence in later responses: keep each one once
// (asr-protocol's createUtteranceTracker() does) and hand it over as a line.
for (const line of [
  '秩等于非零行的个数。',
  '初等变换不改变矩阵的秩。',
  '下面看第二个例子。',
  '作业是第三章习题一到五。',
]) {
  await pipeline.pushLine(line);
}
await pipeline.flush(); // waits for a running fold too
await pipeline.close(); // at stop; the store stays open for reading

const recent = await store.readRecent({ minutes: 2 });
console.log(`recent lines: ${recent.map((entry) => `#${entry.id}`).join(' ')}`);
console.log(`\n${await readFile(join(folder, 'class_transcript.txt'), 'utf8')}`);
await store.close();
await rm(folder, { recursive: true });
