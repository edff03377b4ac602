// `pnpm bench` (audio part): what listening costs and how soon a spoken phrase is on screen.
//   1. CPU seconds per second of audio (real-time factor) of the energy VAD, the 48 kHz stereo ->
//      16 kHz mono converter and PocketSphinx, against reading the same samples once;
//   2. latency from the end of a spoken phrase to its transcript line (SSE event) in local mode
//      (PocketSphinx) and streaming mode (asr-protocol's test server on a local socket), the WAV
//      played at real-time pace; the baseline is the wait the design itself imposes — the VAD's
//      pause threshold (local), the service's 800 ms end window (streaming) — from the same audio.
import { rm } from 'node:fs/promises';
import { createAsrTestServer } from '@class-assistant/asr-protocol/testing';
import { EnergyVad } from '../src/audio/energy-vad.ts';
import { createRecognizerConverter, samplesToBytes } from '../src/audio/pcm.ts';
import { pocketsphinxEngineDefinition } from '../src/recognizers/engines/pocketsphinx-engine.ts';
import type { ResolvedSettings } from '../src/settings/settings-store.ts';
import { classClient } from '../test/support/class-client.ts';
import { createHarness } from '../test/support/harness.ts';
import { LECTURE, type SpeechRecording, speechRecording } from '../test/support/speech.ts';
import { printTable } from './table.ts';

const fixed = (value: number, digits = 0) => value.toFixed(digits);
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** CPU time (all threads of the process) spent by `work`, in seconds: the best of 3 runs. */
async function cpuSeconds(work: () => unknown | Promise<unknown>, runs = 3): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < runs; run++) {
    const before = process.cpuUsage();
    await work();
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / 1e6);
  }
  return best;
}

function repeat(samples: Int16Array, times: number): Int16Array {
  const out = new Int16Array(samples.length * times);
  for (let index = 0; index < times; index++) out.set(samples, index * samples.length);
  return out;
}

async function realTimeFactors(lecture: SpeechRecording, rows: string[][]) {
  const long = repeat(lecture.samples, 25); // about 5 minutes of class
  const seconds = long.length / 16000;
  let checksum = 0;
  const baseline = await cpuSeconds(() => {
    for (let index = 0; index < long.length; index++) checksum += long[index]! & 1;
  });
  const vad = await cpuSeconds(() => {
    const detector = new EnergyVad({ sampleRate: 16000, bufferSamples: 1600 });
    detector.calibrate(1);
    for (let at = 0; at < long.length; at += 1600) {
      checksum += detector.push(long.subarray(at, at + 1600)).length;
    }
    checksum += detector.flush().length;
  });
  const stereo48k = new Int16Array(long.length * 6);
  for (let index = 0; index < long.length; index++) {
    for (let copy = 0; copy < 6; copy++) stereo48k[index * 6 + copy] = long[index]!;
  }
  const stereoBytes = samplesToBytes(stereo48k);
  const convert = await cpuSeconds(() => {
    const converter = createRecognizerConverter({ sampleRate: 48000, channels: 2 });
    for (let at = 0; at < stereoBytes.byteLength; at += 19200) {
      checksum += converter(stereoBytes.subarray(at, at + 19200)).length;
    }
  });
  const engine = await pocketsphinxEngineDefinition.load({
    pocketsphinxModelPath: '',
  } as ResolvedSettings);
  const phrases = (() => {
    const detector = new EnergyVad({ sampleRate: 16000, bufferSamples: 1600 });
    return [...detector.push(lecture.samples), ...detector.flush()];
  })();
  const phraseSeconds = phrases.reduce((sum, phrase) => sum + phrase.samples.length / 16000, 0);
  const sphinx = await cpuSeconds(async () => {
    for (const phrase of phrases) checksum += (await engine.transcribe(phrase.samples)).length;
  }, 1);
  engine.close();
  rows.push(['Real-time factor (CPU s per s of audio)', 'RTF', 'x realtime', 'vs reading']);
  const row = (label: string, cpu: number, audio: number) => [
    label,
    fixed(cpu / audio, 5),
    `${fixed(audio / cpu)}x`,
    `${fixed(cpu / audio / (baseline / seconds), 1)}x`,
  ];
  rows.push(row(`reading ${fixed(seconds)} s of 16 kHz samples (baseline)`, baseline, seconds));
  rows.push(row('energy VAD (SpeechRecognition listen), 100 ms buffers', vad, seconds));
  rows.push(row('48 kHz stereo -> 16 kHz mono (band-limited)', convert, seconds));
  rows.push(row(`PocketSphinx, ${phrases.length} phrases (full utterance)`, sphinx, phraseSeconds));
  return checksum;
}

