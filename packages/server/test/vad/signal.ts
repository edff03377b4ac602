// The deterministic test signals of reference.py (integer arithmetic only, so both languages
// produce the same samples; the vectors carry the SHA-256 of the PCM to prove it).

/** `[kind, samples, amplitude, period?, noiseAmplitude?]` as in reference.py. */
export type SignalSegment =
  | [kind: 'noise', samples: number, amplitude: number]
  | [kind: 'tone', samples: number, amplitude: number, period: number, noiseAmplitude?: number];

function xorshift32(state: number): number {
  let x = state >>> 0;
  x = (x ^ (x << 13)) >>> 0;
  x = (x ^ (x >>> 17)) >>> 0;
  x = (x ^ (x << 5)) >>> 0;
  return x;
}

/** Builds the PCM of a signal description. */
export function generateSignal(segments: readonly SignalSegment[], seed: number): Int16Array {
  let total = 0;
  for (const segment of segments) total += segment[1];
  const out = new Int16Array(total);
  let state = seed >>> 0;
  let at = 0;
  for (const segment of segments) {
    const [kind, count, amplitude] = segment;
    const noiseAmplitude = segment[0] === 'tone' ? (segment[4] ?? 40) : 0;
    for (let n = 0; n < count; n++) {
      state = xorshift32(state);
      const centred = (state & 0xffff) - 32768;
      let value: number;
      if (kind === 'noise') {
        value = (centred * amplitude) >> 15;
      } else {
        const period = segment[3] as number;
        const square = Math.floor(n / Math.floor(period / 2)) % 2 === 0 ? amplitude : -amplitude;
        value = square + ((centred * noiseAmplitude) >> 15);
      }
      out[at++] = Math.max(-32768, Math.min(32767, value));
    }
  }
  return out;
}
