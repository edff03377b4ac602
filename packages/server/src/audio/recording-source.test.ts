import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpeechRecording, speechRecording } from '../../test/support/speech.ts';
import type { AudioChunk, AudioSource } from './audio-source.ts';
import { concatSamples, frameEnergy } from './pcm.ts';
import { createRecordingSource } from './recording-source.ts';

const run = promisify(execFile);

// [3 s of room noise]["good morning everyone"][2 s][second sentence][1 s]
let lecture: SpeechRecording;
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'recording-source-'));
  lecture = await speechRecording(
    [
      { text: 'good morning everyone', pauseAfterMs: 2000 },
      { text: 'please open your books to page ten', pauseAfterMs: 1000 },
    ],
    { leadMs: 3000, name: 'recording-source' },
  );
}, 60_000);
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** Encodes the lecture with ffmpeg (44.1 kHz stereo unless the arguments say otherwise). */
async function encode(
  name: string,
  args: readonly string[],
  input = lecture.path,
): Promise<string> {
  const path = join(folder, name);
  await run('ffmpeg', [
    '-hide_banner',
    '-loglevel',
    'error',
    '-y',
    '-i',
    input,
    '-ar',
    '44100',
    '-ac',
    '2',
    ...args,
    path,
  ]);
  return path;
}

interface Played {
  chunks: AudioChunk[];
  samples: Int16Array;
  fractions: number[];
}

async function play(source: AudioSource): Promise<Played> {
  const chunks: AudioChunk[] = [];
  const fractions: number[] = [];
  for await (const chunk of source.chunks()) {
    chunks.push(chunk);
    fractions.push(source.progress!().fraction);
  }
  return { chunks, samples: concatSamples(chunks.map((chunk) => chunk.samples)), fractions };
}

/** Where speech starts (ms) at or after `fromMs`: the first 10 ms frame well above the room noise. */
function speechOnset(samples: Int16Array, fromMs: number): number {
  for (let at = Math.round(fromMs * 16); at + 160 <= samples.length; at += 160) {
    if (frameEnergy(samples.subarray(at, at + 160)) > 400) return at / 16;
  }
  return Number.NaN;
}

const FORMATS: Array<{ name: string; args: string[]; rate: number; known: boolean }> = [
  { name: 'lecture.mp3', args: ['-c:a', 'libmp3lame', '-b:a', '128k'], rate: 44100, known: true },
  // VBR without a frame count: the first frame's bit rate says a length far from the truth.
  {
    name: 'vbr-no-xing.mp3',
    args: ['-c:a', 'libmp3lame', '-q:a', '6', '-write_xing', '0'],
    rate: 44100,
    known: false,
  },
  { name: 'lecture.m4a', args: ['-c:a', 'aac'], rate: 44100, known: true },
  { name: 'lecture.aac', args: ['-c:a', 'aac', '-f', 'adts'], rate: 44100, known: false },
  { name: 'lecture.mov', args: ['-c:a', 'aac'], rate: 44100, known: true },
  { name: 'lecture.webm', args: ['-c:a', 'libopus', '-ar', '48000'], rate: 48000, known: true },
  { name: 'lecture.ogg', args: ['-c:a', 'libvorbis'], rate: 44100, known: true },
  { name: 'lecture.opus', args: ['-c:a', 'libopus', '-ar', '48000'], rate: 48000, known: true },
  { name: 'lecture.flac', args: ['-c:a', 'flac'], rate: 44100, known: true },
  { name: 'float.wav', args: ['-c:a', 'pcm_f32le'], rate: 44100, known: true },
  // Compressed WAVs: their length is the fact chunk's sample count (ffmpeg declares an ADPCM
  // byte rate that would make this one about 30 % too short).
  { name: 'adpcm.wav', args: ['-c:a', 'adpcm_ms'], rate: 44100, known: true },
  { name: 'mulaw.wav', args: ['-c:a', 'pcm_mulaw', '-ar', '8000'], rate: 8000, known: true },
];

describe('createRecordingSource', () => {
  it.each(FORMATS)(
    'decodes $name to 16 kHz mono with the speech where it is in the recording',
    async ({ name, args, rate, known }) => {
      const source = createRecordingSource(await encode(name, args), {
        pace: 'fast',
        chunkMs: 100,
      });
      await source.open();
      expect(source.info).toMatchObject({ kind: 'file', sampleRate: rate });
      if (known) expect(Math.abs(source.info!.durationMs! - lecture.durationMs)).toBeLessThan(50);
      const { chunks, samples, fractions } = await play(source);
      await source.close();
      expect(Math.abs(samples.length / 16 - lecture.durationMs)).toBeLessThan(50);
      // Read to its end, the source says its true length whatever the header said.
      expect(source.info!.durationMs).toBe(samples.length / 16);
      // 100 ms chunks of 1600 samples, each at its own place in the recording.
      expect(chunks.slice(0, -1).every((chunk) => chunk.samples.length === 1600)).toBe(true);
      expect(chunks.map((chunk) => chunk.atMs)).toEqual(chunks.map((_, index) => index * 100));
      const [first, second] = lecture.sentences;
      expect(Math.abs(speechOnset(samples, 0) - first!.startMs)).toBeLessThanOrEqual(100);
      expect(Math.abs(speechOnset(samples, first!.endMs + 300) - second!.startMs)).toBeLessThan(
        100,
      );
      // The file is read once, front to back: progress only grows, and ends at 1.
      expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
      expect(fractions.at(-1)).toBe(1);
      expect(source.progress!().positionMs).toBeCloseTo(samples.length / 16, 6);
    },
    60_000,
  );
});

