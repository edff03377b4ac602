/**
 * The decoding loops of the sherpa engine, run inside its own process (sherpa-child.ts): audio in,
 * `partial` and `line` events out, times on the class clock.
 *
 * - A streaming transducer decodes as the audio comes: a partial when the text changes, a line
 *   when sherpa-onnx detects the end of an utterance (endpoint rules tuned for a lecture).
 *   With a punctuation graph (`punctuateLines`), each line is punctuated; partials never are.
 * - SenseVoice is not streaming: the Silero VAD cuts the audio into utterances and each one is
 *   recognised whole (language detected, inverse text normalisation on) into one line.
 */
import { loadSherpaOnnx } from '../../audio/native.ts';
import type { SherpaModel } from '../../models/sherpa-model.ts';
import { normalizeRecognizedText } from './offline-engine.ts';
import type { SherpaModelingUnit } from './sherpa-hotwords.ts';

const SAMPLE_RATE = 16000;
/** Silence fed after the last audio so a streaming model emits its last words. */
const TAIL_PADDING_SECONDS = 0.8;
/** Silero VAD v4's window (32 ms at 16 kHz). */
const VAD_WINDOW = 512;

/** What the decoding loop reports. */
export type SherpaEvent =
  | { type: 'partial'; text: string }
  | { type: 'line'; text: string; startMs: number; endMs: number };

/** How the child loads a model. */
export interface SherpaDecoderConfig {
  model: SherpaModel;
  /** Cores sherpa-onnx may use (LOCAL_ASR_THREADS). */
  numThreads: number;
  /** The class's hot-words file (streaming transducers only). */
  hotwordsFile?: string;
  /** Boost of each hot-word token. */
  hotwordsScore?: number;
  /** Silero VAD graph (SenseVoice only). */
  vadModel: string;
  /**
   * A CT-Transformer punctuation graph (streaming transducers only: SenseVoice punctuates
   * itself). Loaded after the recognizer; each definite line is punctuated, partials are not.
   */
  punctuationModel?: string;
}

/** Adds punctuation to one definite line. */
export type Punctuate = (text: string) => string;

/** A loaded decoding loop. */
export interface SherpaDecoder {
  /** Takes a chunk heard at `atMs` on the class clock; a jump in that clock ends the utterance. */
  push(samples: Float32Array, atMs?: number): SherpaEvent[];
  /** Ends the utterance being heard (stop, or the end of a file): its line, if any. */
  finish(): SherpaEvent[];
  /** Recognises a whole recording on its own (the decoder's class state is untouched). */
  transcribe(samples: Float32Array): string;
  /** From now on, passes each definite line through `punctuate` (partials stay as they are). */
  punctuateLines(punctuate: Punctuate): void;
}

interface Waveform {
  samples: Float32Array;
  sampleRate: number;
}
interface OnlineStream {
  acceptWaveform(wave: Waveform): void;
  inputFinished(): void;
}
interface OnlineResult {
  text: string;
  timestamps?: number[];
  start_time?: number;
}
interface OnlineRecognizer {
  createStream(): OnlineStream;
  isReady(stream: OnlineStream): boolean;
  decode(stream: OnlineStream): void;
  isEndpoint(stream: OnlineStream): boolean;
  reset(stream: OnlineStream): void;
  getResult(stream: OnlineStream): OnlineResult;
}
interface OfflineStream {
  acceptWaveform(wave: Waveform): void;
}
interface OfflineRecognizer {
  createStream(): OfflineStream;
  decode(stream: OfflineStream): void;
  getResult(stream: OfflineStream): { text: string };
}
interface OfflinePunctuation {
  addPunct(text: string): string;
}
interface Vad {
  acceptWaveform(samples: Float32Array): void;
  isEmpty(): boolean;
  front(enableExternalBuffer?: boolean): { start: number; samples: Float32Array };
  pop(): void;
  flush(): void;
  reset(): void;
}
/** The part of sherpa-onnx-node this engine uses. */
interface SherpaOnnx {
  OnlineRecognizer: new (config: object) => OnlineRecognizer;
  OfflineRecognizer: new (config: object) => OfflineRecognizer;
  Vad: new (config: object, bufferSizeInSeconds: number) => Vad;
  OfflinePunctuation: new (config: object) => OfflinePunctuation;
}

