import { describe, expect, it } from 'vitest';
import { frameEnergy } from './pcm.ts';
import { createPcmMixer } from './pcm-mixer.ts';

/** A tone at 16 kHz: `seconds` long, `amplitude` peak. */
function tone(hz: number, seconds: number, amplitude: number): Int16Array {
  const samples = new Int16Array(Math.round(16000 * seconds));
  for (let index = 0; index < samples.length; index++) {
    samples[index] = Math.round(amplitude * Math.sin((2 * Math.PI * hz * index) / 16000));
  }
  return samples;
}

/** Pushes `samples` in pieces of `size`, collecting what the mixer releases. */
function feed(
  mixer: ReturnType<typeof createPcmMixer>,
  index: number,
  samples: Int16Array,
  size: number,
  out: Int16Array[],
) {
  for (let at = 0; at < samples.length; at += size) {
    out.push(mixer.push(index, samples.subarray(at, at + size)));
  }
}

function joined(parts: Int16Array[]): Int16Array {
  const all = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

describe('createPcmMixer', () => {
  it('sums two inputs sample for sample on one clock, whatever their chunk sizes', () => {
    const system = tone(440, 1, 8000);
    const microphone = tone(1000, 1, 6000);
    const mixer = createPcmMixer({ inputs: 2, maxLagSamples: 16000 });
    const out: Int16Array[] = [];
    // Interleaved arrival with different piece sizes (100 ms and 64 ms).
    for (let step = 0; step < 16; step++) {
      feed(mixer, 0, system.subarray(step * 1000, (step + 1) * 1000), 1600, out);
      feed(mixer, 1, microphone.subarray(step * 1000, (step + 1) * 1000), 1024, out);
    }
    const mixed = joined(out);
    expect(mixed.length).toBe(16000);
    for (const index of [0, 1, 123, 4567, 15999]) {
      expect(mixed[index]).toBe(system[index]! + microphone[index]!);
    }
    expect(mixer.position).toBe(16000);
    // Each input's level is kept: the system tone is the louder one.
    expect(mixer.levels[0]).toBe(frameEnergy(system.subarray(15000)));
    expect(mixer.levels[1]).toBe(frameEnergy(microphone.subarray(15000)));
    expect(mixer.levels[0]).toBeGreaterThan(mixer.levels[1]!);
  });

  it('releases nothing until both inputs reach it', () => {
    const mixer = createPcmMixer({ inputs: 2, maxLagSamples: 8000 });
    expect(mixer.push(0, tone(440, 0.2, 1000)).length).toBe(0);
    expect(mixer.push(1, tone(440, 0.1, 1000)).length).toBe(1600);
    expect(mixer.push(1, tone(440, 0.1, 1000)).length).toBe(1600);
  });

  it('clips loud sums to 16 bits instead of wrapping around', () => {
    const loud = tone(440, 0.1, 30000);
    const mixer = createPcmMixer({ inputs: 2, maxLagSamples: 8000 });
    mixer.push(0, loud);
    const mixed = mixer.push(1, loud);
    expect(Math.max(...mixed)).toBe(32767);
    expect(Math.min(...mixed)).toBe(-32768);
    // Where the sum fits, it is exact; where it does not, it keeps its sign.
    for (let index = 0; index < loud.length; index++) {
      const sum = loud[index]! * 2;
      expect(mixed[index]).toBe(Math.max(-32768, Math.min(32767, sum)));
    }
  });

  it('takes a stalled input as silence, so the other is never held back, and loses none of its late audio', () => {
    const system = tone(440, 2, 8000);
    const mixer = createPcmMixer({ inputs: 2, maxLagSamples: 8000 });
    const out: Int16Array[] = [];
    feed(mixer, 0, system, 1600, out);
    const mixed = joined(out);
    // 2 s in, the microphone said nothing: all but the last 0.5 s went out, as the system sound alone.
    expect(mixed.length).toBe(32000 - 8000);
    expect(Array.from(mixed.subarray(0, 100))).toEqual(Array.from(system.subarray(0, 100)));
    // The microphone's late audio follows from where the mix is, from its first sample.
    const late = tone(1000, 2, 5000);
    const after = mixer.push(1, late);
    expect(after.length).toBe(24000);
    expect(after[10]).toBe(system[24000 + 10]! + late[10]!);
    expect(after[9000]).toBe(late[9000]);
  });

  it('never mutes an input that delivers a little less than the other', () => {
    const mixer = createPcmMixer({ inputs: 2, maxLagSamples: 8000 });
    const voice = tone(300, 0.1, 4000);
    let heard = 0;
    // The microphone gives 90 ms for every 100 ms of the system sound (a slower device), 60 s long.
    for (let step = 0; step < 600; step++) {
      mixer.push(0, new Int16Array(1600));
      const mixed = mixer.push(1, voice.subarray(0, 1440));
      if (mixed.some((value) => value !== 0)) heard += 1;
    }
    expect(heard).toBeGreaterThan(500);
  });
});
