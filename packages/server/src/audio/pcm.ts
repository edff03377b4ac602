/**
 * PCM s16le helpers: byte/sample views, energy, down-mixing and resampling to the 16 kHz mono
 * every recognizer of the server takes (Vosk, PocketSphinx, the streaming service, cloud WAVs).
 */

/** The format every audio source delivers to the recognizers. */
export const RECOGNIZER_SAMPLE_RATE = 16000;

/** Energy of a buffer as Python's `audioop.rms(buffer, 2)`: floor of the RMS, 0 when empty. */
export function frameEnergy(samples: Int16Array): number {
  const count = samples.length;
  if (count === 0) return 0;
  let sum = 0;
  for (let index = 0; index < count; index++) {
    const value = samples[index]!;
    sum += value * value;
  }
  return Math.floor(Math.sqrt(sum / count));
}

/**
 * Little-endian 16-bit samples of `bytes` (a trailing odd byte is ignored). A view when the bytes
 * are aligned, a copy otherwise.
 */
export function bytesToSamples(bytes: Uint8Array): Int16Array {
  const count = bytes.byteLength >> 1;
  if ((bytes.byteOffset & 1) === 0) return new Int16Array(bytes.buffer, bytes.byteOffset, count);
  const copy = new Uint8Array(count * 2);
  copy.set(bytes.subarray(0, count * 2));
  return new Int16Array(copy.buffer);
}

/** The bytes of `samples` (a view, no copy). */
export function samplesToBytes(samples: Int16Array): Uint8Array {
  return new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
}

/** Concatenates sample arrays. */
export function concatSamples(parts: readonly Int16Array[]): Int16Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Int16Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Averages interleaved channels into one (1 channel: returned as is). */
export function downmix(samples: Int16Array, channels: number): Int16Array {
  if (channels === 1) return samples;
  const frames = Math.floor(samples.length / channels);
  const out = new Int16Array(frames);
  for (let frame = 0; frame < frames; frame++) {
    let sum = 0;
    for (let channel = 0; channel < channels; channel++)
      sum += samples[frame * channels + channel]!;
    out[frame] = Math.round(sum / channels);
  }
  return out;
}

/**
 * Averages planar float channels (-1 to 1, as decoders give them) into one channel of 16-bit
 * samples, clipping what exceeds full scale.
 */
export function planarToMono(channels: readonly Float32Array[]): Int16Array {
  const count = channels.length;
  const frames = count === 0 ? 0 : Math.min(...channels.map((channel) => channel.length));
  const out = new Int16Array(frames);
  const scale = 32768 / Math.max(1, count);
  for (let frame = 0; frame < frames; frame++) {
    let sum = 0;
    for (let channel = 0; channel < count; channel++) sum += channels[channel]![frame]!;
    const value = Math.round(sum * scale);
    out[frame] = Math.max(-32768, Math.min(32767, value));
  }
  return out;
}

/** A streaming sample-rate converter; see {@link createResampler}. */
export interface Resampler {
  /** Converts the next samples; output length follows the rate ratio over the whole stream. */
  push(samples: Int16Array): Int16Array;
}

const TAPS = 16;

/**
 * A streaming band-limited resampler (windowed-sinc interpolation, 2×16 taps, Blackman window,
 * cut-off at 0.9 of the lower Nyquist frequency), so 44.1 or 48 kHz microphones feed 16 kHz
 * recognizers without aliasing. Latency: 16 input samples. Same rates: a pass-through.
 *
 * @example
 * const resample = createResampler(48000, 16000);
 * const out = resample.push(chunk); // about a third as many samples
 */
export function createResampler(fromRate: number, toRate: number): Resampler {
  if (fromRate === toRate) return { push: (samples) => samples };
  if (!Number.isInteger(fromRate) || !Number.isInteger(toRate) || fromRate <= 0 || toRate <= 0) {
    throw new RangeError(`sample rates must be positive whole numbers (${fromRate} -> ${toRate})`);
  }
  const cutoff = Math.min(1, toRate / fromRate) * 0.9;
  // history holds the last 2*TAPS input samples before the current chunk.
  let history = new Float64Array(2 * TAPS);
  // Position of the next output sample in input samples from the start of `history`, kept as an
  // integer count of 1/toRate steps so that it is exact however the input is cut.
  let position = TAPS * toRate;
  const kernel = (x: number): number => {
    if (Math.abs(x) >= TAPS) return 0;
    const sinc = x === 0 ? 1 : Math.sin(Math.PI * cutoff * x) / (Math.PI * cutoff * x);
    const window =
      0.42 + 0.5 * Math.cos((Math.PI * x) / TAPS) + 0.08 * Math.cos((2 * Math.PI * x) / TAPS);
    return cutoff * sinc * window;
  };
  // The fractional position takes at most toRate / gcd(fromRate, toRate) values (one for
  // 48 -> 16 kHz, 160 for 44.1 -> 16 kHz): each set of tap weights is computed once, in a table
  // indexed by the fraction (long recordings go through here: no map lookups, no boxed numbers).
  const weightCache: Array<Float64Array | undefined> = [];
  const weightsFor = (fraction: number): Float64Array => {
    let weights = weightCache[fraction];
    if (!weights) {
      weights = new Float64Array(2 * TAPS);
      for (let tap = 0; tap < 2 * TAPS; tap++) {
        weights[tap] = kernel(fraction / toRate + TAPS - 1 - tap);
      }
      weightCache[fraction] = weights;
    }
    return weights;
  };
  return {
    push(samples) {
      const input = new Float64Array(history.length + samples.length);
      input.set(history);
      for (let index = 0; index < samples.length; index++)
        input[history.length + index] = samples[index]!;
      // An output needs TAPS input samples after it.
      const limit = input.length - TAPS;
      // Outputs at position + k * fromRate while floor(that / toRate) < limit.
      const out = new Int16Array(Math.max(0, Math.ceil((limit * toRate - position) / fromRate)));
      let produced = 0;
      while (Math.floor(position / toRate) < limit) {
        const centre = Math.floor(position / toRate);
        const weights = weightsFor(position - centre * toRate);
        const base = centre - TAPS + 1;
        let sum = 0;
        for (let tap = 0; tap < 2 * TAPS; tap++) sum += input[base + tap]! * weights[tap]!;
        const value = Math.round(sum);
        out[produced++] = Math.max(-32768, Math.min(32767, value));
        position += fromRate;
      }
      const drop = input.length - 2 * TAPS;
      history = input.slice(drop);
      position -= drop * toRate;
      return produced === out.length ? out : out.slice(0, produced);
    },
  };
}

/** Capture format of an audio source. */
export interface PcmFormat {
  sampleRate: number;
  channels: number;
}

/**
 * Converts captured PCM bytes (any rate, 1 or 2 channels) to 16 kHz mono samples, keeping an odd
 * trailing byte or partial frame for the next chunk.
 */
export function createRecognizerConverter(format: PcmFormat): (bytes: Uint8Array) => Int16Array {
  const frameBytes = 2 * format.channels;
  const resampler = createResampler(format.sampleRate, RECOGNIZER_SAMPLE_RATE);
  let carry = new Uint8Array(0);
  return (bytes) => {
    let input = bytes;
    if (carry.byteLength > 0) {
      input = new Uint8Array(carry.byteLength + bytes.byteLength);
      input.set(carry);
      input.set(bytes, carry.byteLength);
    }
    const usable = input.byteLength - (input.byteLength % frameBytes);
    carry = input.slice(usable);
    const samples = bytesToSamples(input.subarray(0, usable));
    return resampler.push(downmix(samples, format.channels));
  };
}