const FEATURES = { sampleRate: SAMPLE_RATE, featureDim: 80 };

/**
 * Endpoint rules for a lecture: a line ends after 2.4 s of silence with nothing said (rule 1),
 * after 1.0 s of silence once something was said (rule 2: a teacher's pause between sentences),
 * or at 20 s of speech without such a pause (rule 3).
 */
const LECTURE_ENDPOINT = {
  rule1MinTrailingSilence: 2.4,
  rule2MinTrailingSilence: 1.0,
  rule3MinUtteranceLength: 20,
};

/** The modelling unit sherpa-onnx should cut hot words with. */
export function modelingUnitOf(model: SherpaModel): SherpaModelingUnit {
  return model.kind === 'transducer' && model.bpeVocab ? 'cjkchar+bpe' : 'cjkchar';
}

const clean = (text: string) => normalizeRecognizedText(text);

function createTransducerDecoder(
  sherpa: SherpaOnnx,
  config: SherpaDecoderConfig,
  model: Extract<SherpaModel, { kind: 'transducer' }>,
): SherpaDecoder {
  const hot = config.hotwordsFile !== undefined;
  const recognizer = new sherpa.OnlineRecognizer({
    featConfig: FEATURES,
    modelConfig: {
      transducer: { encoder: model.encoder, decoder: model.decoder, joiner: model.joiner },
      tokens: model.tokens,
      numThreads: config.numThreads,
      provider: 'cpu',
      debug: 0,
      modelingUnit: modelingUnitOf(model),
      ...(model.bpeVocab ? { bpeVocab: model.bpeVocab } : {}),
    },
    // Biasing needs the beam: greedy search has no hypotheses to boost.
    decodingMethod: hot ? 'modified_beam_search' : 'greedy_search',
    maxActivePaths: 4,
    enableEndpoint: 1,
    ...LECTURE_ENDPOINT,
    ...(hot ? { hotwordsFile: config.hotwordsFile, hotwordsScore: config.hotwordsScore ?? 2 } : {}),
  });

  /** A stream and where it started on the class clock. */
  const open = (atMs: number) => ({
    stream: recognizer.createStream(),
    baseMs: atMs,
    utteranceMs: atMs,
    partial: '',
  });
  let current = open(0);
  let clockMs = 0;
  let punctuate: Punctuate = (text) => text;

  const line = (result: OnlineResult, endMs: number): SherpaEvent | undefined => {
    const text = clean(result.text);
    if (text === '') return undefined;
    const stamps = result.timestamps ?? [];
    const first = stamps[0];
    const last = stamps.at(-1);
    const segmentMs = current.baseMs + (result.start_time ?? 0) * 1000;
    const startMs =
      first !== undefined
        ? Math.max(current.utteranceMs, segmentMs + first * 1000)
        : current.utteranceMs;
    const spokenEnd = last !== undefined ? segmentMs + last * 1000 + 300 : endMs;
    return {
      type: 'line',
      text: punctuate(text),
      startMs: Math.round(startMs),
      endMs: Math.round(Math.max(startMs, Math.min(endMs, spokenEnd))),
    };
  };

  const decodeReady = (target: typeof current) => {
    while (recognizer.isReady(target.stream)) recognizer.decode(target.stream);
  };

  /** Flushes the stream's last words and opens a fresh one at `nextMs`. */
  const finishStream = (nextMs: number): SherpaEvent[] => {
    const tail = new Float32Array(Math.round(TAIL_PADDING_SECONDS * SAMPLE_RATE));
    current.stream.acceptWaveform({ samples: tail, sampleRate: SAMPLE_RATE });
    current.stream.inputFinished();
    decodeReady(current);
    const event = line(recognizer.getResult(current.stream), clockMs);
    const hadPartial = current.partial !== '';
    current = open(nextMs);
    clockMs = nextMs;
    // The partial text became the line (or nothing): the live line is empty again.
    return [
      ...(event ? [event] : []),
      ...(hadPartial ? [{ type: 'partial', text: '' } as const] : []),
    ];
  };

  const decodeAll = (target: typeof current, samples: Float32Array, events: SherpaEvent[]) => {
    for (let offset = 0; offset < samples.length; offset += SAMPLE_RATE) {
      const piece = samples.subarray(offset, Math.min(samples.length, offset + SAMPLE_RATE));
      target.stream.acceptWaveform({ samples: piece, sampleRate: SAMPLE_RATE });
      decodeReady(target);
      if (recognizer.isEndpoint(target.stream)) {
        const text = clean(recognizer.getResult(target.stream).text);
        if (text !== '') events.push({ type: 'line', text: punctuate(text), startMs: 0, endMs: 0 });
        recognizer.reset(target.stream);
      }
    }
  };

  return {
    push(samples, atMs) {
      const events: SherpaEvent[] = [];
      if (atMs !== undefined && atMs > clockMs + 1) events.push(...finishStream(atMs));
      current.stream.acceptWaveform({ samples, sampleRate: SAMPLE_RATE });
      clockMs += (samples.length / SAMPLE_RATE) * 1000;
      decodeReady(current);
      const result = recognizer.getResult(current.stream);
      if (recognizer.isEndpoint(current.stream)) {
        const event = line(result, clockMs);
        if (event) events.push(event);
        recognizer.reset(current.stream);
        current.utteranceMs = clockMs;
        if (current.partial !== '') events.push({ type: 'partial', text: '' });
        current.partial = '';
        return events;
      }
      const text = clean(result.text);
      if (text !== current.partial) {
        current.partial = text;
        events.push({ type: 'partial', text });
      }
      return events;
    },
    finish: () => finishStream(clockMs),
    transcribe(samples) {
      const own = open(0);
      const events: SherpaEvent[] = [];
      decodeAll(own, samples, events);
      const tail = new Float32Array(Math.round(TAIL_PADDING_SECONDS * SAMPLE_RATE));
      own.stream.acceptWaveform({ samples: tail, sampleRate: SAMPLE_RATE });
      own.stream.inputFinished();
      decodeReady(own);
      const last = clean(recognizer.getResult(own.stream).text);
      const texts = events.map((event) => (event.type === 'line' ? event.text : ''));
      if (last !== '') texts.push(punctuate(last));
      return joinLines(texts);
    },
    punctuateLines(next) {
      punctuate = next;
    },
  };
}

