import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { isAsrProtocolError } from './errors.ts';
import { encodeWav, parsePcmWav, parseWav, readWavFile } from './wav.ts';

const fixture = (name: string) => new URL(`../test/fixtures/${name}`, import.meta.url).pathname;

function chunk(id: string, body: Uint8Array, declared = body.byteLength): Uint8Array {
  const out = new Uint8Array(8 + body.byteLength + (body.byteLength & 1));
  out.set(new TextEncoder().encode(id), 0);
  new DataView(out.buffer).setUint32(4, declared, true);
  out.set(body, 8);
  return out;
}

function fmt(fields: {
  tag?: number;
  channels?: number;
  rate?: number;
  bits?: number;
  align?: number;
  extra?: number[];
}) {
  const channels = fields.channels ?? 1;
  const bits = fields.bits ?? 16;
  const body = new Uint8Array(16 + (fields.extra?.length ?? 0));
  const view = new DataView(body.buffer);
  view.setUint16(0, fields.tag ?? 1, true);
  view.setUint16(2, channels, true);
  view.setUint32(4, fields.rate ?? 16000, true);
  view.setUint32(8, (fields.rate ?? 16000) * channels * (bits / 8), true);
  view.setUint16(12, fields.align ?? channels * (bits / 8), true);
  view.setUint16(14, bits, true);
  body.set(fields.extra ?? [], 16);
  return chunk('fmt ', body);
}

function riff(...chunks: Uint8Array[]): Uint8Array {
  const size = chunks.reduce((sum, item) => sum + item.byteLength, 4);
  const out = new Uint8Array(8 + size);
  out.set(new TextEncoder().encode('RIFF'), 0);
  new DataView(out.buffer).setUint32(4, size, true);
  out.set(new TextEncoder().encode('WAVE'), 8);
  let offset = 12;
  for (const item of chunks) {
    out.set(item, offset);
    offset += item.byteLength;
  }
  return out;
}

