// The decoding loops on the class clock, in this process (the engine's process runs the same
// code): real sherpa-onnx, the test models of test/fixtures/sherpa, espeak-ng speech.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { speechRecording } from '../../../test/support/speech.ts';
import { assetPath } from '../../assets.ts';
import { readSherpaModel } from '../../models/sherpa-model.ts';
import { toFloat } from './sherpa-child.ts';
import { createSherpaDecoder, type SherpaEvent } from './sherpa-decoder.ts';

const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'sherpa');
const KINDS = [
  ['SenseVoice', join(FIXTURES, 'sense-voice')],
  ['the streaming transducer', join(FIXTURES, 'streaming-zipformer')],
] as const;

/** Plays `samples` in 100 ms chunks from `fromMs` on the class clock; the events. */
function play(
  decoder: ReturnType<typeof createSherpaDecoder>,
  samples: Int16Array,
  fromMs: number,
): SherpaEvent[] {
  const events: SherpaEvent[] = [];
  for (let offset = 0; offset < samples.length; offset += 1600) {
    const chunk = samples.subarray(offset, Math.min(samples.length, offset + 1600));
    events.push(...decoder.push(toFloat(chunk), fromMs + offset / 16));
  }
  return events;
}

const lines = (events: SherpaEvent[]) =>
  events.filter((event): event is Extract<SherpaEvent, { type: 'line' }> => event.type === 'line');

describe.each(KINDS)('the %s decoding loop', (_name, folder) => {
  it('ends the utterance at a jump of the class clock (a pause) and keeps true times after it', async () => {
    const lecture = await speechRecording([
      { text: 'good morning everyone', pauseAfterMs: 2500 },
      { text: 'today we will talk about binary search trees', pauseAfterMs: 1500 },
    ]);
    const decoder = createSherpaDecoder({
      model: readSherpaModel(folder),
      numThreads: 1,
      vadModel: assetPath('silero-vad/silero_vad.onnx'),
    });
    // The class is paused in the middle of the second sentence for 60 s.
    const second = lecture.sentences[1]!;
    const cut = Math.round(((second.startMs + 1000) * 16000) / 1000);
    const before = play(decoder, lecture.samples.subarray(0, cut), 0);
    const after = play(decoder, lecture.samples.subarray(cut), cut / 16 + 60_000);
    const ended = [...after, ...decoder.finish()];
    const all = lines([...before, ...ended]);
    expect(all.map((line) => line.text)).toEqual(['你好', '你好', '你好']);
    // The line cut by the pause ends before it; the rest of the sentence is heard 60 s later.
    expect(all[1]!.startMs).toBeGreaterThan(second.startMs - 400);
    expect(all[1]!.endMs).toBeLessThanOrEqual(cut / 16 + 10);
    expect(all[2]!.startMs).toBeGreaterThan(cut / 16 + 60_000 - 10);
    expect(all[2]!.startMs).toBeLessThan(second.endMs + 60_000);
  });
});
