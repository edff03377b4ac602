import { describe, expect, it } from 'vitest';
import {
  bytesToSamples,
  concatSamples,
  createRecognizerConverter,
  createResampler,
  downmix,
  frameEnergy,
  samplesToBytes,
} from './pcm.ts';

function sine(rate: number, frequency: number, seconds: number, amplitude = 10000): Int16Array {
  const out = new Int16Array(Math.round(rate * seconds));
  for (let n = 0; n < out.length; n++)
    out[n] = Math.round(amplitude * Math.sin((2 * Math.PI * frequency * n) / rate));
  return out;
}

/** Amplitude of `frequency` in `samples` (a single-bin DFT). */
function toneLevel(samples: Int16Array, rate: number, frequency: number): number {
  let re = 0;
  let im = 0;
  for (let n = 0; n < samples.length; n++) {
    re += samples[n]! * Math.cos((2 * Math.PI * frequency * n) / rate);
    im -= samples[n]! * Math.sin((2 * Math.PI * frequency * n) / rate);
  }
  return (2 * Math.hypot(re, im)) / samples.length;
}

function resampleInPieces(samples: Int16Array, from: number, to: number, piece: number) {
  const resampler = createResampler(from, to);
  const parts: Int16Array[] = [];
  for (let at = 0; at < samples.length; at += piece)
    parts.push(resampler.push(samples.subarray(at, at + piece)));
  return concatSamples(parts);
}

describe('frameEnergy', () => {
  it('is the floor of the RMS, as audioop.rms', () => {
    expect(frameEnergy(new Int16Array([3, -4]))).toBe(3); // sqrt(12.5) = 3.53
    expect(frameEnergy(new Int16Array([-32768, 32767]))).toBe(32767);
    expect(frameEnergy(new Int16Array(0))).toBe(0);
  });
});

describe('bytes and samples', () => {
  it('reads little-endian samples, also from an odd offset', () => {
    const bytes = new Uint8Array([0xff, 0x01, 0x00, 0x00, 0x80, 0x07]);
    expect([...bytesToSamples(bytes.subarray(1, 5))]).toEqual([1, -32768]);
    expect([...samplesToBytes(new Int16Array([1, -2]))]).toEqual([1, 0, 0xfe, 0xff]);
  });

  it('averages channels when down-mixing', () => {
    expect([...downmix(new Int16Array([100, 300, -5, -6, 7, 8]), 2)]).toEqual([200, -5, 8]);
  });
});

describe('createResampler', () => {
  it('turns 48 kHz into 16 kHz keeping a speech-band tone and its level', () => {
    const input = sine(48000, 440, 1);
    const output = resampleInPieces(input, 48000, 16000, 999);
    expect(Math.abs(output.length - 16000)).toBeLessThanOrEqual(20);
    expect(toneLevel(output.subarray(200, 15800), 16000, 440)).toBeGreaterThan(9500);
  });

  it('removes what 16 kHz cannot carry instead of folding it back (no aliasing)', () => {
    // 11 kHz at 48 kHz would alias to 5 kHz at 16 kHz.
    const output = resampleInPieces(sine(48000, 11000, 1), 48000, 16000, 4096);
    expect(toneLevel(output.subarray(200, 15800), 16000, 5000)).toBeLessThan(200);
    expect(frameEnergy(output.subarray(200, 15800))).toBeLessThan(150);
  });

  it('resamples 44.1 kHz and upsamples 8 kHz, whatever the piece size', () => {
    const a = resampleInPieces(sine(44100, 1000, 0.5), 44100, 16000, 441);
    const b = resampleInPieces(sine(44100, 1000, 0.5), 44100, 16000, 100000);
    expect(Math.abs(a.length - 8000)).toBeLessThanOrEqual(20);
    expect([...a]).toEqual([...b]);
    const up = resampleInPieces(sine(8000, 300, 0.5), 8000, 16000, 333);
    expect(toneLevel(up.subarray(100, 7900), 16000, 300)).toBeGreaterThan(9500);
  });

  it('passes 16 kHz through untouched', () => {
    const input = sine(16000, 200, 0.1);
    expect(createResampler(16000, 16000).push(input)).toBe(input);
  });
});

describe('createRecognizerConverter', () => {
  it('makes 16 kHz mono from stereo bytes split at odd places', () => {
    const stereo = new Int16Array(3200);
    for (let frame = 0; frame < 1600; frame++) {
      stereo[frame * 2] = 1000;
      stereo[frame * 2 + 1] = 3000;
    }
    const bytes = samplesToBytes(stereo);
    const convert = createRecognizerConverter({ sampleRate: 16000, channels: 2 });
    const out = concatSamples([
      convert(bytes.subarray(0, 3)),
      convert(bytes.subarray(3, 1001)),
      convert(bytes.subarray(1001)),
    ]);
    expect(out.length).toBe(1600);
    expect(out.every((value) => value === 2000)).toBe(true);
  });
});
