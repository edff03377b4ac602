// `pnpm bench` (sherpa part): decoding a long recording with the sherpa engine never stalls the
// server. For SenseVoice behind the Silero VAD and for the streaming transducer (the test models
// of test/fixtures/sherpa: real sherpa-onnx feature extraction, VAD and ONNX Runtime, tiny graphs),
// about 5 minutes of espeak-ng lecture is decoded whole while a timer measures the event loop's
// delay (a 5 ms timer's lateness). Printed against baselines from the same run: the delay of an idle event loop over the
// same time, and the same decoding run in this process's own thread (what the engine's separate
// process avoids). RTF: wall-clock seconds per second of audio.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assetPath } from '../src/assets.ts';
import { readSherpaModel } from '../src/models/sherpa-model.ts';
import { toFloat } from '../src/recognizers/engines/sherpa-child.ts';
import { createSherpaDecoder } from '../src/recognizers/engines/sherpa-decoder.ts';
import { sherpaEngineDefinition } from '../src/recognizers/engines/sherpa-engine.ts';
import { createSettingsStore } from '../src/settings/settings-store.ts';
import { LECTURE, speechRecording } from '../test/support/speech.ts';
import { printTable } from './table.ts';

const FIXTURES = fileURLToPath(new URL('../test/fixtures/sherpa/', import.meta.url));
const MODELS = [
  { name: 'SenseVoice + Silero VAD', folder: join(FIXTURES, 'sense-voice') },
  { name: 'streaming transducer', folder: join(FIXTURES, 'streaming-zipformer') },
];

function repeat(samples: Int16Array, times: number): Int16Array {
  const out = new Int16Array(samples.length * times);
  for (let index = 0; index < times; index++) out.set(samples, index * samples.length);
  return out;
}

/**
 * Runs `work` while a 5 ms timer measures how late each of its ticks comes (the event loop's
 * delay); wall ms, p99 and max delay ms.
 */
async function measured(
  work: () => Promise<unknown>,
): Promise<{ ms: number; maxDelayMs: number; p99Ms: number }> {
  const delays: number[] = [];
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    delays.push(Math.max(0, now - last - 5));
    last = now;
  }, 5);
  const begin = performance.now();
  await work();
  const ms = performance.now() - begin;
  // A stall by synchronous work shows as the next tick's lateness: let it come.
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearInterval(ticker);
  delays.sort((a, b) => a - b);
  return {
    ms,
    maxDelayMs: delays.at(-1) ?? 0,
    p99Ms: delays[Math.floor(delays.length * 0.99)] ?? 0,
  };
}

const lecture = await speechRecording(LECTURE);
const long = repeat(lecture.samples, 20);
const audioSeconds = long.length / 16000;
const settings = (
  await createSettingsStore({ path: join(FIXTURES, 'none.env'), environment: {} })
).current();

const rows: string[][] = [['', 'RTF', 'loop delay p99 (ms)', 'max (ms)', 'max vs idle']];
for (const model of MODELS) {
  const engine = await sherpaEngineDefinition.load(settings, model.folder);
  await engine.transcribe(lecture.samples); // warm up
  const decoding = await measured(() => engine.transcribe(long));
  engine.close();
  const idle = await measured(() => new Promise((resolve) => setTimeout(resolve, decoding.ms)));
  const decoder = createSherpaDecoder({
    model: readSherpaModel(model.folder),
    numThreads: settings.localAsrThreads,
    vadModel: assetPath('silero-vad/silero_vad.onnx'),
  });
  const samples = toFloat(long);
  const inThread = await measured(async () => decoder.transcribe(samples));
  const ratio = (value: number) => `${(value / Math.max(idle.maxDelayMs, 0.001)).toFixed(1)}x`;
  rows.push(
    [model.name, '', '', '', ''],
    ['  idle event loop (baseline)', '', idle.p99Ms.toFixed(1), idle.maxDelayMs.toFixed(1), '1.0x'],
    [
      '  engine process (the server path)',
      (decoding.ms / 1000 / audioSeconds).toFixed(4),
      decoding.p99Ms.toFixed(1),
      decoding.maxDelayMs.toFixed(1),
      ratio(decoding.maxDelayMs),
    ],
    [
      '  same decoding in this thread',
      (inThread.ms / 1000 / audioSeconds).toFixed(4),
      inThread.p99Ms.toFixed(1),
      inThread.maxDelayMs.toFixed(1),
      ratio(inThread.maxDelayMs),
    ],
  );
}
printTable(
  `sherpa engine: ${Math.round(audioSeconds)} s of lecture decoded whole (test models, LOCAL_ASR_THREADS=${settings.localAsrThreads})`,
  rows,
);