/** Joins recognised lines into one text: no space between Chinese, one between other words. */
function joinLines(texts: readonly string[]): string {
  return normalizeRecognizedText(texts.filter((text) => text !== '').join(' '));
}

function createSenseVoiceDecoder(
  sherpa: SherpaOnnx,
  config: SherpaDecoderConfig,
  model: Extract<SherpaModel, { kind: 'sense-voice' }>,
): SherpaDecoder {
  const recognizer = new sherpa.OfflineRecognizer({
    featConfig: FEATURES,
    modelConfig: {
      senseVoice: { model: model.model, language: 'auto', useInverseTextNormalization: 1 },
      tokens: model.tokens,
      numThreads: config.numThreads,
      provider: 'cpu',
      debug: 0,
    },
  });
  const newVad = () =>
    new sherpa.Vad(
      {
        sileroVad: {
          model: config.vadModel,
          threshold: 0.5,
          // A teacher's pause between sentences ends the utterance; a breath inside one does not.
          minSilenceDuration: 0.5,
          minSpeechDuration: 0.25,
          windowSize: VAD_WINDOW,
          // SenseVoice is trained on utterances up to about 30 s.
          maxSpeechDuration: 20,
        },
        sampleRate: SAMPLE_RATE,
        numThreads: 1,
        provider: 'cpu',
        debug: 0,
      },
      60,
    );
  const recognise = (samples: Float32Array) => {
    const stream = recognizer.createStream();
    stream.acceptWaveform({ samples, sampleRate: SAMPLE_RATE });
    recognizer.decode(stream);
    return clean(recognizer.getResult(stream).text);
  };
  /** Feeds audio window by window (the VAD judges each window; a huge chunk blurs pauses). */
  const feed = (vad: Vad, samples: Float32Array, onSegment: () => void) => {
    for (let offset = 0; offset < samples.length; offset += VAD_WINDOW) {
      vad.acceptWaveform(samples.slice(offset, Math.min(samples.length, offset + VAD_WINDOW)));
      if (!vad.isEmpty()) onSegment();
    }
  };

  const vad = newVad();
  /** Class time of the VAD's sample 0 (moves when the class clock jumps). */
  let offsetMs = 0;
  let fed = 0;
  const drain = (): SherpaEvent[] => {
    const events: SherpaEvent[] = [];
    while (!vad.isEmpty()) {
      const segment = vad.front(false);
      vad.pop();
      const text = recognise(segment.samples);
      if (text === '') continue;
      const startMs = offsetMs + (segment.start / SAMPLE_RATE) * 1000;
      events.push({
        type: 'line',
        text,
        startMs: Math.round(startMs),
        endMs: Math.round(startMs + (segment.samples.length / SAMPLE_RATE) * 1000),
      });
    }
    return events;
  };
  const finish = () => {
    vad.flush();
    const events = drain();
    vad.reset();
    offsetMs += (fed / SAMPLE_RATE) * 1000;
    fed = 0;
    return events;
  };
  return {
    push(samples, atMs) {
      const events: SherpaEvent[] = [];
      const clockMs = offsetMs + (fed / SAMPLE_RATE) * 1000;
      if (atMs !== undefined && atMs > clockMs + 1) {
        events.push(...finish());
        offsetMs = atMs;
      }
      feed(vad, samples, () => events.push(...drain()));
      fed += samples.length;
      return events;
    },
    finish,
    transcribe(samples) {
      const own = newVad();
      const texts: string[] = [];
      const take = () => {
        while (!own.isEmpty()) {
          texts.push(recognise(own.front(false).samples));
          own.pop();
        }
      };
      feed(own, samples, take);
      own.flush();
      take();
      return joinLines(texts);
    },
    // SenseVoice's lines come punctuated by the model itself.
    punctuateLines() {},
  };
}

