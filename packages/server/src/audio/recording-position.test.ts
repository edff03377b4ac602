import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeWav } from '@class-assistant/asr-protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AudioChunk, AudioSource } from './audio-source.ts';
import { recordingPositionOf } from './audio-source.ts';
import { samplesToBytes } from './pcm.ts';
import { createRecordingPositions, trackRecordingPosition } from './recording-position.ts';
import { createWavFileSource } from './wav-file-source.ts';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'recording-position-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** A 100 ms chunk of 16 kHz audio at `atMs` on the class clock. */
const chunk = (atMs: number): AudioChunk => ({ samples: new Int16Array(1600), atMs });

describe('createRecordingPositions', () => {
  it('takes paused time out of the class clock', () => {
    const positions = createRecordingPositions();
    expect(positions.positionAt(0)).toBeUndefined();
    for (const atMs of [0, 100, 200]) positions.note(chunk(atMs));
    // Paused for 3 s: the class clock jumps, the recording goes on where it stopped.
    for (const atMs of [3300, 3400]) positions.note(chunk(atMs));
    expect(positions.positionAt(150)).toBe(150);
    expect(positions.positionAt(3350)).toBe(350);
    // A time inside the pause is where the pause held the recording.
    expect(positions.positionAt(1000)).toBe(300);
    expect(positions.reachedMs()).toBe(500);
    expect(positions.positionAt(Number.POSITIVE_INFINITY)).toBe(500);
  });

  it('counts from where a source starts in the file (a resumed recording)', () => {
    const positions = createRecordingPositions();
    // The first chunk ends 60.1 s into the file: the class clock's 0 is 60 s into it.
    positions.note(chunk(0), 60_100);
    positions.note(chunk(100), 60_200);
    expect(positions.positionAt(50)).toBe(60_050);
    expect(positions.positionAt(150)).toBe(60_150);
  });
});

describe('trackRecordingPosition', () => {
  it('maps a paused WAV file source’s class clock back to positions in the file', async () => {
    const path = join(folder, 'lecture.wav');
    // 1 s of 16 kHz audio whose sample values count up, so a chunk tells where it came from.
    const samples = Int16Array.from({ length: 16_000 }, (_, index) => Math.floor(index / 16));
    await writeFile(path, encodeWav(samplesToBytes(samples), { sampleRate: 16_000, channels: 1 }));
    let clock = 0;
    const source = trackRecordingPosition(
      createWavFileSource(path, { pace: 'fast', chunkMs: 100, now: () => clock }),
    );
    await source.open();
    expect(source.info).toMatchObject({ kind: 'file', durationMs: 1000 });
    const reader = source.chunks()[Symbol.asyncIterator]();
    const first = (await reader.next()).value as AudioChunk;
    const second = (await reader.next()).value as AudioChunk;
    expect([first.atMs, second.atMs]).toEqual([0, 100]);
    // Paused for 5 s by the class clock.
    source.pause();
    clock += 5000;
    source.resume();
    const third = (await reader.next()).value as AudioChunk;
    expect(third.atMs).toBe(5200);
    // The audio at class time 5250 ms is the sample 250 ms into the file.
    expect(source.positionAt?.(5250)).toBe(250);
    expect(third.samples[50 * 16]).toBe(250);
    expect(recordingPositionOf(source, first.atMs + 40)).toBe(40);
    expect(recordingPositionOf(source)).toBe(300);
    // Closed mid-file: the reader, stopped, releases the file.
    await source.close();
    await reader.return?.(undefined);
  });

  it('continues at positions after the start of a source that opens later in the file', async () => {
    // A recording resumed 60 s in: its chunks start at 0 on the class clock, its progress
    // reports positions in the file.
    let delivered = 60_000;
    const resumed: AudioSource = {
      info: { kind: 'file', name: '/lectures/week3.mp3', sampleRate: 16_000, channels: 1 },
      level: 0,
      async open() {},
      chunks: () => ({
        async *[Symbol.asyncIterator]() {
          for (const atMs of [0, 100, 200]) {
            delivered += 100;
            yield chunk(atMs);
          }
        },
      }),
      pause() {},
      resume() {},
      async close() {},
      progress: () => ({ fraction: delivered / 120_000, positionMs: delivered }),
    };
    const tracked = trackRecordingPosition(resumed);
    for await (const _ of tracked.chunks()) {
      // read it all
    }
    expect(recordingPositionOf(tracked, 150)).toBe(60_150);
    expect(recordingPositionOf(tracked)).toBe(60_300);
    expect(tracked.progress?.()).toEqual({ fraction: 0.5025, positionMs: 60_300 });
  });

  it('leaves live sources without positions', async () => {
    const live: AudioSource = {
      info: { kind: 'microphone', name: 'default', sampleRate: 16_000, channels: 1 },
      level: 0,
      async open() {},
      chunks: () => ({
        async *[Symbol.asyncIterator]() {
          yield chunk(0);
        },
      }),
      pause() {},
      resume() {},
      async close() {},
    };
    const tracked = trackRecordingPosition(live);
    for await (const _ of tracked.chunks()) {
      // read it all
    }
    expect(tracked.positionAt?.(50)).toBeUndefined();
    expect(recordingPositionOf(tracked, 50)).toBeUndefined();
  });
});
