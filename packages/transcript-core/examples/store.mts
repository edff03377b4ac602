// The transcript file on its own: every method of TranscriptStore once, on a temporary file, and
// the file as it ends up on disk.
//
//   node examples/store.mts
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTranscriptFile, TranscriptStore } from '@class-assistant/transcript-core';

const folder = await mkdtemp(join(tmpdir(), 'transcript-store-'));
const path = join(folder, 'class_transcript.txt');

// #region api
const store = await TranscriptStore.open(path, { now: () => new Date(), durable: true });
await store.reset({ courseName: '数据结构', materialName: 'lists.pptx' }); // a new class: header only, atomic
const first = await store.append('今天讲链表。'); // → { id, time: 'HH:MM:SS', text }, fsynced before it resolves
await store.append('每个节点保存数据和指针');
const fixed = await store.replaceLast('每个节点保存数据和指向下一个节点的指针。'); // rewrites only the last entry, keeps its time
const recent = await store.readRecent({ minutes: 2 }); // or { count: 20 }; never the summary
const folding = await store.fold({ summary: '开场：今天讲链表。', entries: [first] });
//    → { folded: true, foldedCount, keptCount } | { folded: false, reason: 'entries-changed' }
const summary = await store.readSummary(); // '' when none
const header = await store.readHeader(); // { startedAt, courseName, materialName, foldedCount }
const lastId = store.lastId; // id of the newest entry of the class (0 before the first)
const document = await store.read(); // { header, headerLines, summary, entries }
// #endregion api

console.log(`appended #${first.id} at ${first.time}; replaced #${fixed.id}: ${fixed.text}`);
console.log(`recent: ${recent.map((entry) => entry.text).join(' / ')}`);
console.log(`fold: ${JSON.stringify(folding)}; summary: ${summary}`);
console.log(`header: ${header.courseName}, ${header.materialName}, ${header.foldedCount} folded`);
console.log(`last id ${lastId}; entries left in the file: ${document.entries.length}`);

// Another program (an editor) appends a line: the store notices before its next operation.
await appendFile(path, '[10:30:00] 手工补记的一行\n');
const next = await store.append('下面看双向链表。');
console.log(`after an outside edit the next line is #${next.id}`);
await store.close();

// Reading without opening for writing (a missing file reads as empty).
const { entries } = await readTranscriptFile(path);
console.log(
  `readTranscriptFile: ${entries.map((entry) => `#${entry.id} ${entry.text}`).join(', ')}`,
);
console.log(`\n${await readFile(path, 'utf8')}`);
await rm(folder, { recursive: true });
