// Turns Web Audio's float blocks into what the backend's capture socket takes: little-endian
// 16-bit PCM, mixed to mono or interleaved as stereo, cut into frames of exactly `chunkBytes`
// (AUDIO_CHUNK_SIZE; a sample may straddle two frames when the size is odd, as the backend
// allows). No DOM and no Web Audio here: the capture worklet runs it, the tests run it in Node.

/** The name of the worklet processor that runs a chunker (./capture-worklet.ts). */
export const CAPTURE_PROCESSOR = 'class-assistant-capture';

/** One frame for the socket, and its loudness for the level meter. */
export interface PcmFrame {
  /** `chunkBytes` bytes of s16le PCM (a fresh buffer, free to transfer). */
  pcm: ArrayBuffer;
  /** RMS of the frame's samples, 0–32767 (the backend's `frameEnergy` scale). */
  level: number;
}

/** Options of {@link createPcmChunker}. */
export interface PcmChunkerOptions {
  /** 1: channels mixed to mono; 2: left and right interleaved (a mono input is doubled). */
  channels: 1 | 2;
  /** Bytes per frame (AUDIO_CHUNK_SIZE). */
  chunkBytes: number;
}

/** A float sample (-1…1) as a 16-bit integer, clipped. */
export function toInt16(value: number): number {
  const clipped = Math.max(-1, Math.min(1, value));
  return Math.round(clipped < 0 ? clipped * 32768 : clipped * 32767);
}

/**
 * A chunker; `push` takes one block of planar channels (Web Audio's `inputs[0]`) and returns
 * the frames it completed.
 *
 * @example
 * const chunker = createPcmChunker({ channels: 1, chunkBytes: 3200 });
 * for (const frame of chunker.push(inputs[0])) port.postMessage(frame, [frame.pcm]);
 */
export function createPcmChunker(options: PcmChunkerOptions): {
  push(block: readonly Float32Array[]): PcmFrame[];
} {
  const { channels, chunkBytes } = options;
  if (!Number.isInteger(chunkBytes) || chunkBytes < 2) {
    throw new RangeError(`chunkBytes must be a whole number of at least 2, got ${chunkBytes}`);
  }
  let bytes = new Uint8Array(chunkBytes);
  let filled = 0;
  let squares = 0;
  let count = 0;
  const frames: PcmFrame[] = [];

  const write = (sample: number) => {
    squares += sample * sample;
    count += 1;
    const low = sample & 0xff;
    const high = (sample >> 8) & 0xff;
    for (const byte of [low, high]) {
      bytes[filled++] = byte;
      if (filled === chunkBytes) {
        frames.push({ pcm: bytes.buffer, level: Math.floor(Math.sqrt(squares / count)) });
        bytes = new Uint8Array(chunkBytes);
        filled = 0;
        squares = 0;
        count = 0;
      }
    }
  };

  return {
    push(block) {
      frames.length = 0;
      const inputs = block.filter((channel) => channel.length > 0);
      const first = inputs[0];
      if (!first) return [];
      for (let index = 0; index < first.length; index++) {
        if (channels === 1) {
          let sum = 0;
          for (const channel of inputs) sum += channel[index] ?? 0;
          write(toInt16(sum / inputs.length));
        } else {
          write(toInt16(first[index] ?? 0));
          write(toInt16((inputs[1] ?? first)[index] ?? 0));
        }
      }
      return frames.slice();
    },
  };
}
