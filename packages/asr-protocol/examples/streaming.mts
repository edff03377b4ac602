// Streams a WAV file to the streaming speech-recognition service at real-time pace, shows the
// partial text as it grows and prints each sentence once it is final.
//
//   node examples/streaming.mts [FILE.wav]      (default: lecture.wav beside this file)
//
// With STREAM_ASR_APP_KEY and STREAM_ASR_ACCESS_KEY set it uses the real service
// (STREAM_ASR_URL and STREAM_ASR_RESOURCE_ID are optional). Without them it starts this
// package's test server: a WebSocket server on 127.0.0.1 speaking the same protocol, which
// "hears" what the speaker of lecture.wav says.
import { fileURLToPath } from 'node:url';
import {
  connectAsrStream,
  pacePackets,
  readWavFile,
  splitPcm,
} from '@class-assistant/asr-protocol';
import { createAsrTestServer } from '@class-assistant/asr-protocol/testing';

const file = process.argv[2] ?? fileURLToPath(new URL('lecture.wav', import.meta.url));
const wav = await readWavFile(file); // PCM s16le, 16 kHz, mono or stereo

const { STREAM_ASR_APP_KEY, STREAM_ASR_ACCESS_KEY, STREAM_ASR_URL } = process.env;
const online = Boolean(STREAM_ASR_APP_KEY && STREAM_ASR_ACCESS_KEY);
const testServer = online
  ? undefined
  : await createAsrTestServer({
      utterances: [
        { text: 'Good morning, class.', start_time: 0, end_time: 1300 },
        { text: 'Today we talk about photosynthesis.', start_time: 1700, end_time: 4000 },
      ],
    });
const url = testServer?.url ?? STREAM_ASR_URL;

const stream = await connectAsrStream({
  ...(url ? { url } : {}),
  endpoint: 'bigmodel_async',
  appKey: STREAM_ASR_APP_KEY ?? 'offline-app',
  accessKey: STREAM_ASR_ACCESS_KEY ?? 'offline-key',
  resourceId: process.env.STREAM_ASR_RESOURCE_ID ?? 'volc.bigasr.sauc.duration',
  request: {
    audio: { format: 'pcm', rate: 16000, bits: 16, channel: wav.channels },
    request: { model_name: 'bigmodel', show_utterances: true },
  },
});
console.log(`streaming ${file} (${(wav.durationMs / 1000).toFixed(1)} s) to ${stream.url}`);
stream.on('partial-update', ({ text }) => {
  if (text !== '') console.log(`  … ${text}`);
});
stream.on('utterance-complete', ({ utterance }) => {
  console.log(`[${utterance.start_time}-${utterance.end_time} ms] ${utterance.text}`);
});

for await (const packet of pacePackets(splitPcm(wav.data, { channels: wav.channels }), {
  channels: wav.channels,
})) {
  await stream.sendAudio(packet); // resolves once written: a slow network slows the loop
}
const result = await stream.finish(); // resolves on the final response
console.log(`final: ${result.text}`);
console.log(`log id: ${stream.logId ?? 'none'}, ${result.utterances.length} sentence(s)`);
await testServer?.close();
