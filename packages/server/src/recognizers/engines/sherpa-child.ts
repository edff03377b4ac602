/**
 * The sherpa engine's own process. sherpa-onnx aborts the whole process when ONNX Runtime
 * rejects a graph (a truncated download, a file of another model), and decoding is heavy CPU
 * work: in a process of its own, neither stalls nor kills the server, and a crash ends one
 * class's recognition with an error while the class keeps its lines.
 *
 * Messages (IPC, advanced serialization):
 * - parent -> child: `load` (once), `audio` (16 kHz mono Int16 chunk and its class time),
 *   `finish` (end the utterance being heard), `transcribe` (a whole recording), `close`;
 * - child -> parent: `punctuating` (the recognizer is loaded, the punctuation graph comes next),
 *   `ready` | `failed` (answer to load), `events` (partials and lines), `finished` (after the
 *   last events of a `finish`), `transcribed`.
 *
 * The punctuation graph is loaded after the recognizer and announced first: when sherpa-onnx
 * ends the process on it, the parent knows the punctuation was at fault and starts the engine
 * again without it.
 */
import {
  createSherpaDecoder,
  loadPunctuation,
  type SherpaDecoder,
  type SherpaDecoderConfig,
  type SherpaEvent,
} from './sherpa-decoder.ts';

/** The flag that makes the bin (or a single-file executable) run as the sherpa engine. */
export const SHERPA_CHILD_FLAG = '--class-assistant-sherpa-engine';

/** What the parent sends. */
export type SherpaChildRequest =
  | { type: 'load'; config: SherpaDecoderConfig }
  | { type: 'audio'; samples: Int16Array; atMs?: number }
  | { type: 'finish'; id: number }
  /** A whole recording comes in pieces (`last` on the final one), so no message is huge. */
  | { type: 'transcribe'; id: number; samples: Int16Array; last: boolean }
  | { type: 'close' };

/** What the child answers. */
export type SherpaChildMessage =
  | { type: 'punctuating' }
  /** `punctuation`: why the punctuation graph of the config was not loaded, when it was not. */
  | { type: 'ready'; punctuation?: string }
  | { type: 'failed'; message: string }
  /** Answer to each `audio`: its events (often none) and how many samples it held. */
  | { type: 'events'; events: SherpaEvent[]; heard?: number }
  | { type: 'finished'; id: number }
  | { type: 'transcribed'; id: number; text: string }
  | { type: 'error'; message: string };

/** PCM16 to the [-1, 1] floats sherpa-onnx takes. */
export function toFloat(samples: Int16Array): Float32Array {
  const out = new Float32Array(samples.length);
  for (let index = 0; index < samples.length; index++) out[index] = samples[index]! / 32768;
  return out;
}

/**
 * Runs the child side until the parent closes the channel or says `close`.
 *
 * @example
 * // sherpa-child.ts, the process entry:
 * await runSherpaChild();
 */
export function runSherpaChild(): Promise<void> {
  let decoder: SherpaDecoder | undefined;
  const recordings = new Map<number, Int16Array[]>();
  const send = (message: SherpaChildMessage) => {
    if (process.connected) process.send?.(message);
  };
  return new Promise((resolve) => {
    const done = () => {
      process.off('message', onMessage);
      resolve();
    };
    const onMessage = (request: SherpaChildRequest) => {
      try {
        switch (request.type) {
          case 'load': {
            decoder = createSherpaDecoder(request.config);
            const { punctuationModel, numThreads } = request.config;
            if (punctuationModel === undefined || request.config.model.kind !== 'transducer') {
              send({ type: 'ready' });
              return;
            }
            send({ type: 'punctuating' });
            try {
              decoder.punctuateLines(loadPunctuation(punctuationModel, numThreads));
              send({ type: 'ready' });
            } catch (error) {
              send({ type: 'ready', punctuation: (error as Error)?.message ?? String(error) });
            }
            return;
          }
          case 'audio': {
            const events = decoder?.push(toFloat(request.samples), request.atMs) ?? [];
            send({ type: 'events', events, heard: request.samples.length });
            return;
          }
          case 'finish': {
            const events = decoder?.finish() ?? [];
            if (events.length > 0) send({ type: 'events', events });
            send({ type: 'finished', id: request.id });
            return;
          }
          case 'transcribe': {
            const pieces = recordings.get(request.id) ?? [];
            pieces.push(request.samples);
            if (!request.last) {
              recordings.set(request.id, pieces);
              return;
            }
            recordings.delete(request.id);
            const whole = new Int16Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
            let offset = 0;
            for (const piece of pieces) {
              whole.set(piece, offset);
              offset += piece.length;
            }
            send({
              type: 'transcribed',
              id: request.id,
              text: decoder?.transcribe(toFloat(whole)) ?? '',
            });
            return;
          }
          case 'close':
            done();
            return;
        }
      } catch (error) {
        const message = (error as Error)?.message ?? String(error);
        send(request.type === 'load' ? { type: 'failed', message } : { type: 'error', message });
        if (request.type === 'audio')
          send({ type: 'events', events: [], heard: request.samples.length });
      }
    };
    process.on('message', onMessage);
    process.once('disconnect', done);
  });
}
