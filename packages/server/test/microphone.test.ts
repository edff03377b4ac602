// The microphone path for real: the capture child process with naudiodon's addon, PortAudio and
// ALSA. This machine has no sound card, so "no device" is tested as is, and a capture device is
// made with ALSA's file plugin (test/support/alsa.ts) to carry real speech.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { AudioChunk } from '../src/audio/audio-source.ts';
import { probeMicrophone } from '../src/audio/microphone-probe.ts';
import { createMicrophoneSource } from '../src/audio/microphone-source.ts';
import { concatSamples, samplesToBytes } from '../src/audio/pcm.ts';
import { type FakeAlsaHome, fakeAlsaHome, realtimePipe } from './support/alsa.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { LECTURE, speechRecording } from './support/speech.ts';

const cleanups: Array<() => Promise<void>> = [];
let harness: Harness | undefined;
const savedHome = process.env.HOME;
afterEach(async () => {
  process.env.HOME = savedHome;
  await harness?.close();
  harness = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const FORMAT = { sampleRate: 16000, channels: 1, chunkBytes: 3200 };

async function alsaFromFile(samples: Int16Array): Promise<FakeAlsaHome> {
  const folder = await fakeAlsaHome('/dev/null');
  const infile = join(folder.home, 'speech.raw');
  await writeFile(infile, samplesToBytes(samples));
  await writeFile(
    join(folder.home, '.asoundrc'),
    `pcm.!default {\n  type file\n  slave.pcm "null"\n  file "/dev/null"\n  infile "${infile}"\n  format "raw"\n}\n`,
  );
  cleanups.push(() => folder.remove());
  return folder;
}

/** A microphone source opened on a capture device that speaks `samples` in real time. */
async function openPipeMicrophone(samples: Int16Array) {
  const pipe = await realtimePipe(samples);
  const alsa = await fakeAlsaHome(pipe.path);
  cleanups.push(
    () => alsa.remove(),
    () => pipe.stop(),
  );
  const source = createMicrophoneSource({
    device: undefined,
    ...FORMAT,
    environment: alsa.environment,
  });
  pipe.start();
  await source.open();
  return source;
}

describe('probeMicrophone', () => {
  it('says plainly that there is no input device on a machine without a sound card', async () => {
    const probe = await probeMicrophone({ device: undefined, ...FORMAT });
    expect(probe).toMatchObject({
      ok: false,
      code: 'AUDIO_DEVICE_UNAVAILABLE',
      inputs: [],
      hint: expect.stringContaining('AUDIO_INPUT=file:PATH'),
    });
    if (!probe.ok) expect(probe.message).toContain('no audio input device');
    // ALSA's chatter about its configuration stays out of the message.
    if (!probe.ok) expect(probe.message).not.toContain('ALSA lib');
  });

  it('opens a capture device, names it and measures its level', async () => {
    const lecture = await speechRecording(LECTURE);
    const alsa = await alsaFromFile(lecture.samples.subarray(24000, 48000)); // inside a sentence
    const probe = await probeMicrophone({
      device: undefined,
      ...FORMAT,
      environment: alsa.environment,
    });
    expect(probe).toMatchObject({ ok: true, sampleRate: 16000, channels: 1 });
    if (!probe.ok) return;
    expect(probe.device.name).toBe('default');
    expect(probe.inputs.map((input) => input.name)).toEqual(['default']);
    expect(probe.level).toBeGreaterThan(500);
  });

  it('lists the inputs when the named one does not exist', async () => {
    const alsa = await alsaFromFile(new Int16Array(16000));
    const probe = await probeMicrophone({
      device: 'USB Microphone',
      ...FORMAT,
      environment: alsa.environment,
    });
    expect(probe.ok).toBe(false);
    if (probe.ok) return;
    expect(probe.messages).toEqual({
      zh: '找不到名为“USB Microphone”的麦克风。请在设置里把 AUDIO_INPUT 设为 mic（默认麦克风），或 mic:设备名的一部分。',
      en: 'No microphone named "USB Microphone". Set AUDIO_INPUT to mic (the default microphone), or mic: and part of a listed name, in the settings.',
    });
    // The inputs found, in the audio system's words, behind "details".
    expect(probe.technical).toContain('no input device named "USB Microphone"');
    expect(probe.technical).toContain('"default"');
    expect(probe.hint).toContain('mic:NAME');
  });
});

describe('GET /api/check_mic', () => {
  it('answers the original error shape with HTTP 200 and no crash when there is no device', async () => {
    harness = await createHarness();
    const response = await harness.request({ url: '/api/check_mic' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      status: 'error',
      input: 'microphone',
      error_code: 'AUDIO_DEVICE_UNAVAILABLE',
      message:
        '找不到麦克风：这台电脑没有可用的录音设备。请接上麦克风并允许本应用使用后重试，或切换到演示模式。',
      technical: expect.stringContaining('no audio input device'),
      devices: [],
    });
    // In the language the request prefers.
    const english = await harness.request({
      url: '/api/check_mic',
      headers: { 'accept-language': 'en' },
    });
    expect(english.json().message).toBe(
      'No microphone found: this computer has no audio input device. Connect a microphone, let the app use it and try again, or use the demo mode.',
    );
    // The server is still there.
    expect((await harness.request({ url: '/api/health' })).statusCode).toBe(200);
  });

  it('reports the device, rate, channels and level of a working microphone', async () => {
    const lecture = await speechRecording(LECTURE);
    const alsa = await alsaFromFile(lecture.samples.subarray(24000, 48000));
    process.env.HOME = alsa.home;
    harness = await createHarness();
    const body = (await harness.request({ url: '/api/check_mic' })).json();
    expect(body).toMatchObject({
      status: 'ok',
      input: 'microphone',
      device: 'default',
      sample_rate: 16000,
      channels: 1,
      in_use: false,
      devices: ['default'],
    });
    expect(body.level).toBeGreaterThan(500);
    expect(body.message).toContain('works');
  });

  it('checks the recording when AUDIO_INPUT names one, and explains a bad one', async () => {
    const lecture = await speechRecording(LECTURE);
    harness = await createHarness({ env: [`AUDIO_INPUT=file:${lecture.path}`] });
    expect((await harness.request({ url: '/api/check_mic' })).json()).toMatchObject({
      status: 'ok',
      input: 'file',
      device: lecture.path,
      sample_rate: 16000,
      channels: 1,
      message: expect.stringContaining('instead of a microphone'),
    });
    // Any recording: an MP3 of 44.1 kHz stereo is decoded.
    await promisify(execFile)('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-i', lecture.path],
      ...['-ar', '44100', '-ac', '2', '-c:a', 'libmp3lame', join(harness.root, 'lecture.mp3')],
    ]);
    await harness.request({
      method: 'POST',
      url: '/api/settings',
      payload: { fields: { AUDIO_INPUT: 'lecture.mp3' } },
    });
    expect((await harness.request({ url: '/api/check_mic' })).json()).toMatchObject({
      status: 'ok',
      input: 'file',
      device: join(harness.root, 'lecture.mp3'),
      sample_rate: 44100,
      message: expect.stringContaining('plays the recording'),
    });
    await writeFile(join(harness.root, 'notes.wav'), 'not audio at all');
    await harness.request({
      method: 'POST',
      url: '/api/settings',
      payload: { fields: { AUDIO_INPUT: 'file:notes.wav' } },
    });
    expect((await harness.request({ url: '/api/check_mic' })).json()).toMatchObject({
      status: 'error',
      input: 'file',
      error_code: 'RECORDING_UNSUPPORTED',
      message: expect.stringContaining(join(harness.root, 'notes.wav')),
    });
  });
});

