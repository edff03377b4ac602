import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeWav } from '@class-assistant/asr-protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AudioChunk } from './audio-source.ts';
import { concatSamples, frameEnergy, samplesToBytes } from './pcm.ts';
import { createWavFileSource } from './wav-file-source.ts';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'wav-source-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

function tone(rate: number, channels: number, seconds: number, frequency = 300): Int16Array {
  const frames = Math.round(rate * seconds);
  const out = new Int16Array(frames * channels);
  for (let frame = 0; frame < frames; frame++) {
    const value = Math.round(8000 * Math.sin((2 * Math.PI * frequency * frame) / rate));
    for (let channel = 0; channel < channels; channel++) out[frame * channels + channel] = value;
  }
  return out;
}

async function wavFile(samples: Int16Array, sampleRate: number, channels: number): Promise<string> {
  const path = join(folder, `audio-${sampleRate}-${channels}.wav`);
  await writeFile(path, encodeWav(samplesToBytes(samples), { sampleRate, channels }));
  return path;
}

async function readAll(source: ReturnType<typeof createWavFileSource>): Promise<AudioChunk[]> {
  const chunks: AudioChunk[] = [];
  for await (const chunk of source.chunks()) chunks.push(chunk);
  return chunks;
}

describe('createWavFileSource', () => {
  it('plays a 16 kHz mono file in 100 ms chunks on the class clock; kept chunks stay intact', async () => {
    const samples = tone(16000, 1, 1.05);
    const source = createWavFileSource(await wavFile(samples, 16000, 1), {
      pace: 'fast',
      chunkMs: 100,
    });
    await source.open();
    expect(source.info).toMatchObject({ kind: 'file', sampleRate: 16000, channels: 1 });
    expect(source.info!.durationMs).toBeCloseTo(1050, 6);
    const chunks = await readAll(source);
    expect(chunks.map((chunk) => chunk.samples.length)).toEqual([...Array(10).fill(1600), 800]);
    expect(chunks.map((chunk) => chunk.atMs)).toEqual(
      Array.from({ length: 11 }, (_, index) => index * 100),
    );
    // Every chunk still holds its own samples after later reads (the streaming mode keeps them).
    expect([...concatSamples(chunks.map((chunk) => chunk.samples))]).toEqual([...samples]);
    await source.close();
  });

  it('begins at startAtMs with chunk times and progress as positions in the recording', async () => {
    const samples = tone(16000, 1, 1.05);
    const source = createWavFileSource(await wavFile(samples, 16000, 1), {
      pace: 'fast',
      chunkMs: 100,
      startAtMs: 600,
    });
    await source.open();
    expect(source.progress!()).toEqual({ fraction: 600 / 1050, positionMs: 600 });
    const chunks = await readAll(source);
    expect(chunks.map((chunk) => chunk.atMs)).toEqual([600, 700, 800, 900, 1000]);
    expect([...concatSamples(chunks.map((chunk) => chunk.samples))]).toEqual([
      ...samples.subarray(9600),
    ]);
    expect(source.progress!()).toEqual({ fraction: 1, positionMs: 1050 });
    await source.close();
  });

  it('converts a 44.1 kHz stereo recording to 16 kHz mono', async () => {
    const source = createWavFileSource(await wavFile(tone(44100, 2, 1), 44100, 2), {
      pace: 'fast',
      chunkMs: 100,
    });
    await source.open();
    expect(source.info).toMatchObject({ sampleRate: 44100, channels: 2 });
    const all = concatSamples((await readAll(source)).map((chunk) => chunk.samples));
    expect(Math.abs(all.length - 16000)).toBeLessThanOrEqual(20);
    // A 300 Hz tone of amplitude 8000 has an RMS of about 5657.
    expect(frameEnergy(all.subarray(1000, 15000))).toBeGreaterThan(5400);
    await source.close();
  });

  it('plays no faster than real time, and a pause holds the place while the class clock runs', async () => {
    const source = createWavFileSource(await wavFile(tone(16000, 1, 1), 16000, 1), {
      pace: 'realtime',
      chunkMs: 100,
    });
    await source.open();
    const started = performance.now();
    const chunks: AudioChunk[] = [];
    for await (const chunk of source.chunks()) {
      chunks.push(chunk);
      if (chunks.length === 3) {
        source.pause();
        setTimeout(() => source.resume(), 400);
      }
    }
    const elapsed = performance.now() - started;
    // 1 s of audio plus a 0.4 s pause: never less (a busy machine only makes it longer).
    expect(elapsed).toBeGreaterThanOrEqual(1250);
    expect(chunks).toHaveLength(10);
    expect(chunks[3]!.atMs - chunks[2]!.atMs).toBeGreaterThanOrEqual(450);
    expect(chunks[9]!.atMs - chunks[3]!.atMs).toBeCloseTo(600, 0);
    await source.close();
  });

  it('stops at close() in the middle of a file', async () => {
    const source = createWavFileSource(await wavFile(tone(16000, 1, 5), 16000, 1), {
      pace: 'realtime',
      chunkMs: 100,
    });
    await source.open();
    const chunks: AudioChunk[] = [];
    for await (const chunk of source.chunks()) {
      chunks.push(chunk);
      if (chunks.length === 2) void source.close();
    }
    expect(chunks.length).toBeLessThanOrEqual(3);
  });

  it('names the file and what is wrong with it', async () => {
    const missing = createWavFileSource(join(folder, 'nope.wav'), { pace: 'fast', chunkMs: 100 });
    await expect(missing.open()).rejects.toMatchObject({
      code: 'AUDIO_INPUT_INVALID',
      details: { field: 'AUDIO_INPUT' },
      message: `AUDIO_INPUT names ${join(folder, 'nope.wav')}, which does not exist.`,
    });
    const text = join(folder, 'notes.wav');
    await writeFile(text, 'these are lecture notes, not audio');
    await expect(createWavFileSource(text, { pace: 'fast', chunkMs: 100 }).open()).rejects.toThrow(
      /does not start with "RIFF....WAVE"/,
    );
    const float = encodeWav(new Uint8Array(3200), { sampleRate: 16000, channels: 1 });
    new DataView(float.buffer).setUint16(20, 3, true); // IEEE float
    new DataView(float.buffer).setUint16(34, 32, true);
    const floatPath = join(folder, 'float.wav');
    await writeFile(floatPath, float);
    await expect(
      createWavFileSource(floatPath, { pace: 'fast', chunkMs: 100 }).open(),
    ).rejects.toThrow(/IEEE float.*sox/);
  });
});
