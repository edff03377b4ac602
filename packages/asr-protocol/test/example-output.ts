// What each example under examples/ must print when it runs offline. Read by
// test/readme-examples.test.ts (the examples of this folder) and by `pnpm check:consumer` (the
// examples of the installed package, run from a copy outside node_modules).
import type { ExampleExpectations } from '../../../scripts/run-example.ts';

export const EXAMPLE_OUTPUT = {
  'codec.mts': [
    /^request frame: \d+ bytes, starting 11 10 11 00/m,
    'decoded: audio-only-request, last: true, 6400 bytes of audio',
    'response #3 (final): "Good morning, class." after 1400 ms',
    'error frame: 55000031 "server busy" = server busy: reconnect and resend',
    'cut short: ASR_FRAME_TRUNCATED',
    'unknown version: ASR_FRAME_BAD_VERSION',
  ],
  'streaming.mts': [
    /streaming .*lecture\.wav \(4\.4 s\) to ws:\/\/127\.0\.0\.1:\d+\/api\/v3\/sauc\/bigmodel_async/,
    '  … Good morning,',
    '[0-1300 ms] Good morning, class.',
    '[1700-4000 ms] Today we talk about photosynthesis.',
    'final: Good morning, class. Today we talk about photosynthesis.',
    '2 sentence(s)',
  ],
  'test-server.mts': [
    'attempt 1: ASR_CONNECTION_CLOSED (retryable), connecting again',
    'transcript: Good morning, class.',
    'connection 2: 140712 bytes of audio, 0 warning(s)',
  ],
  'utterance-tracker.mts': [
    /partial: Good morning, class\.\npartial: Today\nline: \[0 ms\] Good morning, class\.\n/,
    'line: [1700 ms] Today we talk about photosynthesis.',
    '12 responses, 2 lines, each written once',
  ],
  'vendor-fields.mts': [
    'result: "Good morning, class."',
    'sent: request = {"model_name":"bigmodel","show_utterances":true,"enable_speaker_info":true}',
    'sent: app = {"cluster":"volcengine_streaming_common"}',
    'server: request.enable_speaker_info: unknown-field',
    'refused: ASR_INVALID_OPTIONS: invalid stream options: vendorFields.audio.rate',
  ],
} satisfies ExampleExpectations;
