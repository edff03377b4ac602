// The capture worklet: runs on the browser's audio thread, turns the microphone's float blocks
// into 16-bit PCM frames of AUDIO_CHUNK_SIZE bytes and posts each (transferred, not copied) with
// its level to the page, which sends it on the capture socket. The AudioContext runs at
// AUDIO_SAMPLE_RATE, so the browser has already resampled; the node's channel count has already
// mixed to AUDIO_CHANNELS. Bundled on its own by vite (`?worker&url`).
import { CAPTURE_PROCESSOR, createPcmChunker, type PcmChunkerOptions } from './pcm-chunker.ts';

// The worklet scope's globals (not in TypeScript's DOM library).
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}
declare function registerProcessor(
  name: string,
  processor: new (options: { processorOptions: PcmChunkerOptions }) => AudioWorkletProcessor,
): void;

class CaptureProcessor extends AudioWorkletProcessor {
  readonly #chunker: ReturnType<typeof createPcmChunker>;

  constructor(options: { processorOptions: PcmChunkerOptions }) {
    super();
    this.#chunker = createPcmChunker(options.processorOptions);
  }

  process(inputs: Float32Array[][]): boolean {
    for (const frame of this.#chunker.push(inputs[0] ?? [])) {
      this.port.postMessage(frame, [frame.pcm]);
    }
    return true;
  }
}

registerProcessor(CAPTURE_PROCESSOR, CaptureProcessor);