describe('createRecordingSource on MP4 files', () => {
  it('streams an M4A whose moov follows the media as it streams a faststart one', async () => {
    // A minute of lecture: big enough that holding it whole would show.
    const looped = join(folder, 'looped.wav');
    await run('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-stream_loop', '5', '-i', lecture.path],
      looped,
    ]);
    const atEnd = await encode('end.m4a', ['-c:a', 'aac', '-b:a', '256k'], looped);
    const faststart = await encode(
      'faststart.m4a',
      ['-c:a', 'aac', '-b:a', '256k', '-movflags', '+faststart'],
      looped,
    );
    // ffmpeg's default: the tables (moov) after the media (mdat); +faststart: before.
    const order = async (path: string) => {
      const bytes = await readFile(path);
      return bytes.indexOf('moov') < bytes.indexOf('mdat') ? 'moov first' : 'mdat first';
    };
    expect(await order(atEnd)).toBe('mdat first');
    expect(await order(faststart)).toBe('moov first');
    const played: Int16Array[] = [];
    for (const path of [atEnd, faststart]) {
      const size = (await stat(path)).size;
      expect(size).toBeGreaterThan(1_500_000);
      const source = createRecordingSource(path, { pace: 'fast', chunkMs: 100 });
      await source.open();
      const chunks: AudioChunk[] = [];
      let readAtFirstChunk = 1;
      for await (const chunk of source.chunks()) {
        if (chunks.length === 0) readAtFirstChunk = source.progress!().fraction * size;
        chunks.push(chunk);
      }
      await source.close();
      // The first audio comes once the tables and one piece of media are read: the decoder is
      // fed the file in bounded pieces, never made to hold it whole.
      expect(readAtFirstChunk).toBeLessThan(200_000);
      played.push(concatSamples(chunks.map((chunk) => chunk.samples)));
    }
    // Both layouts give the same audio, sample for sample.
    expect(played[0]!.length).toBe(played[1]!.length);
    expect(Buffer.from(played[0]!.buffer).equals(Buffer.from(played[1]!.buffer))).toBe(true);
    expect(Math.abs(played[0]!.length / 16 - lecture.durationMs * 6)).toBeLessThan(100);
  }, 120_000);

  it('plays the sound track of a video, moov after the media', async () => {
    const video = join(folder, 'lecture-video.mp4');
    await run('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i'],
      'testsrc=size=160x120:rate=10',
      ...['-i', lecture.path, '-shortest', '-c:v', 'libx264', '-c:a', 'aac', video],
    ]);
    const source = createRecordingSource(video, { pace: 'fast', chunkMs: 100 });
    await source.open();
    const { samples } = await play(source);
    await source.close();
    expect(Math.abs(samples.length / 16 - lecture.durationMs)).toBeLessThan(100);
    expect(Math.abs(speechOnset(samples, 0) - lecture.sentences[0]!.startMs)).toBeLessThan(100);
  }, 60_000);
});

