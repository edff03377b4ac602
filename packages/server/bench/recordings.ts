// `pnpm bench` (recordings part): what decoding a recording costs before recognition.
//   1. Decoding + resampling to 16 kHz mono the same 10 minutes of espeak-ng lecture (44.1 kHz
//      stereo, 48 kHz for Opus) from MP3, M4A (moov after the media, ffmpeg's default), WebM/Opus,
//      Ogg Vorbis and FLAC, against reading the same samples from a PCM WAV through the WAV source
//      (which resamples too): time, ratio to the WAV, times real time, and the longest the event
//      loop was held (the decoder is fed 16 KB at a time).
//   2. Memory: the RSS growth while a 3-hour MP3 and M4A play through, each in its own process,
//      at 10 minutes, at 60 minutes and at its peak over the three hours: flat means the file never
//      sits in memory whole.
import { execFile, fork } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { encodeWav } from '@class-assistant/asr-protocol';
import type { AudioSource } from '../src/audio/audio-source.ts';
import { createRecordingSource } from '../src/audio/recording-source.ts';
import { createWavFileSource } from '../src/audio/wav-file-source.ts';
import { LECTURE, speechRecording } from '../test/support/speech.ts';
import { printTable } from './table.ts';

const run = promisify(execFile);
const ffmpeg = (args: readonly string[]) =>
  run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args], {
    maxBuffer: 1 << 20,
  });

/** Plays a source through at fast pace: wall seconds, samples, longest event-loop stall (ms). */
async function drain(source: AudioSource) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const started = performance.now();
  delay.enable();
  await source.open();
  let samples = 0;
  for await (const chunk of source.chunks()) samples += chunk.samples.length;
  delay.disable();
  const seconds = (performance.now() - started) / 1000;
  await source.close();
  return { seconds, samples, stallMs: delay.max / 1e6 };
}

/** The best of `runs` plays (the machine is shared). */
async function best(make: () => AudioSource, runs = 3) {
  let result = await drain(make());
  for (let index = 1; index < runs; index++) {
    const next = await drain(make());
    if (next.seconds < result.seconds) result = next;
  }
  return result;
}

/** Child mode: plays one file, sampling RSS; prints JSON. */
async function memoryChild(path: string) {
  const source = createRecordingSource(path, { pace: 'fast', chunkMs: 100 });
  const rss = () => process.memoryUsage().rss;
  await source.open();
  const start = rss();
  let peak = start;
  let atTenMinutes = 0;
  let atHour = 0;
  let samples = 0;
  for await (const chunk of source.chunks()) {
    samples += chunk.samples.length;
    if (samples % 160_000 === 0) peak = Math.max(peak, rss());
    if (atTenMinutes === 0 && samples >= 600 * 16000) atTenMinutes = rss() - start;
    if (atHour === 0 && samples >= 3600 * 16000) atHour = rss() - start;
  }
  peak = Math.max(peak, rss());
  await source.close();
  process.send?.({ start, peak, atTenMinutes, atHour, minutes: samples / 16000 / 60 });
}

async function measureMemory(path: string) {
  return new Promise<{
    start: number;
    peak: number;
    atTenMinutes: number;
    atHour: number;
    minutes: number;
  }>((resolve, reject) => {
    const child = fork(new URL(import.meta.url), ['--memory', path], { stdio: 'inherit' });
    child.once('message', (message) => resolve(message as never));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`memory child exited with ${code}`));
    });
  });
}

async function main() {
  const folder = await mkdtemp(join(tmpdir(), 'bench-recordings-'));
  const rows: string[][] = [];
  try {
    const lecture = await speechRecording(LECTURE, { name: 'bench-recordings' });
    // Ten minutes of lecture, 44.1 kHz stereo as a recorder writes it.
    const tenMono = join(folder, 'ten-16k.wav');
    const repeats = Math.ceil(600_000 / lecture.durationMs);
    const long = new Int16Array(lecture.samples.length * repeats);
    for (let index = 0; index < repeats; index++)
      long.set(lecture.samples, index * lecture.samples.length);
    await writeFile(
      tenMono,
      encodeWav(new Uint8Array(long.buffer, 0, 600 * 16000 * 2), {
        sampleRate: 16000,
        channels: 1,
      }),
    );
    const wav = join(folder, 'ten.wav');
    await ffmpeg(['-i', tenMono, '-ar', '44100', '-ac', '2', wav]);
    const formats: Array<[string, string, string[]]> = [
      ['MP3 128 kbit/s', 'ten.mp3', ['-c:a', 'libmp3lame', '-b:a', '128k']],
      ['M4A AAC, moov at end', 'ten.m4a', ['-c:a', 'aac', '-b:a', '128k']],
      ['WebM Opus 48 kHz', 'ten.webm', ['-c:a', 'libopus', '-ar', '48000']],
      ['Ogg Vorbis', 'ten.ogg', ['-c:a', 'libvorbis']],
      ['FLAC', 'ten.flac', ['-c:a', 'flac']],
    ];
    await Promise.all(
      formats.map(([, name, args]) => ffmpeg(['-i', wav, ...args, join(folder, name)])),
    );
    const baseline = await best(() => createWavFileSource(wav, { pace: 'fast', chunkMs: 100 }));
    const audioSeconds = baseline.samples / 16000;
    rows.push([
      '10 min of lecture to 16 kHz mono',
      'seconds',
      'vs WAV',
      'x real time',
      'max stall',
    ]);
    const row = (label: string, result: Awaited<ReturnType<typeof drain>>) =>
      rows.push([
        label,
        result.seconds.toFixed(2),
        `${(result.seconds / baseline.seconds).toFixed(1)}x`,
        `${Math.round(audioSeconds / result.seconds)}x`,
        `${result.stallMs.toFixed(0)} ms`,
      ]);
    row('PCM WAV 44.1 kHz stereo (WAV source, baseline)', baseline);
    row(
      'PCM WAV through the decoder',
      await best(() => createRecordingSource(wav, { pace: 'fast', chunkMs: 100 })),
    );
    for (const [label, name] of formats) {
      const path = join(folder, name);
      row(label, await best(() => createRecordingSource(path, { pace: 'fast', chunkMs: 100 })));
    }
    rows.push(['', '', '', '', '']);
    // Three hours: the ten minutes repeated 18 times, encoded straight from the WAV.
    const list = join(folder, 'list.txt');
    await writeFile(list, Array.from({ length: 18 }, () => `file '${wav}'`).join('\n'));
    rows.push(['3 h recording, played through', 'RSS start', 'at 10 min', 'at 60 min', 'peak']);
    for (const [label, name, args] of [
      ['MP3 3 h', 'three-hours.mp3', ['-c:a', 'libmp3lame', '-b:a', '128k']],
      ['M4A 3 h, moov at end', 'three-hours.m4a', ['-c:a', 'aac', '-b:a', '128k']],
    ] as const) {
      const path = join(folder, name);
      await ffmpeg(['-f', 'concat', '-safe', '0', '-i', list, ...args, path]);
      const memory = await measureMemory(path);
      const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;
      rows.push([
        `${label} (${memory.minutes.toFixed(0)} min decoded)`,
        mb(memory.start),
        `+${mb(memory.atTenMinutes)}`,
        `+${mb(memory.atHour)}`,
        `+${mb(memory.peak - memory.start)}`,
      ]);
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
  printTable(`@class-assistant/server recordings benchmark (node ${process.version})`, rows);
}

const memoryFlag = process.argv.indexOf('--memory');
if (memoryFlag >= 0) await memoryChild(process.argv[memoryFlag + 1]!);
else await main();
