// `pnpm bench` (import part): a recorded lecture imported through the whole backend (buildApp:
// the import service, the monitor, speech detection, PocketSphinx per phrase, merging, the
// transcript file and the library) against the engine alone on the same 16 kHz samples in one
// `transcribe` call, as `class-assistant-backend eval` runs it (src/quality/run-eval.ts). Both
// on an engine already loaded (a warm-up import first), so the ratio is what the app adds.
// Targets: import ≤ 1.05x the engine; import ≤ half the recording's length (≥ 2x real time).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { chooseEvalEngine } from '../src/quality/eval-engine.ts';
import { releaseCachedOfflineEngine } from '../src/recognizers/local-recognizer.ts';
import { createSettingsStore } from '../src/settings/settings-store.ts';
import { type SpokenSentence, speechRecording } from '../test/support/speech.ts';
import { printTable } from './table.ts';

const SENTENCES = [
  'good morning everyone',
  'today we will talk about binary search trees',
  'please open your books to page ten',
  'does anyone have a question',
  'the exam is next week',
  'a tree is a connected graph without cycles',
  'each node has at most two children',
  'we insert the new key at a leaf',
  'the height of the tree matters',
  'let us look at an example',
  'this algorithm runs in linear time',
  'remember to submit your homework on friday',
];
/** How many times the sentences are said (BENCH_IMPORT_ROUNDS; 3 make about two minutes). */
const ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 3);

const lecture: SpokenSentence[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (const text of SENTENCES) lecture.push({ text, pauseAfterMs: 1500 });
}

const root = await mkdtemp(join(tmpdir(), 'bench-import-'));
try {
  const recording = await speechRecording(lecture, { name: 'bench-import' });
  const warmUp = await speechRecording(lecture.slice(0, 2), { name: 'bench-import-warm-up' });
  const envFile = join(root, '.env');
  await writeFile(envFile, 'ASR_MODE=local\nLOCAL_ASR_ENGINE=pocketsphinx\nLOG_LEVEL=warn\n');
  const dataDir = join(root, 'data');
  const settings = (await createSettingsStore({ path: envFile })).current();

  // The engine alone: the whole recording in one call, on a loaded engine.
  const choice = await chooseEvalEngine(
    { engine: 'pocketsphinx', language: 'en' },
    settings,
    dataDir,
  );
  const engine = await choice.entry.definition.load(settings, choice.model);
  let engineMs: number;
  try {
    await engine.transcribe(warmUp.samples);
    const started = performance.now();
    await engine.transcribe(recording.samples);
    engineMs = performance.now() - started;
  } finally {
    engine.close();
  }

  // The whole app: POST /api/import's service, begin to done (every line in the library).
  const app = await buildApp({ dataDir, envFile, logger: false });
  let importMs: number;
  let lines: number;
  try {
    await app.ready();
    const { imports } = app.classAssistant;
    await imports.begin({ path: warmUp.path, fileName: 'warm-up.wav', owned: false });
    await imports.settled();
    const started = performance.now();
    await imports.begin({ path: recording.path, fileName: 'lecture.wav', owned: false });
    const done = await imports.settled();
    importMs = performance.now() - started;
    if (done?.state !== 'done') throw new Error(`the import ended ${done?.state}`);
    lines = done.lines;
  } finally {
    await app.close();
    releaseCachedOfflineEngine();
  }

  const audioS = recording.durationMs / 1000;
  const ratio = importMs / engineMs;
  printTable(
    `Importing a ${audioS.toFixed(0)} s espeak-ng lecture with PocketSphinx (${lines} lines): the whole app against the engine alone on the same samples, this run`,
    [
      ['', 'seconds', 'x real time', 'vs engine'],
      [
        'engine alone (one transcribe call)',
        (engineMs / 1000).toFixed(1),
        (audioS / (engineMs / 1000)).toFixed(1),
        '1.00x',
      ],
      [
        'import through the app',
        (importMs / 1000).toFixed(1),
        (audioS / (importMs / 1000)).toFixed(1),
        `${ratio.toFixed(2)}x`,
      ],
    ],
  );
  console.log(
    `\nTargets: import ≤ 1.05x the engine (${ratio <= 1.05 ? 'met' : 'NOT met'}); import ≤ half the recording's length (${importMs / 1000 <= audioS / 2 ? 'met' : 'NOT met'}).`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