describe('createMicrophoneSource', () => {
  it('delivers what the device captures, in order, at the pace it is spoken', async () => {
    const lecture = await speechRecording(LECTURE);
    const source = await openPipeMicrophone(lecture.samples);
    expect(source.info).toMatchObject({ kind: 'microphone', name: 'default', sampleRate: 16000 });
    const chunks: AudioChunk[] = [];
    for await (const chunk of source.chunks()) {
      chunks.push(chunk);
      if (chunks.length * 100 >= 3000) break;
    }
    await source.close();
    const captured = Buffer.from(
      samplesToBytes(concatSamples(chunks.map((chunk) => chunk.samples))),
    );
    // Every 100 ms piece written into the device arrives whole and in order (the fake device may
    // pad between pieces when the pipe runs momentarily dry, as a real one drops or pads on xruns).
    let previous = -1;
    for (let piece = 5; piece < 25; piece++) {
      const needle = samplesToBytes(lecture.samples.subarray(piece * 1600, (piece + 1) * 1600));
      const at = captured.indexOf(Buffer.from(needle));
      expect(at, `piece ${piece}`).toBeGreaterThan(previous);
      previous = at;
    }
    // The class clock counts every sample delivered.
    chunks.forEach((chunk, index) => {
      if (index > 0) {
        const previous = chunks[index - 1]!;
        expect(chunk.atMs).toBeCloseTo(previous.atMs + previous.samples.length / 16, 6);
      }
    });
  });

  it('rejects open() with what to do when there is no device, and leaves no process behind', async () => {
    const source = createMicrophoneSource({ device: undefined, ...FORMAT });
    await expect(source.open()).rejects.toMatchObject({
      code: 'AUDIO_DEVICE_UNAVAILABLE',
      statusCode: 503,
      details: { field: 'AUDIO_INPUT' },
    });
    expect(source.pid).toBeDefined();
    expect(() => process.kill(source.pid!, 0)).toThrow();
  });

  it('reports a capture process that dies mid-class instead of hanging', async () => {
    const lecture = await speechRecording(LECTURE);
    const source = await openPipeMicrophone(lecture.samples);
    const iterator = source.chunks()[Symbol.asyncIterator]();
    await iterator.next();
    process.kill(source.pid!, 'SIGKILL');
    await expect(
      (async () => {
        for (;;) if ((await iterator.next()).done) return 'ended';
      })(),
    ).rejects.toThrow(/microphone process ended unexpectedly \(SIGKILL\)/);
    await source.close();
  });
});