/**
 * Loads the model of `config` (seconds for a large one).
 *
 * @throws Error when sherpa-onnx refuses the configuration (a missing file, a wrong graph).
 */
export function createSherpaDecoder(config: SherpaDecoderConfig): SherpaDecoder {
  const sherpa = loadSherpaOnnx<SherpaOnnx>();
  return config.model.kind === 'transducer'
    ? createTransducerDecoder(sherpa, config, config.model)
    : createSenseVoiceDecoder(sherpa, config, config.model);
}

/**
 * Loads a CT-Transformer punctuation graph (sherpa-onnx's `OfflinePunctuation`): a function that
 * punctuates one line. sherpa-onnx ends the whole process on a graph it cannot read (see
 * sherpa-child.ts for how the parent tells that crash apart).
 *
 * @throws Error when sherpa-onnx refuses the configuration (a missing file).
 */
export function loadPunctuation(model: string, numThreads: number): Punctuate {
  const sherpa = loadSherpaOnnx<SherpaOnnx>();
  const punctuation = new sherpa.OfflinePunctuation({
    model: { ctTransformer: model, numThreads, debug: 0 },
  });
  return (text) => {
    if (text === '') return text;
    try {
      return clean(punctuation.addPunct(text));
    } catch {
      // A line is never lost to its punctuation: it is written as it was recognised.
      return text;
    }
  };
}
