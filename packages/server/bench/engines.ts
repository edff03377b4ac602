// `pnpm bench` (engines part): every offline engine runnable here on the same recordings, scored
// as `class-assistant-backend eval` scores them (src/quality/run-eval.ts): the engine alone on
// each whole file, then the live pipeline of a class; word error rate, real-time factor and
// pipeline/engine, with ratios against PocketSphinx measured in the same run.
//
// The recordings are made now: espeak-ng says 12 lecture sentences, two per file with a pause
// (test/support/speech.ts). Engines:
//   - PocketSphinx with Debian's US English model (the baseline; always);
//   - Vosk when BENCH_VOSK_MODEL names an English Vosk model folder (e.g.
//     vosk-model-small-en-us-0.15; none can be downloaded here);
//   - sherpa-onnx when this build has the engine (src/recognizers/engines/offline-engines.ts)
//     and the test models of test/fixtures/sherpa/ are there. Those tiny graphs say fixed
//     Chinese words, so their error rates mean nothing; their RTF is the engine's overhead.
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chooseEvalEngine, type EvalEngineRequest } from '../src/quality/eval-engine.ts';
import { readEvalSet } from '../src/quality/eval-set.ts';
import { type EvalReport, runEval } from '../src/quality/run-eval.ts';
import { offlineEngine } from '../src/recognizers/engines/offline-engines.ts';
import { createSettingsStore } from '../src/settings/settings-store.ts';
import { speechRecording } from '../test/support/speech.ts';
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

const FIXTURES = fileURLToPath(new URL('../test/fixtures/sherpa/', import.meta.url));

interface Candidate {
  label: string;
  request: EvalEngineRequest;
}

const root = await mkdtemp(join(tmpdir(), 'bench-engines-'));
try {
  const set = join(root, 'set');
  await mkdir(set);
  for (let index = 0; index < SENTENCES.length; index += 2) {
    const sentences = [SENTENCES[index]!, SENTENCES[index + 1]!].map((text) => ({
      text,
      pauseAfterMs: 1500,
    }));
    const name = `lecture-${String(index / 2 + 1).padStart(2, '0')}`;
    const recording = await speechRecording(sentences, { name });
    await copyFile(recording.path, join(set, `${name}.wav`));
    await writeFile(join(set, `${name}.txt`), sentences.map((s) => `${s.text}.`).join(' '));
  }
  const items = await readEvalSet(set);
  // Default settings and no installed models: each engine's model is named here.
  const settings = (await createSettingsStore({ path: join(root, 'none.env') })).current();
  const dataDir = join(root, 'data');

  const candidates: Candidate[] = [
    { label: 'pocketsphinx (en-us)', request: { engine: 'pocketsphinx', language: 'en' } },
  ];
  const vosk = process.env.BENCH_VOSK_MODEL?.trim();
  if (vosk) {
    candidates.push({
      label: 'vosk',
      request: { engine: 'vosk', model: vosk, language: 'en' },
    });
  }
  if (offlineEngine('sherpa')) {
    for (const model of ['sense-voice', 'streaming-zipformer']) {
      const folder = join(FIXTURES, model);
      if (!existsSync(join(folder, 'tokens.txt'))) continue;
      candidates.push({
        label: `sherpa ${model} (test model)`,
        request: { engine: 'sherpa', model: folder, language: 'en' },
      });
    }
  }

  const reports: Array<{ label: string; report: EvalReport }> = [];
  for (const candidate of candidates) {
    const choice = await chooseEvalEngine(candidate.request, settings, dataDir);
    const report = await runEval({ items, choice, settings });
    reports.push({ label: candidate.label, report });
  }

  const baseline = reports[0]!.report.overall;
  const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;
  const times = (value: number, base: number) =>
    base === 0 ? (value === 0 ? '1.00x' : '-') : `${(value / base).toFixed(2)}x`;
  const seconds = baseline.duration_s.toFixed(1);
  printTable(
    `Offline engines on ${items.length} espeak-ng recordings (${SENTENCES.length} sentences, ${seconds} s, ${baseline.reference_tokens} words); ratios against PocketSphinx in this run`,
    [
      [
        'engine',
        'WER',
        'pipeline WER',
        'pipeline/engine',
        'RTF',
        'pipeline RTF',
        'WER vs PS',
        'RTF vs PS',
      ],
      ...reports.map(({ label, report }) => [
        label,
        percent(report.overall.engine_error_rate),
        percent(report.overall.pipeline_error_rate),
        report.overall.pipeline_to_engine === null
          ? 'none'
          : report.overall.pipeline_to_engine.toFixed(2),
        report.overall.rtf.toFixed(3),
        report.overall.pipeline_rtf.toFixed(3),
        times(report.overall.engine_error_rate, baseline.engine_error_rate),
        times(report.overall.rtf, baseline.rtf),
      ]),
    ],
  );
  if (!vosk)
    console.log('\n(Vosk: set BENCH_VOSK_MODEL to an English Vosk model folder to include it.)');
  if (!offlineEngine('sherpa')) console.log('(sherpa-onnx: not an offline engine of this build.)');
} finally {
  await rm(root, { recursive: true, force: true });
}
