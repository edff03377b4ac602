import { frameEnergy } from './pcm.ts';

/** Options of {@link createPcmMixer}. */
export interface PcmMixerOptions {
  /** How many inputs are summed. */
  inputs: number;
  /**
   * How far one input may run ahead of a silent or stalled one before the stalled one is taken
   * as silence for that stretch (its late samples then follow from where the mix is). In samples.
   */
  maxLagSamples: number;
}

/** Sums several 16 kHz mono inputs, sample for sample, on one clock; see {@link createPcmMixer}. */
export interface PcmMixer {
  /** Adds samples of input `index` (in order); returns the mixed audio now complete (maybe empty). */
  push(index: number, samples: Int16Array): Int16Array;
  /** Energy (RMS) of each input's latest samples. */
  readonly levels: readonly number[];
  /** Samples mixed so far (the position on the common clock). */
  readonly position: number;
}

/**
 * Mixes inputs that start together and run at the same rate (two capture devices opened for one
 * class): output sample n is the sum of every input's sample n, clipped to 16 bits. Audio is
 * released once every input has reached it; an input more than `maxLagSamples` behind counts as
 * silent up to there, so a stalled device never holds the other one back, and its audio goes on
 * from there when it comes (late by the stall, never dropped: a device a little slower than the
 * other is never muted).
 *
 * @example
 * const mixer = createPcmMixer({ inputs: 2, maxLagSamples: 8000 });
 * mixer.push(0, systemSamples); // empty: the microphone has not reached it yet
 * const mixed = mixer.push(1, microphoneSamples);
 */
export function createPcmMixer(options: PcmMixerOptions): PcmMixer {
  const count = options.inputs;
  // Samples waiting per input (starting at `position`).
  const pending: Int16Array[] = Array.from({ length: count }, () => new Int16Array(0));
  const levels = new Array<number>(count).fill(0);
  let position = 0;

  const append = (index: number, incoming: Int16Array) => {
    if (incoming.length === 0) return;
    const current = pending[index]!;
    const joined = new Int16Array(current.length + incoming.length);
    joined.set(current);
    joined.set(incoming, current.length);
    pending[index] = joined;
  };

  return {
    push(index, samples) {
      if (index < 0 || index >= count) throw new RangeError(`no mixer input ${index}`);
      levels[index] = frameEnergy(samples);
      append(index, samples);
      const lengths = pending.map((buffer) => buffer.length);
      const longest = Math.max(...lengths);
      const ready = Math.max(Math.min(...lengths), longest - options.maxLagSamples);
      if (ready <= 0) return new Int16Array(0);
      const sums = new Int32Array(ready);
      for (let input = 0; input < count; input++) {
        const buffer = pending[input]!;
        const used = Math.min(buffer.length, ready);
        for (let sample = 0; sample < used; sample++) sums[sample]! += buffer[sample]!;
        pending[input] = buffer.slice(used);
      }
      const mixed = new Int16Array(ready);
      for (let sample = 0; sample < ready; sample++) {
        const value = sums[sample]!;
        mixed[sample] = Math.min(32767, Math.max(-32768, value));
      }
      position += ready;
      return mixed;
    },
    get levels() {
      return levels;
    },
    get position() {
      return position;
    },
  };
}