function failure(action: () => unknown): { code: string; message: string } {
  try {
    action();
  } catch (error) {
    if (isAsrProtocolError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected an error');
}

const samples = new Uint8Array([1, 0, 2, 0, 3, 0, 4, 0]);

describe('parseWav', () => {
  it('reads the espeak-ng/sox mono fixture', async () => {
    const wav = await readWavFile(fixture('lecture-mono-16k.wav'));
    expect(wav.channels).toBe(1);
    expect(wav.sampleRate).toBe(16000);
    expect(wav.data.byteLength).toBe(70356 * 2);
    expect(wav.durationMs).toBeCloseTo(4397.25, 1);
    expect(wav.truncated).toBe(false);
  });

  it('reads the stereo fixture', async () => {
    const wav = await readWavFile(fixture('question-stereo-16k.wav'));
    expect(wav.channels).toBe(2);
    expect(wav.data.byteLength % 4).toBe(0);
    expect(wav.durationMs).toBeCloseTo(1798, 0);
  });

  it('refuses the 8 kHz fixture, naming the rate and how to convert', async () => {
    const bytes = await readFile(fixture('question-8k.wav'));
    const { code, message } = failure(() => parseWav(bytes));
    expect(code).toBe('ASR_WAV_UNSUPPORTED');
    expect(message).toContain('sample rate 8000 Hz (need 16000 Hz)');
    expect(message).toContain('sox IN.wav -r 16000 -b 16 -e signed-integer OUT.wav');
  });

  it('walks past LIST and odd-sized chunks (padded to even) to find fmt and data', () => {
    const odd = chunk('junk', new Uint8Array([9, 9, 9]));
    expect(odd.byteLength).toBe(12);
    const list = chunk('LIST', new TextEncoder().encode('INFOISFT'));
    const wav = parseWav(
      riff(list, odd, fmt({}), chunk('fact', new Uint8Array(4)), chunk('data', samples), list),
    );
    expect([...wav.data]).toEqual([...samples]);
    expect(wav.durationMs).toBe(0.25);
  });

  it('reads WAVE_FORMAT_EXTENSIBLE with a PCM sub-format, refuses a float one', () => {
    const extensible = (subformat: number) => {
      const extra = new Array(24).fill(0);
      extra[0] = 22; // cbSize
      extra[8] = subformat & 0xff;
      return fmt({ tag: 0xfffe, extra });
    };
    expect(parseWav(riff(extensible(1), chunk('data', samples))).data.byteLength).toBe(8);
    expect(failure(() => parseWav(riff(extensible(3), chunk('data', samples)))).message).toContain(
      'encoding is IEEE float (need PCM)',
    );
  });

  it('names every difference at once', () => {
    const { code, message } = failure(() =>
      parseWav(
        riff(
          fmt({ tag: 3, bits: 32, rate: 44100, channels: 6 }),
          chunk('data', new Uint8Array(48)),
        ),
      ),
    );
    expect(code).toBe('ASR_WAV_UNSUPPORTED');
    expect(message).toContain(
      'encoding is IEEE float (need PCM), 32-bit samples (need 16-bit), sample rate 44100 Hz (need 16000 Hz), 6 channels (need 1 or 2)',
    );
  });

  it.each([
    ['24-bit', fmt({ bits: 24 }), '24-bit samples (need 16-bit)'],
    ['mu-law', fmt({ tag: 7, bits: 8 }), 'encoding is mu-law'],
    ['3 channels', fmt({ channels: 3 }), '3 channels (need 1 or 2)'],
  ])('refuses %s', (_name, format, expected) => {
    const { code, message } = failure(() =>
      parseWav(riff(format, chunk('data', new Uint8Array(12)))),
    );
    expect(code).toBe('ASR_WAV_UNSUPPORTED');
    expect(message).toContain(expected);
  });

  it.each([
    [
      'a text file',
      new TextEncoder().encode('hello, this is not audio at all'),
      'does not start with "RIFF....WAVE"',
    ],
    ['a tiny file', new Uint8Array(5), 'only 5 bytes'],
    ['no fmt chunk', riff(chunk('data', samples)), 'no fmt chunk'],
    ['no data chunk', riff(fmt({})), 'no data chunk'],
    [
      'a short fmt chunk',
      riff(chunk('fmt ', new Uint8Array(10)), chunk('data', samples)),
      'the fmt chunk is 10 bytes',
    ],
    [
      'a fmt chunk cut off',
      riff(fmt({})).subarray(0, 30),
      'the fmt chunk declares 16 bytes but the file ends after 10',
    ],
    [
      'a wrong block align',
      riff(fmt({ align: 4 }), chunk('data', samples)),
      'block align is 4 bytes',
    ],
  ])('refuses %s as ASR_WAV_INVALID', (_name, bytes, expected) => {
    const { code, message } = failure(() => parseWav(bytes));
    expect(code).toBe('ASR_WAV_INVALID');
    expect(message).toContain(expected);
  });

  it('refuses RIFX and RF64 by name', () => {
    const rifx = riff(fmt({}), chunk('data', samples));
    rifx.set(new TextEncoder().encode('RIFX'), 0);
    expect(failure(() => parseWav(rifx))).toMatchObject({
      code: 'ASR_WAV_UNSUPPORTED',
      message: expect.stringContaining('big-endian RIFX'),
    });
  });

  it('returns the audio present when the data chunk claims more (a recording cut short)', () => {
    const cut = riff(fmt({}), chunk('data', samples, 1_000_000));
    const wav = parseWav(cut);
    expect(wav.truncated).toBe(true);
    expect([...wav.data]).toEqual([...samples]);
    const streamed = parseWav(riff(fmt({}), chunk('data', samples, 0xffffffff)));
    expect(streamed.truncated).toBe(false);
    expect(streamed.data.byteLength).toBe(8);
  });

  it('drops a trailing partial sample frame', () => {
    const wav = parseWav(riff(fmt({ channels: 2 }), chunk('data', new Uint8Array(10))));
    expect(wav.data.byteLength).toBe(8);
  });

  it('reads back what encodeWav writes', () => {
    const pcm = new Uint8Array(3200).map((_, index) => index % 251);
    const wav = parseWav(encodeWav(pcm, { channels: 2 }));
    expect(wav.channels).toBe(2);
    expect(wav.data).toEqual(pcm);
  });

  it('reports a missing file as ASR_FILE_UNREADABLE with the path', async () => {
    await expect(readWavFile('/no/such/lecture.wav')).rejects.toMatchObject({
      code: 'ASR_FILE_UNREADABLE',
      message: 'cannot read /no/such/lecture.wav: ENOENT',
    });
  });
});

describe('parsePcmWav', () => {
  it('reads PCM s16le at any rate, where parseWav asks for 16 kHz', () => {
    const bytes = riff(fmt({ rate: 44100, channels: 2 }), chunk('data', new Uint8Array(44100 * 4)));
    expect(failure(() => parseWav(bytes)).message).toContain('sample rate 44100 Hz');
    const wav = parsePcmWav(bytes);
    expect(wav).toMatchObject({ sampleRate: 44100, channels: 2, truncated: false });
    expect(wav.durationMs).toBe(1000);
    expect(wav.declaredDataBytes).toBe(44100 * 4);
  });

  it('tells where the audio starts and how long it is when given only the start of a file', () => {
    const whole = riff(
      fmt({ rate: 48000 }),
      chunk('LIST', new Uint8Array(30)),
      chunk('data', new Uint8Array(96000)),
    );
    const head = whole.subarray(0, 200);
    const wav = parsePcmWav(head);
    expect(wav.truncated).toBe(true);
    expect(wav.declaredDataBytes).toBe(96000);
    expect(wav.data.byteOffset - head.byteOffset).toBe(12 + 24 + 38 + 8);
    expect(parsePcmWav(riff(fmt({}), chunk('data', samples, 0xffffffff))).declaredDataBytes).toBe(
      undefined,
    );
  });

  it('still refuses what is not 16-bit PCM, naming it', () => {
    const { code, message } = failure(() =>
      parsePcmWav(riff(fmt({ tag: 3, bits: 32 }), chunk('data', samples))),
    );
    expect(code).toBe('ASR_WAV_UNSUPPORTED');
    expect(message).toContain('IEEE float');
    expect(message).toContain('32-bit samples');
  });
});
