// The binary frame codec on its own, for a program that carries the frames over its own socket:
// encode what a client sends, decode what a server answers, and see how bad bytes are refused.
//
//   node examples/codec.mts
import {
  type AsrFrame,
  asrResponseSchema,
  decodeFrame,
  describeServiceCode,
  encodeFrame,
  FRAME_FLAGS,
  flagsAreLast,
  isAsrProtocolError,
  isRetryableServiceCode,
  type JsonObject,
  validateAsrRequest,
} from '@class-assistant/asr-protocol';

const hex = (bytes: Uint8Array, count = 8) =>
  [...bytes.subarray(0, count)].map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
const show = (label: string, bytes: Uint8Array) =>
  console.log(`${label}: ${bytes.byteLength} bytes, starting ${hex(bytes)}`);

// 1. What a client sends: the request (JSON, gzip), then audio; the last packet is flagged.
const request = validateAsrRequest({
  audio: { format: 'pcm', rate: 16000, bits: 16, channel: 1 },
  request: { model_name: 'bigmodel', show_utterances: true, end_window_size: 800 },
});
show(
  'request frame',
  encodeFrame({
    type: 'full-client-request',
    flags: FRAME_FLAGS.NONE,
    serialization: 'json',
    compression: 'gzip',
    payload: request as JsonObject, // a validated request is plain JSON
  }),
);
const silence = new Uint8Array(6400); // 200 ms of 16 kHz mono s16le
const lastPacket = encodeFrame({
  type: 'audio-only-request',
  flags: FRAME_FLAGS.LAST,
  serialization: 'none',
  compression: 'gzip',
  payload: silence,
});
show('last audio frame', lastPacket);
const audio = decodeFrame(lastPacket);
if (audio.type === 'audio-only-request') {
  const last = flagsAreLast(audio.flags);
  console.log(
    `  decoded: ${audio.type}, last: ${last}, ${audio.payload.byteLength} bytes of audio`,
  );
}

// 2. What a server answers. The final result has flags 0b0011 and a positive sequence: the
// decoder reads the sequence because the flags say one follows, never by its sign.
const answers: AsrFrame[] = [
  {
    type: 'full-server-response',
    flags: FRAME_FLAGS.SEQUENCE,
    sequence: 2,
    serialization: 'json',
    compression: 'gzip',
    payload: { result: { text: 'Good morning', utterances: [] }, audio_info: { duration: 800 } },
  },
  {
    type: 'full-server-response',
    flags: FRAME_FLAGS.LAST_WITH_SEQUENCE,
    sequence: 3,
    serialization: 'json',
    compression: 'gzip',
    payload: { result: { text: 'Good morning, class.' }, audio_info: { duration: 1400 } },
  },
  {
    type: 'error',
    flags: FRAME_FLAGS.NONE,
    serialization: 'json',
    compression: 'none',
    payload: { code: 55000031, message: 'server busy' },
  },
];
for (const bytes of answers.map(encodeFrame)) {
  const frame = decodeFrame(bytes);
  if (frame.type === 'full-server-response' && frame.serialization === 'json') {
    const response = asrResponseSchema.parse(frame.payload);
    const result = Array.isArray(response.result) ? response.result[0] : response.result;
    console.log(
      `response #${frame.sequence}${flagsAreLast(frame.flags) ? ' (final)' : ''}: "${result?.text}" after ${response.audio_info?.duration} ms`,
    );
  } else if (frame.type === 'error') {
    const { code, message } = frame.payload;
    const retry = isRetryableServiceCode(code) ? 'reconnect and resend' : 'do not retry';
    console.log(`error frame: ${code} "${message}" = ${describeServiceCode(code)}: ${retry}`);
  }
}

// 3. Bad bytes: every input decodes or throws the package's own error, with a stable code.
const final = encodeFrame(answers[1]!);
for (const [label, bytes] of [
  ['cut short', final.subarray(0, final.byteLength - 5)],
  ['unknown version', Uint8Array.of(0x21, ...final.subarray(1))],
] as const) {
  try {
    decodeFrame(bytes);
  } catch (error) {
    if (!isAsrProtocolError(error)) throw error;
    console.log(`${label}: ${error.code}: ${error.message}`);
  }
}
