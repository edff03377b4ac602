// The tiny sherpa-onnx test models (test/fixtures/sherpa, made by make-test-models.py) run in the
// real sherpa-onnx-node on real espeak-ng speech and give the texts their README documents:
// SenseVoice says 你好 for any stretch of speech and nothing for silence; with the bundled Silero
// VAD, one text per sentence.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { assetPath } from '../src/assets.ts';
import { loadSherpaOnnx } from '../src/audio/native.ts';
import { LECTURE, type SpeechRecording, speechRecording } from './support/speech.ts';

/** The part of sherpa-onnx-node's API these tests use. */
interface SherpaOnnx {
  OfflineRecognizer: {
    createAsync(config: object): Promise<OfflineRecognizer>;
  };
  Vad: new (config: object, bufferSizeInSeconds: number) => Vad;
}

interface OfflineRecognizer {
  createStream(): { acceptWaveform(wave: { sampleRate: number; samples: Float32Array }): void };
  decodeAsync(stream: unknown): Promise<unknown>;
  getResult(stream: unknown): { text: string; tokens: string[]; lang: string };
}

interface Vad {
  acceptWaveform(samples: Float32Array): void;
  isEmpty(): boolean;
  front(enableExternalBuffer?: boolean): { start: number; samples: Float32Array };
  pop(): void;
  flush(): void;
}

const SAMPLE_RATE = 16000;

function fixture(path: string): string {
  return fileURLToPath(new URL(`./fixtures/sherpa/${path}`, import.meta.url));
}

function floatSamples(samples: Int16Array): Float32Array {
  return Float32Array.from(samples, (sample) => sample / 32768);
}

/** The samples of `recording` between two times, in ms. */
function slice(recording: SpeechRecording, startMs: number, endMs: number): Float32Array {
  const at = (ms: number) => Math.max(0, Math.round((ms * SAMPLE_RATE) / 1000));
  return floatSamples(recording.samples.subarray(at(startMs), at(endMs)));
}

function senseVoice(): Promise<OfflineRecognizer> {
  return loadSherpaOnnx<SherpaOnnx>().OfflineRecognizer.createAsync({
    featConfig: { sampleRate: SAMPLE_RATE, featureDim: 80 },
    modelConfig: {
      senseVoice: {
        model: fixture('sense-voice/model.int8.onnx'),
        language: 'zh',
        useInverseTextNormalization: 1,
      },
      tokens: fixture('sense-voice/tokens.txt'),
      numThreads: 1,
    },
  });
}

async function transcribe(recognizer: OfflineRecognizer, samples: Float32Array) {
  const stream = recognizer.createStream();
  stream.acceptWaveform({ sampleRate: SAMPLE_RATE, samples });
  await recognizer.decodeAsync(stream);
  return recognizer.getResult(stream);
}

describe('the SenseVoice test model', () => {
  it('says 你好 for a spoken sentence and nothing for the room noise around it', async () => {
    const recognizer = await senseVoice();
    const lecture = await speechRecording(LECTURE);
    const sentence = lecture.sentences[1]!;

    const spoken = await transcribe(
      recognizer,
      slice(lecture, sentence.startMs - 200, sentence.endMs + 200),
    );
    expect(spoken.text).toBe('你好');
    expect(spoken.tokens).toEqual(['你', '好']);
    expect(spoken.lang).toBe('<|zh|>');

    // The lead-in before the first sentence: the noise floor only.
    const quiet = await transcribe(
      recognizer,
      slice(lecture, 0, lecture.sentences[0]!.startMs - 100),
    );
    expect(quiet.text).toBe('');
    expect((await transcribe(recognizer, new Float32Array(SAMPLE_RATE))).text).toBe('');
  });

  it('gives one text per sentence behind the bundled Silero VAD', async () => {
    const recognizer = await senseVoice();
    const lecture = await speechRecording(LECTURE);
    const vad = new (loadSherpaOnnx<SherpaOnnx>().Vad)(
      {
        sileroVad: {
          model: assetPath('silero-vad/silero_vad.onnx'),
          threshold: 0.5,
          minSilenceDuration: 0.5,
          minSpeechDuration: 0.25,
          maxSpeechDuration: 20,
          windowSize: 512,
        },
        sampleRate: SAMPLE_RATE,
        numThreads: 1,
      },
      60,
    );
    const samples = floatSamples(lecture.samples);
    const segments: Array<{ startMs: number; endMs: number; text: string }> = [];
    const drain = async () => {
      while (!vad.isEmpty()) {
        const segment = vad.front(false);
        vad.pop();
        const startMs = (segment.start / SAMPLE_RATE) * 1000;
        const endMs = startMs + (segment.samples.length / SAMPLE_RATE) * 1000;
        segments.push({
          startMs,
          endMs,
          text: (await transcribe(recognizer, segment.samples)).text,
        });
      }
    };
    for (let at = 0; at < samples.length; at += 512) {
      vad.acceptWaveform(samples.subarray(at, at + 512));
      await drain();
    }
    vad.flush();
    await drain();

    expect(segments.map((segment) => segment.text)).toEqual(['你好', '你好', '你好']);
    // Each segment covers its sentence.
    lecture.sentences.forEach((sentence, index) => {
      expect(segments[index]!.startMs).toBeLessThanOrEqual(sentence.startMs + 100);
      expect(segments[index]!.endMs).toBeGreaterThanOrEqual(sentence.endMs - 100);
    });
  });
});
