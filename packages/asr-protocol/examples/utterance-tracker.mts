// The utterance tracker, for a program that reads the service's responses itself (its own socket,
// a log of responses): with `result_type: 'full'` every response lists every sentence again, and
// the tracker hands each final sentence over once and keeps the one still being spoken apart.
//
//   node examples/utterance-tracker.mts
import {
  asrResponseSchema,
  createUtteranceTracker,
  responseResults,
} from '@class-assistant/asr-protocol';
import { buildAsrResponsePayload, recogniseScript } from '@class-assistant/asr-protocol/testing';

// What the service sends every 400 ms of audio while a lecturer says two sentences: built here by
// the test helpers from a script, in the service's exact shape (result.text, utterances, words).
const script = [
  { text: 'Good morning, class.', start_time: 0, end_time: 1300 },
  { text: 'Today we talk about photosynthesis.', start_time: 1700, end_time: 4000 },
];
const responses = [];
for (let audioMs = 400; audioMs <= 4800; audioMs += 400) {
  const final = audioMs === 4800;
  const utterances = recogniseScript(script, audioMs, { definiteLagMs: 800, final });
  responses.push(buildAsrResponsePayload({ audioMs, utterances }));
}

const tracker = createUtteranceTracker();
for (const payload of responses) {
  const response = asrResponseSchema.parse(payload); // as decoded from a response frame
  for (const result of responseResults(response)) {
    const { completed, partial, partialChanged } = tracker.update(result.utterances ?? []);
    for (const utterance of completed) {
      console.log(`line: [${utterance.start_time} ms] ${utterance.text}`);
    }
    if (partialChanged) console.log(`partial: ${partial?.text ?? '(none)'}`);
  }
}
console.log(`${responses.length} responses, ${tracker.completed.length} lines, each written once`);
