// This package's test server in a test of your own code: a real WebSocket server on 127.0.0.1
// speaking the protocol, with scripted sentences and faults injected where you want them. Here
// the first connection is dropped after one second of audio; the caller sees a retryable error,
// connects again and resends the recording.
//
//   node examples/test-server.mts
import { fileURLToPath } from 'node:url';
import {
  connectAsrStream,
  isAsrProtocolError,
  readWavFile,
  splitPcm,
} from '@class-assistant/asr-protocol';
import { createAsrTestServer } from '@class-assistant/asr-protocol/testing';

const wav = await readWavFile(fileURLToPath(new URL('lecture.wav', import.meta.url)));

const server = await createAsrTestServer({
  utterances: [{ text: 'Good morning, class.', start_time: 0, end_time: 1300 }],
  faults: [{ type: 'close', at: { afterAudioMs: 1000 }, connection: 1 }], // drop the first connection only
});

async function transcribe(): Promise<string> {
  const stream = await connectAsrStream({
    url: server.url,
    appKey: 'a',
    accessKey: 'b',
    resourceId: 'r',
  });
  for (const packet of splitPcm(wav.data)) await stream.sendAudio(packet);
  return (await stream.finish()).text;
}

let text: string | undefined;
for (let attempt = 1; text === undefined; attempt++) {
  try {
    text = await transcribe();
  } catch (error) {
    if (!isAsrProtocolError(error) || !error.retryable || attempt === 3) throw error;
    console.log(`attempt ${attempt}: ${error.code} (retryable), connecting again`);
  }
}
console.log(`transcript: ${text}`);
// After the exchange: what each connection received, and what the service would have ignored
// in the request (unknown or legacy fields; none here).
for (const [index, connection] of server.connections.entries()) {
  console.log(
    `connection ${index + 1}: ${connection.audio.byteLength} bytes of audio, ${connection.warnings.length} warning(s)`,
  );
}
await server.close();
