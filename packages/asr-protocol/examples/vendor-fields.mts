// Sending request fields this package's strict schema does not know yet, through `vendorFields`,
// and what is refused there.
//
//   node examples/vendor-fields.mts
//
// With STREAM_ASR_APP_KEY and STREAM_ASR_ACCESS_KEY set it connects to the real service;
// without them, to this package's test server, which records the request it received.
import { fileURLToPath } from 'node:url';
import {
  connectAsrStream,
  isAsrProtocolError,
  readWavFile,
  splitPcm,
} from '@class-assistant/asr-protocol';
import { createAsrTestServer } from '@class-assistant/asr-protocol/testing';

const online = Boolean(process.env.STREAM_ASR_APP_KEY && process.env.STREAM_ASR_ACCESS_KEY);
const server = online
  ? undefined
  : await createAsrTestServer({
      utterances: [{ text: 'Good morning, class.', start_time: 0, end_time: 1300 }],
    });
const appKey = process.env.STREAM_ASR_APP_KEY ?? 'offline-app';
const accessKey = process.env.STREAM_ASR_ACCESS_KEY ?? 'offline-key';
const url = server?.url ?? process.env.STREAM_ASR_URL;

// #region readme
const stream = await connectAsrStream({
  ...(url ? { url } : {}),
  appKey,
  accessKey,
  resourceId: 'volc.bigasr.sauc.duration',
  request: { audio: { format: 'pcm' }, request: { model_name: 'bigmodel', show_utterances: true } },
  vendorFields: {
    request: { enable_speaker_info: true }, // sent as request.enable_speaker_info
    app: { cluster: 'volcengine_streaming_common' }, // sent as a group of its own
  },
});
// #endregion readme

const wav = await readWavFile(fileURLToPath(new URL('lecture.wav', import.meta.url)));
for (const packet of splitPcm(wav.data)) await stream.sendAudio(packet);
console.log(`result: "${(await stream.finish()).text}"`);

const received = server?.connections[0];
if (received) {
  console.log(`sent: request = ${JSON.stringify(received.request?.request)}`);
  console.log(`sent: app = ${JSON.stringify(received.request?.app)}`);
  // The test server, like the service, takes fields it does not know and lists them.
  for (const warning of received.warnings) console.log(`server: ${warning.path}: ${warning.kind}`);
}

// A field the schema knows is refused in vendorFields: the escape hatch cannot bypass a check.
try {
  await connectAsrStream({
    ...(url ? { url } : {}),
    appKey,
    accessKey,
    resourceId: 'volc.bigasr.sauc.duration',
    vendorFields: { audio: { rate: 8000 } },
  });
} catch (error) {
  if (!isAsrProtocolError(error)) throw error;
  console.log(`refused: ${error.code}: ${error.message}`);
}
await server?.close();
