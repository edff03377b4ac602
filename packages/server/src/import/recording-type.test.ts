import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRecording, RECORDING_HEAD_BYTES, recordingKind } from './recording-type.ts';

const run = promisify(execFile);
let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'recording-type-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** The first bytes of a second of tone encoded by ffmpeg as `name`. */
async function head(name: string, codec: string[] = []): Promise<Uint8Array> {
  const path = join(folder, name);
  await run('ffmpeg', [
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'sine=frequency=440:duration=1',
    ...codec,
    path,
  ]);
  return (await readFile(path)).subarray(0, RECORDING_HEAD_BYTES);
}

describe('recordingKind', () => {
  it('knows each recording format by its first bytes, as encoders write them', async () => {
    expect(recordingKind(await head('a.wav'))).toBe('wav');
    expect(recordingKind(await head('a.mp3'))).toBe('mp3');
    expect(recordingKind(await head('a.m4a', ['-c:a', 'aac']))).toBe('m4a');
    expect(recordingKind(await head('a.aac', ['-c:a', 'aac', '-f', 'adts']))).toBe('aac');
    expect(recordingKind(await head('a.ogg', ['-c:a', 'libvorbis']))).toBe('oga');
    expect(recordingKind(await head('a.opus', ['-c:a', 'libopus']))).toBe('opus');
    expect(recordingKind(await head('a.webm', ['-c:a', 'libopus']))).toBe('webm');
    expect(recordingKind(await head('a.flac'))).toBe('flac');
  }, 60_000);

  it('refuses what is no recording, naming the file', () => {
    const text = new TextEncoder().encode('just some notes about the lecture\n');
    expect(recordingKind(text)).toBeNull();
    expect(() => checkRecording('notes.txt', text)).toThrow(
      '"notes.txt" is not a recording. Recordings that can be imported: MP3, M4A/AAC, MP4/MOV, WebM/Opus, OGG (Vorbis, Opus), FLAC, WAV.',
    );
    expect(() => checkRecording('week1.m4a', text)).toThrow(
      '"week1.m4a" does not hold a recording (its first bytes are not those of a .m4a file)',
    );
  });
});