describe('createRecordingSource positions', () => {
  it('starts at startAtMs: positions from there, the speech still where it is', async () => {
    const path = await encode('resume.mp3', ['-c:a', 'libmp3lame']);
    const second = lecture.sentences[1]!;
    const startAtMs = second.startMs - 1000;
    const source = createRecordingSource(path, { pace: 'fast', chunkMs: 100, startAtMs });
    await source.open();
    const { chunks, samples } = await play(source);
    await source.close();
    expect(chunks[0]!.atMs).toBe(startAtMs);
    expect(chunks[1]!.atMs).toBe(startAtMs + 100);
    expect(Math.abs(samples.length / 16 - (lecture.durationMs - startAtMs))).toBeLessThan(50);
    // The second sentence begins a second into what is delivered.
    expect(Math.abs(speechOnset(samples, 0) - 1000)).toBeLessThan(100);
    expect(source.progress!()).toMatchObject({ fraction: 1 });
    expect(Math.abs(source.progress!().positionMs - lecture.durationMs)).toBeLessThan(50);
  }, 60_000);

  it('plays no faster than real time; a pause holds the place while the class clock runs', async () => {
    const path = await encode('paced.ogg', ['-c:a', 'libvorbis']);
    const source = createRecordingSource(path, { pace: 'realtime', chunkMs: 100 });
    await source.open();
    const started = performance.now();
    const chunks: AudioChunk[] = [];
    for await (const chunk of source.chunks()) {
      chunks.push(chunk);
      if (chunks.length === 3) {
        source.pause();
        setTimeout(() => source.resume(), 400);
      }
      if (chunks.length === 10) break;
    }
    const elapsed = performance.now() - started;
    await source.close();
    // 1 s of audio plus a 0.4 s pause: never less (a busy machine only makes it longer).
    expect(elapsed).toBeGreaterThanOrEqual(1250);
    expect(chunks[3]!.atMs - chunks[2]!.atMs).toBeGreaterThanOrEqual(450);
    expect(chunks[9]!.atMs - chunks[3]!.atMs).toBeCloseTo(600, 0);
    expect(source.progress!().positionMs).toBe(1000);
  }, 60_000);

  it('stops at close() in the middle of a file', async () => {
    const path = await encode('closed.flac', ['-c:a', 'flac']);
    const source = createRecordingSource(path, { pace: 'fast', chunkMs: 100 });
    await source.open();
    const chunks: AudioChunk[] = [];
    for await (const chunk of source.chunks()) {
      chunks.push(chunk);
      if (chunks.length === 2) void source.close();
    }
    expect(chunks.length).toBeLessThanOrEqual(3);
    expect(source.progress!().fraction).toBeLessThan(1);
    await source.close();
  }, 60_000);
});

describe('createRecordingSource refusals', () => {
  const refusal = async (path: string) => {
    const source = createRecordingSource(path, { pace: 'fast', chunkMs: 100 });
    const error = await source.open().then(
      () => undefined,
      (caught: unknown) =>
        caught as {
          code: string;
          localized: { zh: string; en: string };
          details: Record<string, string>;
        },
    );
    await source.close();
    expect(error).toBeDefined();
    return error!;
  };

  it('refuses a document renamed .mp3, naming the file and the formats, in zh and en', async () => {
    const path = join(folder, 'slides.mp3');
    await writeFile(path, '%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n');
    const error = await refusal(path);
    expect(error).toMatchObject({
      code: 'RECORDING_UNSUPPORTED',
      details: { field: 'AUDIO_INPUT', technical: expect.stringContaining('%PDF') },
    });
    expect(error.localized.en).toBe(
      `${path} is not a recording the app can decode. Accepted formats: MP3, M4A/AAC, MP4/MOV, WebM/Opus, OGG (Vorbis, Opus), FLAC, WAV.`,
    );
    expect(error.localized.zh).toBe(
      `${path} 不是能解码的录音文件。支持的格式：MP3, M4A/AAC, MP4/MOV, WebM/Opus, OGG (Vorbis, Opus), FLAC, WAV。`,
    );
  });

  it('says a video has no sound, and which codec it cannot decode', async () => {
    const silent = join(folder, 'silent.mp4');
    await run('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i'],
      'testsrc=size=160x120:rate=10',
      ...['-t', '2', '-c:v', 'libx264', silent],
    ]);
    const noSound = await refusal(silent);
    expect(noSound).toMatchObject({
      code: 'RECORDING_UNSUPPORTED',
      details: { technical: 'No audio track found in MP4' },
    });
    expect(noSound.localized.en).toContain(`${silent} has no sound track`);
    expect(noSound.localized.zh).toContain(`${silent} 里没有声音`);
    // MPEG layer II sound in a Matroska file: a container the app reads, a codec it does not.
    const layer2 = await encode('lecture.mka', ['-c:a', 'mp2']);
    const codec = await refusal(layer2);
    expect(codec).toMatchObject({
      code: 'RECORDING_UNSUPPORTED',
      details: { technical: expect.stringContaining('Layer II') },
    });
    expect(codec.localized.en).toContain('in a codec the app cannot decode');
    expect(codec.localized.zh).toContain('声音编码本应用无法解码');
  }, 60_000);

  it('says an MP4 cut off before its tables was not finished, and a missing file is missing', async () => {
    const cut = await encode('cut.m4a', ['-c:a', 'aac']);
    await truncate(cut, Math.floor((await stat(cut)).size / 2));
    const unfinished = await refusal(cut);
    expect(unfinished).toMatchObject({
      code: 'RECORDING_UNSUPPORTED',
      details: { technical: expect.stringContaining('not finished') },
    });
    expect(unfinished.localized.en).toContain(cut);
    const missing = await refusal(join(folder, 'nope.m4a'));
    expect(missing).toMatchObject({
      code: 'AUDIO_INPUT_INVALID',
      details: { field: 'AUDIO_INPUT' },
    });
    expect(missing.localized).toEqual({
      zh: `录音 ${join(folder, 'nope.m4a')} 不存在。`,
      en: `The recording ${join(folder, 'nope.m4a')} does not exist.`,
    });
  }, 60_000);
});
