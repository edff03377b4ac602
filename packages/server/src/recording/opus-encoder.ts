/**
 * Speech to Opus packets: 16 kHz mono 16-bit samples in, one packet per 20 ms out. The encoder
 * is libopus compiled to WebAssembly (opusscript), so it installs from the npm registry alone on
 * every platform; it runs in the audio keeper's worker thread, never on the event loop.
 */
import OpusScript from 'opusscript';

/** Samples per second the encoder takes (the recognizer's rate). */
export const OPUS_INPUT_RATE = 16_000;
/** One packet per 20 ms: 320 samples at 16 kHz, 960 at Opus's 48 kHz clock. */
const OPUS_FRAME_SAMPLES = 320;
export const OPUS_FRAME_SAMPLES_48K = 960;
/**
 * libopus's lookahead (2.5 ms + 4 ms of delay compensation) in 48 kHz samples: OpusHead's
 * pre-skip, the samples a player drops at the start.
 */
export const OPUS_PRE_SKIP = 312;

const OPUS_SET_COMPLEXITY = 4010;
const OPUS_SET_SIGNAL = 4024;
const OPUS_SIGNAL_VOICE = 3001;

/** Options of {@link createOpusEncoder}. */
export interface OpusEncoderOptions {
  /** Target bit rate (default 24 000 bit/s: about 11 MB an hour). */
  bitrate?: number;
  /** 0–10; higher is better and costs more CPU (default 5). */
  complexity?: number;
}

/** Encodes speech frame by frame; keeps the samples of an unfinished frame for the next call. */
export interface OpusEncoder {
  /** The packets of every whole 20 ms frame `samples` completes. */
  encode(samples: Int16Array): Uint8Array[];
  /** The unfinished frame padded with silence (no packet when there is none). */
  end(): Uint8Array[];
  close(): void;
}

/**
 * Creates an {@link OpusEncoder} (VOIP application: SILK for speech).
 *
 * @example
 * const encoder = createOpusEncoder();
 * for (const packet of encoder.encode(chunk.samples)) await writer.add(packet, 960);
 */
export function createOpusEncoder(options: OpusEncoderOptions = {}): OpusEncoder {
  const opus = new OpusScript(OPUS_INPUT_RATE, 1, OpusScript.Application.VOIP);
  opus.setBitrate(options.bitrate ?? 24_000);
  opus.encoderCTL(OPUS_SET_COMPLEXITY, options.complexity ?? 5);
  opus.encoderCTL(OPUS_SET_SIGNAL, OPUS_SIGNAL_VOICE);
  const frame = new Int16Array(OPUS_FRAME_SAMPLES);
  // The encoder reads the frame's bytes (16-bit little-endian samples).
  const frameBytes = Buffer.from(frame.buffer);
  let filled = 0;
  const packetOf = () => new Uint8Array(opus.encode(frameBytes, OPUS_FRAME_SAMPLES));
  return {
    encode(samples) {
      const packets: Uint8Array[] = [];
      let at = 0;
      while (at < samples.length) {
        const take = Math.min(OPUS_FRAME_SAMPLES - filled, samples.length - at);
        frame.set(samples.subarray(at, at + take), filled);
        filled += take;
        at += take;
        if (filled === OPUS_FRAME_SAMPLES) {
          packets.push(packetOf());
          filled = 0;
        }
      }
      return packets;
    },
    end() {
      if (filled === 0) return [];
      frame.fill(0, filled);
      filled = 0;
      return [packetOf()];
    },
    close: () => opus.delete(),
  };
}
