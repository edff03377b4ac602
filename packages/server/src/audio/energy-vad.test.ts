import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateSignal, type SignalSegment } from '../../test/vad/signal.ts';
import {
  EnergyVad,
  SEED_VAD_PARAMETERS,
  type VadPhrase,
  type VadTraceEntry,
} from './energy-vad.ts';
import { bytesToSamples, samplesToBytes } from './pcm.ts';

const VAD_FOLDER = join(import.meta.dirname, '..', '..', 'test', 'vad');

interface Vector {
  name: string;
  sample_rate: number;
  chunk: number;
  calibration_seconds: number;
  options: {
    energy_threshold: number;
    dynamic_energy_threshold: boolean;
    dynamic_energy_adjustment_damping: number;
    dynamic_energy_ratio: number;
    pause_threshold: number;
    phrase_threshold: number;
    non_speaking_duration: number;
    phrase_time_limit: number;
  };
  signal?: { seed: number; segments: SignalSegment[] };
  wav?: string;
  pcm_sha256: string;
  samples: number;
  trace: Array<[number, number, number, string] | ['dropped', number, number]>;
  phrases: Array<{
    start_buffer: number;
    end_buffer: number;
    start_sample: number;
    end_sample: number;
    reason: string;
    sha256: string;
  }>;
  final_threshold: number;
}

function loadVector(name: string): Vector {
  return JSON.parse(readFileSync(join(VAD_FOLDER, 'vectors', `${name}.json`), 'utf8')) as Vector;
}

function vectorAudio(vector: Vector): Int16Array {
  if (vector.wav) {
    const bytes = readFileSync(join(VAD_FOLDER, vector.wav));
    // parseWav checks 16 kHz for the streaming service; this file is 8 kHz, so read it by hand.
    const data = bytes.indexOf('data') + 8;
    expect(bytes.readUInt32LE(24)).toBe(vector.sample_rate);
    return bytesToSamples(
      new Uint8Array(bytes.buffer, bytes.byteOffset + data, vector.samples * 2),
    );
  }
  const signal = vector.signal!;
  return generateSignal(signal.segments, signal.seed);
}

function sha256(samples: Int16Array): string {
  return createHash('sha256').update(samplesToBytes(samples)).digest('hex');
}

function run(vector: Vector, pieceSamples: number) {
  const audio = vectorAudio(vector);
  expect(sha256(audio)).toBe(vector.pcm_sha256);
  const vad = new EnergyVad({
    sampleRate: vector.sample_rate,
    bufferSamples: vector.chunk,
    energyThreshold: vector.options.energy_threshold,
    dynamicEnergyThreshold: vector.options.dynamic_energy_threshold,
    dynamicEnergyAdjustmentDamping: vector.options.dynamic_energy_adjustment_damping,
    dynamicEnergyRatio: vector.options.dynamic_energy_ratio,
    pauseThreshold: vector.options.pause_threshold,
    phraseThreshold: vector.options.phrase_threshold,
    nonSpeakingDuration: vector.options.non_speaking_duration,
    phraseTimeLimit: vector.options.phrase_time_limit,
  });
  const trace: VadTraceEntry[] = [];
  vad.onTrace = (entry) => trace.push(entry);
  if (vector.calibration_seconds > 0) vad.calibrate(vector.calibration_seconds);
  const phrases: VadPhrase[] = [];
  // Audio arrives in pieces unrelated to the buffer size, as from a microphone.
  for (let at = 0; at < audio.length; at += pieceSamples) {
    phrases.push(...vad.push(audio.subarray(at, at + pieceSamples)));
  }
  phrases.push(...vad.flush());
  return { vad, trace, phrases };
}

const VECTORS = ['seed-defaults', 'calibrated', 'time-limit', 'speech'];

