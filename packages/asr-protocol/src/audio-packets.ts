// Cutting PCM s16le into packets of N ms and pacing them in real time. The protocol recommends
// packets of 100-200 ms sent every 100-200 ms (200 ms being best for bidirectional streaming).
import { AsrProtocolError } from './errors.ts';

/** Default packet length: 200 ms, the protocol's optimum for bidirectional streaming. */
export const DEFAULT_PACKET_MS = 200;

/** Shape of the PCM being cut: s16le at `sampleRate` Hz with `channels` interleaved channels. */
export interface PcmFormat {
  /** Default 16000 (the only rate the service takes). */
  sampleRate?: number;
  /** Default 1. */
  channels?: number;
}

/** Options of {@link splitPcm} and {@link createPacketizer}. */
export interface PacketOptions extends PcmFormat {
  /** Packet length in ms (default 200). */
  packetMs?: number;
}

function frameBytes(format: PcmFormat): number {
  const channels = format.channels ?? 1;
  if (!Number.isInteger(channels) || channels < 1) {
    throw new AsrProtocolError(
      'ASR_INVALID_OPTIONS',
      `channels: must be a positive integer (got ${channels})`,
    );
  }
  return channels * 2;
}

/** Bytes per millisecond of PCM s16le in `format` (32 for 16 kHz mono). */
export function pcmBytesPerMs(format: PcmFormat = {}): number {
  const sampleRate = format.sampleRate ?? 16000;
  if (!Number.isFinite(sampleRate) || sampleRate <= 0) {
    throw new AsrProtocolError(
      'ASR_INVALID_OPTIONS',
      `sampleRate: must be positive (got ${sampleRate})`,
    );
  }
  return (sampleRate * frameBytes(format)) / 1000;
}

/**
 * Size in bytes of one packet of `packetMs` (whole sample frames): 6400 for 200 ms of 16 kHz mono.
 * Throws `ASR_INVALID_OPTIONS` when `packetMs` is not a positive number giving at least one frame.
 */
export function packetBytes(options: PacketOptions = {}): number {
  const packetMs = options.packetMs ?? DEFAULT_PACKET_MS;
  if (!Number.isFinite(packetMs) || packetMs <= 0) {
    throw new AsrProtocolError(
      'ASR_INVALID_OPTIONS',
      `packetMs: must be a positive number of milliseconds (got ${packetMs})`,
    );
  }
  const frames = Math.round(((options.sampleRate ?? 16000) * packetMs) / 1000);
  if (frames < 1) {
    throw new AsrProtocolError(
      'ASR_INVALID_OPTIONS',
      `packetMs: ${packetMs} ms is shorter than one sample`,
    );
  }
  return frames * frameBytes(options);
}

/**
 * Cuts PCM into packets of `packetMs` (default 200); the last one may be shorter. Packets are
 * views into `pcm` (no copy).
 *
 * @example
 * const packets = splitPcm(wav.data, { packetMs: 200, channels: wav.channels });
 */
export function splitPcm(pcm: Uint8Array, options: PacketOptions = {}): Uint8Array[] {
  const size = packetBytes(options);
  const packets: Uint8Array[] = [];
  for (let offset = 0; offset < pcm.byteLength; offset += size) {
    packets.push(pcm.subarray(offset, Math.min(offset + size, pcm.byteLength)));
  }
  return packets;
}

/** Re-cuts a stream of arbitrary-sized PCM chunks into fixed-size packets; see {@link createPacketizer}. */
export interface Packetizer {
  /** Adds bytes; returns the packets completed by them (possibly none). */
  push(chunk: Uint8Array): Uint8Array[];
  /** Returns what is left (shorter than a packet), or undefined when nothing is. */
  flush(): Uint8Array | undefined;
  /** Bytes held, waiting for a full packet. */
  readonly pending: number;
}

/**
 * A packetizer for live sources (a microphone delivering odd-sized buffers): packets come out
 * exactly `packetMs` long. Returned packets are fresh copies, safe to keep.
 *
 * @example
 * const packetizer = createPacketizer({ packetMs: 200 });
 * mic.on('data', (chunk) => { for (const packet of packetizer.push(chunk)) stream.sendAudio(packet); });
 */
export function createPacketizer(options: PacketOptions = {}): Packetizer {
  const size = packetBytes(options);
  let buffer = new Uint8Array(size);
  let filled = 0;
  return {
    push(chunk) {
      const out: Uint8Array[] = [];
      let offset = 0;
      while (offset < chunk.byteLength) {
        const take = Math.min(size - filled, chunk.byteLength - offset);
        buffer.set(chunk.subarray(offset, offset + take), filled);
        filled += take;
        offset += take;
        if (filled === size) {
          out.push(buffer);
          buffer = new Uint8Array(size);
          filled = 0;
        }
      }
      return out;
    },
    flush() {
      if (filled === 0) return undefined;
      const rest = buffer.slice(0, filled);
      filled = 0;
      return rest;
    },
    get pending() {
      return filled;
    },
  };
}

/** Options of {@link pacePackets}. */
export interface PaceOptions extends PcmFormat {
  /**
   * When true (default), each packet is released when the audio before it has "played": packet k
   * at start + duration of packets 0..k-1, so the stream runs at real time without drift. When
   * false, packets pass through at once (still stopping on abort).
   */
  realtime?: boolean;
  /** Stops pacing: the iteration throws `ASR_ABORTED` (its `cause` is the signal's reason). */
  signal?: AbortSignal;
}

function abortedError(signal: AbortSignal): AsrProtocolError {
  return new AsrProtocolError('ASR_ABORTED', 'aborted', { cause: signal.reason });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedError(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Paces packets of PCM (from an array, a generator or an async source) at real time, by their
 * audio duration.
 *
 * @example
 * for await (const packet of pacePackets(splitPcm(wav.data), { signal })) await stream.sendAudio(packet);
 */
export async function* pacePackets(
  packets: Iterable<Uint8Array> | AsyncIterable<Uint8Array>,
  options: PaceOptions = {},
): AsyncGenerator<Uint8Array, void, undefined> {
  const realtime = options.realtime ?? true;
  const bytesPerMs = pcmBytesPerMs(options);
  const { signal } = options;
  const start = performance.now();
  let audioMs = 0;
  for await (const packet of packets) {
    if (signal?.aborted) throw abortedError(signal);
    if (realtime) {
      const wait = start + audioMs - performance.now();
      if (wait > 0) await sleep(wait, signal);
    }
    audioMs += packet.byteLength / bytesPerMs;
    yield packet;
  }
}
