import { describe, expect, it } from 'vitest';
import { createPcmChunker, toInt16 } from './pcm-chunker.ts';

const samplesOf = (pcm: ArrayBuffer) => Array.from(new Int16Array(pcm));

describe('createPcmChunker', () => {
  it('writes little-endian 16-bit samples, clipped, in frames of exactly chunkBytes', () => {
    const chunker = createPcmChunker({ channels: 1, chunkBytes: 8 });
    const frames = chunker.push([new Float32Array([0, 0.5, -0.5, 1, -1, 2])]);
    expect(frames).toHaveLength(1);
    expect(new Uint8Array(frames[0]!.pcm)).toEqual(
      new Uint8Array([0x00, 0x00, 0x00, 0x40, 0x00, 0xc0, 0xff, 0x7f]),
    );
    // The rest waits for the next block.
    const next = chunker.push([new Float32Array([0, 0])]);
    expect(next.map((frame) => samplesOf(frame.pcm))).toEqual([[-32768, 32767, 0, 0]]);
  });

  it('mixes channels to mono, or interleaves them (doubling a mono input) for stereo', () => {
    const mono = createPcmChunker({ channels: 1, chunkBytes: 4 });
    const mixed = mono.push([new Float32Array([0.5, 0.25]), new Float32Array([0, 0.25])]);
    expect(samplesOf(mixed[0]!.pcm)).toEqual([toInt16(0.25), toInt16(0.25)]);

    const stereo = createPcmChunker({ channels: 2, chunkBytes: 8 });
    const both = stereo.push([new Float32Array([0.5, -0.5]), new Float32Array([0.25, -0.25])]);
    expect(samplesOf(both[0]!.pcm)).toEqual([16384, 8192, -16384, -8192]);
    const doubled = stereo.push([new Float32Array([0.5, -0.5])]);
    expect(samplesOf(doubled[0]!.pcm)).toEqual([16384, 16384, -16384, -16384]);
  });

  it('cuts at any byte count, so an odd AUDIO_CHUNK_SIZE still sends whole frames of it', () => {
    const chunker = createPcmChunker({ channels: 1, chunkBytes: 3 });
    const frames = chunker.push([new Float32Array([0.5, 0.5, 0.5])]);
    expect(frames.map((frame) => frame.pcm.byteLength)).toEqual([3, 3]);
    const joined = new Uint8Array(frames.flatMap((frame) => [...new Uint8Array(frame.pcm)]));
    expect(Array.from(new Int16Array(joined.buffer))).toEqual([16384, 16384, 16384]);
  });

  it('measures each frame’s level on the backend’s scale; an empty block gives nothing', () => {
    const chunker = createPcmChunker({ channels: 1, chunkBytes: 3200 });
    expect(chunker.push([])).toEqual([]);
    const tone = new Float32Array(1600).map((_, index) => (index % 2 === 0 ? 0.25 : -0.25));
    const [frame] = chunker.push([tone]);
    expect(frame!.level).toBe(8192);
  });

  it('refuses a frame size it cannot fill', () => {
    expect(() => createPcmChunker({ channels: 1, chunkBytes: 0 })).toThrow(
      'chunkBytes must be a whole number of at least 2, got 0',
    );
  });
});
