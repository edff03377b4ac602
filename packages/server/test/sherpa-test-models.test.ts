// The tiny sherpa-onnx test models (test/fixtures/sherpa, made by make-test-models.py) run in the
// real sherpa-onnx-node on real espeak-ng speech and give the texts their README documents:
// SenseVoice says 你好 for any stretch of speech and nothing for silence (with the bundled Silero
// VAD, one text per sentence); the streaming transducer's partial text grows 你 -> 你好 during
// each sentence, an endpoint follows each pause, and the hot word 链表 turns beam search's 你好
// into 链表.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  OnlineRecognizer: new (config: object) => OnlineRecognizer;
  OfflinePunctuation: new (config: object) => { addPunct(text: string): string };
}

interface OnlineRecognizer {
  createStream(): OnlineStream;
  isReady(stream: OnlineStream): boolean;
  decode(stream: OnlineStream): void;
  isEndpoint(stream: OnlineStream): boolean;
  reset(stream: OnlineStream): void;
  getResult(stream: OnlineStream): { text: string; tokens: string[] };
}

interface OnlineStream {
  acceptWaveform(wave: { sampleRate: number; samples: Float32Array }): void;
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

const TRANSDUCER = 'streaming-zipformer';

/** A streaming recognizer of the test transducer; `modelConfig` adds to the model's settings. */
function streamingRecognizer(
  options: { modelConfig?: object; [setting: string]: unknown } = {},
): OnlineRecognizer {
  const { modelConfig, ...settings } = options;
  return new (loadSherpaOnnx<SherpaOnnx>().OnlineRecognizer)({
    featConfig: { sampleRate: SAMPLE_RATE, featureDim: 80 },
    modelConfig: {
      transducer: {
        encoder: fixture(`${TRANSDUCER}/encoder-epoch-99-avg-1.int8.onnx`),
        decoder: fixture(`${TRANSDUCER}/decoder-epoch-99-avg-1.onnx`),
        joiner: fixture(`${TRANSDUCER}/joiner-epoch-99-avg-1.int8.onnx`),
      },
      tokens: fixture(`${TRANSDUCER}/tokens.txt`),
      numThreads: 1,
      ...modelConfig,
    },
    decodingMethod: 'greedy_search',
    enableEndpoint: 1,
    rule1MinTrailingSilence: 2.4,
    rule2MinTrailingSilence: 0.8,
    rule3MinUtteranceLength: 20,
    ...settings,
  });
}

interface Utterance {
  /** Distinct partial texts, in order. */
  partials: string[];
  text: string;
  /** Where the endpoint fired, in ms of audio fed. */
  endpointMs: number;
}

/** Feeds the recording in 100 ms chunks, as a microphone would, and splits it at endpoints. */
function stream(recognizer: OnlineRecognizer, recording: SpeechRecording): Utterance[] {
  const samples = floatSamples(recording.samples);
  const stream = recognizer.createStream();
  const utterances: Utterance[] = [];
  let partials: string[] = [];
  const chunk = SAMPLE_RATE / 10;
  for (let at = 0; at < samples.length; at += chunk) {
    stream.acceptWaveform({ sampleRate: SAMPLE_RATE, samples: samples.subarray(at, at + chunk) });
    while (recognizer.isReady(stream)) recognizer.decode(stream);
    const { text } = recognizer.getResult(stream);
    if (text !== '' && text !== partials.at(-1)) partials.push(text);
    if (recognizer.isEndpoint(stream)) {
      const fedMs = (Math.min(at + chunk, samples.length) / SAMPLE_RATE) * 1000;
      utterances.push({ partials, text, endpointMs: fedMs });
      partials = [];
      recognizer.reset(stream);
    }
  }
  return utterances;
}

describe('the streaming transducer test model', () => {
  it('grows 你 -> 你好 during each sentence and ends each utterance after its pause', async () => {
    const lecture = await speechRecording(LECTURE);
    const utterances = stream(streamingRecognizer(), lecture);

    expect(utterances.map((utterance) => utterance.text)).toEqual(['你好', '你好', '你好']);
    lecture.sentences.forEach((sentence, index) => {
      const utterance = utterances[index]!;
      expect(utterance.partials).toEqual(['你', '你好']);
      // The endpoint comes in the pause after the sentence (never inside it), before the next.
      expect(utterance.endpointMs).toBeGreaterThan(sentence.endMs);
      expect(utterance.endpointMs).toBeLessThan(lecture.sentences[index + 1]?.startMs ?? Infinity);
    });
  });

  it('says 链表 instead of 你好 when 链表 is a hot word of modified beam search', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'sherpa-hotwords-'));
    try {
      const hotwords = join(folder, 'hotwords.txt');
      await writeFile(hotwords, '链表\n');
      const lecture = await speechRecording(LECTURE);
      const beam = { decodingMethod: 'modified_beam_search', maxActivePaths: 4 };

      const plain = stream(streamingRecognizer(beam), lecture);
      expect(plain.map((utterance) => utterance.text)).toEqual(['你好', '你好', '你好']);

      for (const modelingUnit of [
        { modelingUnit: 'cjkchar' },
        { modelingUnit: 'cjkchar+bpe', bpeVocab: fixture(`${TRANSDUCER}/bpe.vocab`) },
      ]) {
        const recognizer = streamingRecognizer({
          ...beam,
          hotwordsFile: hotwords,
          hotwordsScore: 1.5,
          modelConfig: modelingUnit,
        });
        const boosted = stream(recognizer, lecture);
        expect(boosted.map((utterance) => utterance.text)).toEqual(['链表', '链表', '链表']);
        expect(boosted[0]!.partials).toEqual(['链', '链表']);
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('the punctuation test model', () => {
  it('puts "，" after the first token and sherpa-onnx ends the text with "。"', () => {
    const sherpa = loadSherpaOnnx<SherpaOnnx>();
    const punctuation = new sherpa.OfflinePunctuation({
      model: { ctTransformer: fixture('punct/model.onnx'), numThreads: 1, debug: 0 },
    });
    expect(punctuation.addPunct('你好')).toBe('你，好。');
    expect(punctuation.addPunct('链表的插入')).toBe('链，表的插入。');
    expect(punctuation.addPunct('你')).toBe('你。');
    expect(punctuation.addPunct('hello world')).toBe('hello，world。');
  });
});