/**
 * Plays the lecture at real-time pace in a class of `env` and returns, per sentence, the ms from
 * its end to the transcript event that `lineEvents` counts.
 */
async function lineLatencies(
  lecture: SpeechRecording,
  env: string[],
  lineEvents: readonly string[],
): Promise<number[]> {
  const harness = await createHarness({
    env: [
      ...env,
      `AUDIO_INPUT=file:${lecture.path}`,
      'AUDIO_FILE_PACE=realtime',
      'LOG_LEVEL=silent',
    ],
  });
  try {
    const client = await classClient(await harness.listen());
    const lines: number[] = [];
    const seen = () => {
      const count = lineEvents.reduce((sum, name) => sum + client.all(name).length, 0);
      while (lines.length < count) lines.push(performance.now());
    };
    const timer = setInterval(seen, 5);
    const started = await client.start();
    const playbackStart = performance.now();
    if (started.status !== 200) {
      throw new Error(`the class did not start: ${JSON.stringify(started.body)}`);
    }
    await client.recognizerState('ended', 60_000);
    seen();
    clearInterval(timer);
    await client.stop();
    client.close();
    return lecture.sentences.map(
      (sentence, index) => (lines[index] ?? Number.NaN) - (playbackStart + sentence.endMs),
    );
  } finally {
    await harness.close();
  }
}

function latencyRows(
  rows: string[][],
  title: string,
  lecture: SpeechRecording,
  latencies: number[],
  floors: number[],
) {
  rows.push([title, 'ms', 'floor ms', 'vs floor']);
  lecture.sentences.forEach((sentence, index) => {
    rows.push([
      `  end of "${sentence.text}" -> line`,
      fixed(latencies[index]!),
      fixed(floors[index]!),
      `${fixed(latencies[index]! / floors[index]!, 2)}x`,
    ]);
  });
  rows.push([
    '  median',
    fixed(median(latencies)),
    fixed(median(floors)),
    `${fixed(median(latencies) / median(floors), 2)}x`,
  ]);
}

async function localLatency(lecture: SpeechRecording, rows: string[][]) {
  const latencies = await lineLatencies(
    lecture,
    ['ASR_MODE=local', 'LOCAL_ASR_ENGINE=pocketsphinx'],
    // Close phrases are joined into one line: the first appends it, the next update it.
    ['line.appended', 'line.updated'],
  );
  // Where the VAD itself decides each phrase is over (the pause threshold): the floor.
  const floors: number[] = [];
  const detector = new EnergyVad({ sampleRate: 16000, bufferSamples: 1600 });
  detector.calibrate(1);
  for (let at = 0; at < lecture.samples.length; at += 1600) {
    for (const _ of detector.push(lecture.samples.subarray(at, at + 1600))) {
      floors.push((at + 1600) / 16 - lecture.sentences[floors.length]!.endMs);
    }
  }
  latencyRows(rows, 'Local mode (PocketSphinx, WAV at real-time pace)', lecture, latencies, floors);
}

async function streamLatency(lecture: SpeechRecording, rows: string[][]) {
  const service = await createAsrTestServer({
    referenceAudio: samplesToBytes(lecture.samples),
    utterances: lecture.sentences.map((sentence) => ({
      text: `${sentence.text}.`,
      start_time: sentence.startMs,
      end_time: sentence.endMs,
    })),
  });
  try {
    const latencies = await lineLatencies(
      lecture,
      [
        'ASR_MODE=stream',
        `STREAM_ASR_URL=${service.url}`,
        'STREAM_ASR_APP_KEY=bench',
        'STREAM_ASR_ACCESS_KEY=bench',
      ],
      ['line.appended'],
    );
    // The service marks a sentence definite once 800 ms of silence after it is heard, and audio
    // goes out in 200 ms packets: the first packet completing that window is the floor.
    const floors = lecture.sentences.map(
      (sentence) => Math.ceil((sentence.endMs + 800) / 200) * 200 - sentence.endMs,
    );
    latencyRows(
      rows,
      'Streaming mode (test server, WAV at real-time pace)',
      lecture,
      latencies,
      floors,
    );
  } finally {
    await service.close();
  }
}

async function main() {
  const rows: string[][] = [];
  const lecture = await speechRecording(LECTURE, { name: 'bench-lecture' });
  try {
    const checksum = await realTimeFactors(lecture, rows);
    rows.push(['', '', '', '']);
    await localLatency(lecture, rows);
    rows.push(['', '', '', '']);
    await streamLatency(lecture, rows);
    rows.push(['', '', '', '']);
    rows.push([`(checksum ${checksum})`, '', '', '']);
  } finally {
    await rm(lecture.path, { force: true });
  }
  printTable(`@class-assistant/server audio benchmark (node ${process.version})`, rows);
}

await main();
