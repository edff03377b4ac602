// Worker entry: encodes the audio a class hears to Opus and writes it to the class folder, off
// the main thread (the event loop only posts the 16 kHz samples). One class per worker.
import { parentPort } from 'node:worker_threads';
import type { KeeperReply, KeeperRequest } from './recording/keeper-messages.ts';
import { type OggOpusWriter, openOggOpusWriter } from './recording/ogg-opus-writer.ts';
import {
  createOpusEncoder,
  OPUS_FRAME_SAMPLES_48K,
  OPUS_INPUT_RATE,
  OPUS_PRE_SKIP,
} from './recording/opus-encoder.ts';

const port = parentPort;
if (port) {
  let writer: OggOpusWriter | undefined;
  const encoder = createOpusEncoder();
  const reply = (message: KeeperReply) => port.postMessage(message);
  let lastReportedBytes = -1;
  const report = () => {
    if (!writer || writer.bytes() === lastReportedBytes) return;
    lastReportedBytes = writer.bytes();
    reply({ type: 'written', bytes: writer.bytes(), durationMs: writer.durationMs() });
  };
  // Messages are handled one at a time, in order.
  let work = Promise.resolve();
  port.on('message', (request: KeeperRequest) => {
    work = work.then(async () => {
      try {
        switch (request.type) {
          case 'open':
            writer = await openOggOpusWriter(request.path, {
              preSkip: OPUS_PRE_SKIP,
              inputSampleRate: OPUS_INPUT_RATE,
              ...(request.pageMs ? { pageMs: request.pageMs } : {}),
              ...(request.syncMs ? { syncMs: request.syncMs } : {}),
            });
            reply({ type: 'ready', resumedMs: writer.resumedMs, bytes: writer.bytes() });
            return;
          case 'audio': {
            if (!writer) return;
            for (const packet of encoder.encode(request.samples)) {
              await writer.add(packet, OPUS_FRAME_SAMPLES_48K);
            }
            report();
            return;
          }
          case 'close': {
            if (writer) {
              for (const packet of encoder.end()) await writer.add(packet, OPUS_FRAME_SAMPLES_48K);
              await writer.close();
            }
            encoder.close();
            reply({
              type: 'closed',
              bytes: writer?.bytes() ?? 0,
              durationMs: writer?.durationMs() ?? 0,
            });
            port.close();
            return;
          }
        }
      } catch (error) {
        reply({ type: 'failed', message: (error as Error)?.message ?? String(error) });
      }
    });
  });
}
