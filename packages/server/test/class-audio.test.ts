// GET /api/classes/:id/audio over a real socket: a class's kept Ogg Opus audio served whole or by
// the byte range a player seeks with, and the refusals a player or a person would meet.
import { execFile } from 'node:child_process';
import { readFile, symlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byteRange } from '../src/library/class-audio.ts';
import { createHarness, FAST_MOCK, type Harness, waitFor } from './support/harness.ts';
import { LECTURE, speechRecording } from './support/speech.ts';

const run = promisify(execFile);

let harness: Harness;
let base: string;
let classId: string;
let audio: Buffer;

beforeAll(async () => {
  harness = await createHarness({ env: FAST_MOCK });
  base = await harness.listen();
  // A class of the library, as a student keeps one.
  expect((await harness.startMonitor({ course_name: '数据结构' })).statusCode).toBe(200);
  await waitFor(
    () => harness.app.classAssistant.monitor.status().recognizer_state === 'ended',
    60_000,
    'the mock class to end',
  );
  await fetch(`${base}/api/stop_monitor?with_summary=false`, { method: 'POST' });
  const list = (await (await fetch(`${base}/api/classes`)).json()) as {
    items: Array<{ id: string }>;
  };
  classId = list.items[0]!.id;
  // Its audio as the recorder keeps it: real speech encoded to Ogg Opus.
  const lecture = await speechRecording(LECTURE);
  const path = join(harness.dataDir, 'classes', classId, 'audio.ogg');
  await run('ffmpeg', ['-v', 'error', '-i', lecture.path, '-c:a', 'libopus', '-b:a', '24k', path]);
  audio = await readFile(path);
}, 120_000);

afterAll(async () => {
  await harness?.close();
});

describe('GET /api/classes/:id/audio', () => {
  it('serves the whole Ogg Opus file, saying that it can be fetched by ranges', async () => {
    const response = await fetch(`${base}/api/classes/${classId}/audio`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('audio/ogg');
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(Number(response.headers.get('content-length'))).toBe(audio.length);
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.equals(audio)).toBe(true);
    expect(body.subarray(0, 4).toString('latin1')).toBe('OggS');
  });

  it('serves the range a player seeks to (206), the tail, and refuses one past the end (416)', async () => {
    const middle = await fetch(`${base}/api/classes/${classId}/audio`, {
      headers: { range: 'bytes=1000-1999' },
    });
    expect(middle.status).toBe(206);
    expect(middle.headers.get('content-range')).toBe(`bytes 1000-1999/${audio.length}`);
    expect(Buffer.from(await middle.arrayBuffer()).equals(audio.subarray(1000, 2000))).toBe(true);

    const open = await fetch(`${base}/api/classes/${classId}/audio`, {
      headers: { range: `bytes=${audio.length - 10}-` },
    });
    expect(open.status).toBe(206);
    expect(Buffer.from(await open.arrayBuffer()).equals(audio.subarray(audio.length - 10))).toBe(
      true,
    );

    const past = await fetch(`${base}/api/classes/${classId}/audio`, {
      headers: { range: `bytes=${audio.length}-`, 'accept-language': 'en' },
    });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${audio.length}`);
    const refusal = (await past.json()) as { code: string; message: string };
    expect(refusal.code).toBe('AUDIO_RANGE_INVALID');
    expect(refusal.message).toContain(`${audio.length} bytes`);
  });

  it('says plainly when a class kept no audio, or the class does not exist', async () => {
    const path = join(harness.dataDir, 'classes', classId, 'audio.ogg');
    await unlink(path);
    try {
      const none = await fetch(`${base}/api/classes/${classId}/audio`, {
        headers: { 'accept-language': 'zh' },
      });
      expect(none.status).toBe(404);
      const body = (await none.json()) as { code: string; message: string };
      expect(body.code).toBe('CLASS_AUDIO_NOT_FOUND');
      expect(body.message).toContain('没有保存录音');

      const missing = await fetch(`${base}/api/classes/20200101-000000-abcd/audio`);
      expect(((await missing.json()) as { code: string }).code).toBe('CLASS_NOT_FOUND');

      // A link put in place of the audio is not followed (it could lead to the settings file).
      await symlink(harness.envFile, path);
      const linked = await fetch(`${base}/api/classes/${classId}/audio`);
      expect(linked.status).toBe(403);
      expect(((await linked.json()) as { code: string }).code).toBe('FILE_LINK_REFUSED');
      await unlink(path);
    } finally {
      await writeFile(path, audio);
    }
  });
});

describe('byteRange', () => {
  it('reads the forms a player sends and ignores what it need not honour', () => {
    expect(byteRange(undefined, 100)).toBe('full');
    expect(byteRange('bytes=0-', 100)).toEqual({ start: 0, end: 99 });
    expect(byteRange('bytes=10-20', 100)).toEqual({ start: 10, end: 20 });
    expect(byteRange('bytes=90-500', 100)).toEqual({ start: 90, end: 99 });
    expect(byteRange('bytes=-30', 100)).toEqual({ start: 70, end: 99 });
    expect(byteRange('bytes=-300', 100)).toEqual({ start: 0, end: 99 });
    expect(byteRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(byteRange('bytes=0-1,5-9', 100)).toBe('full');
    expect(byteRange('items=0-1', 100)).toBe('full');
    expect(byteRange('bytes=20-10', 100)).toBe('full');
  });
});