describe('EnergyVad against the SpeechRecognition reference vectors', () => {
  for (const name of VECTORS) {
    for (const piece of [1000, 4099]) {
      it(`${name}: every buffer's energy, threshold and state, then the phrases (pieces of ${piece} samples)`, () => {
        const vector = loadVector(name);
        const { vad, trace, phrases } = run(vector, piece);
        expect(trace).toHaveLength(vector.trace.length);
        vector.trace.forEach((expected, position) => {
          const actual = trace[position]!;
          if (expected[0] === 'dropped') {
            expect(actual, `trace[${position}]`).toEqual({
              kind: 'dropped',
              startBuffer: expected[1],
              endBuffer: expected[2],
            });
            return;
          }
          const [index, energy, threshold, state] = expected;
          expect(actual.kind, `trace[${position}]`).toBe('buffer');
          if (actual.kind !== 'buffer') return;
          expect([actual.index, actual.energy, actual.state], `buffer ${index}`).toEqual([
            index,
            energy,
            state,
          ]);
          expect(actual.threshold, `threshold after buffer ${index}`).toBeCloseTo(threshold, 9);
        });
        // The library returns the quiet audio it kept when the stream ends before any speech;
        // the port returns nothing then (nothing to transcribe).
        const expectedPhrases = vector.phrases.filter(
          (phrase) => phrase.reason !== 'end-of-stream-silence',
        );
        expect(
          phrases.map((phrase) => ({
            start_buffer: phrase.startBuffer,
            end_buffer: phrase.endBuffer,
            start_sample: phrase.startSample,
            end_sample: phrase.endSample,
            reason: phrase.reason,
            sha256: sha256(phrase.samples),
          })),
        ).toEqual(expectedPhrases);
        expect(vad.energyThreshold).toBeCloseTo(vector.final_threshold, 9);
      });
    }
  }

  it('covers each behaviour of the library at least once', () => {
    const all = VECTORS.map(loadVector);
    const reasons = new Set(all.flatMap((vector) => vector.phrases.map((phrase) => phrase.reason)));
    expect([...reasons].sort()).toEqual([
      'end-of-stream',
      'end-of-stream-silence',
      'pause',
      'time-limit',
    ]);
    expect(all.some((vector) => vector.trace.some((entry) => entry[0] === 'dropped'))).toBe(true);
    expect(all.some((vector) => vector.trace.some((entry) => entry[3] === 'calibrating'))).toBe(
      true,
    );
    // The dynamic threshold really moves in the seed scenario (it follows rising noise).
    const seed = all[0]!;
    const waiting = seed.trace.filter((entry) => entry[3] === 'waiting').map((entry) => entry[2]);
    expect(Math.max(...(waiting as number[]))).toBeGreaterThan(100);
    expect(Math.min(...(waiting as number[]))).toBeLessThan(60);
  });
});

describe('EnergyVad', () => {
  it('uses the seed values by default', () => {
    const vad = new EnergyVad({ sampleRate: 16000, bufferSamples: 1600 });
    expect(vad.energyThreshold).toBe(SEED_VAD_PARAMETERS.energyThreshold);
    expect(vad.pauseBufferCount).toBe(Math.ceil(0.9 / 0.1));
    expect(vad.phraseBufferCount).toBe(Math.ceil(0.35 / 0.1));
    expect(vad.nonSpeakingBufferCount).toBe(Math.ceil(0.45 / 0.1));
  });

  it('refuses a pause threshold shorter than the kept silence, as the library asserts', () => {
    expect(
      () =>
        new EnergyVad({
          sampleRate: 16000,
          bufferSamples: 1600,
          pauseThreshold: 0.3,
          nonSpeakingDuration: 0.45,
        }),
    ).toThrow(/pauseThreshold/);
  });

  it('reset() forgets the phrase in progress and shifts later times by the skipped audio', () => {
    const vad = new EnergyVad({ sampleRate: 16000, bufferSamples: 1600 });
    const tone = generateSignal([['tone', 16000, 3000, 64]], 1);
    const quiet = new Int16Array(32000);
    expect(vad.push(tone)).toEqual([]);
    expect(vad.speaking).toBe(true);
    vad.reset(5000);
    expect(vad.speaking).toBe(false);
    expect(vad.push(quiet)).toEqual([]);
    const phrases = [...vad.push(tone), ...vad.push(quiet)];
    expect(phrases).toHaveLength(1);
    // 1 s of tone + 5 s skipped + 2 s of quiet before the second tone.
    expect(phrases[0]!.startMs).toBeGreaterThan(7500);
    expect(phrases[0]!.startMs).toBeLessThanOrEqual(8000);
    // The speech itself starts with the tone, after the quiet pre-roll the phrase keeps.
    expect(phrases[0]!.speechStartMs).toBe(8000);
    expect(phrases[0]!.reason).toBe('pause');
  });
});
