/**
 * The energy voice-activity detector of Python SpeechRecognition (`Recognizer.listen` and
 * `Recognizer.adjust_for_ambient_noise`), as a push-based state machine: audio goes in as it is
 * captured, phrases come out. Decisions, thresholds and trimming match the library buffer by
 * buffer (test/vad/reference.py states the algorithm; its vectors check this port):
 *
 * - a buffer is `bufferSamples` samples; its energy is the floor of its RMS (audioop.rms);
 * - while waiting, the last ceil(non_speaking_duration / buffer) buffers are kept (the pre-roll);
 *   a buffer louder than the threshold starts a phrase; quieter ones move the threshold towards
 *   energy × ratio with damping^seconds_per_buffer (dynamic threshold);
 * - during a phrase, more than ceil(pause_threshold / buffer) quiet buffers end it; a phrase
 *   with fewer than ceil(phrase_threshold / buffer) speaking buffers is dropped (clicks, pops);
 *   phrase_time_limit cuts a phrase (checked before each buffer, as the library does);
 * - the trailing silence beyond the non-speaking duration is trimmed.
 *
 * One deliberate difference: at the end of the stream the library returns whatever quiet audio
 * it was keeping even when no phrase started; this port returns nothing then (there is nothing
 * to transcribe). Calibration consumes its audio, as the library's does.
 */
import { frameEnergy } from './pcm.ts';

/** Options of {@link EnergyVad}; the names are the library's, in camel case. */
export interface EnergyVadOptions {
  /** Sample rate of the audio pushed (mono PCM s16). */
  sampleRate: number;
  /** Samples per buffer (the library's CHUNK; 1600 = 100 ms at 16 kHz). */
  bufferSamples: number;
  /** Starting energy threshold. Default 220 (the original product's). */
  energyThreshold?: number;
  /** Let the threshold follow the ambient noise while waiting. Default true. */
  dynamicEnergyThreshold?: boolean;
  /** Default 0.15 (the library's). */
  dynamicEnergyAdjustmentDamping?: number;
  /** Default 1.5 (the library's). */
  dynamicEnergyRatio?: number;
  /** Seconds of quiet that end a phrase. Default 0.9 (the original product's). */
  pauseThreshold?: number;
  /** Minimum seconds of speaking audio for a phrase. Default 0.35 (the original product's). */
  phraseThreshold?: number;
  /** Seconds of quiet kept on both sides of a phrase. Default 0.45 (the original product's). */
  nonSpeakingDuration?: number;
  /** Longest phrase in seconds; 0 or null for none. Default 15 (the original product's). */
  phraseTimeLimit?: number | null;
}

/** The original product's recognition parameters and the library's dynamic-threshold defaults. */
export const SEED_VAD_PARAMETERS = {
  energyThreshold: 220,
  dynamicEnergyThreshold: true,
  dynamicEnergyAdjustmentDamping: 0.15,
  dynamicEnergyRatio: 1.5,
  pauseThreshold: 0.9,
  phraseThreshold: 0.35,
  nonSpeakingDuration: 0.45,
  phraseTimeLimit: 15,
} as const;

/** Why a phrase ended. */
export type PhraseEndReason = 'pause' | 'time-limit' | 'end-of-stream';

/** One detected phrase: its audio (pre-roll and kept trailing silence included) and where it lies. */
export interface VadPhrase {
  samples: Int16Array;
  /** Index of its first buffer, counted from the first buffer pushed (calibration included). */
  startBuffer: number;
  /** Index after its last buffer. */
  endBuffer: number;
  /** Position in the pushed audio, in samples and milliseconds. */
  startSample: number;
  endSample: number;
  startMs: number;
  endMs: number;
  /**
   * Where the speech starts: the first buffer louder than the threshold (`startMs` includes the
   * quiet pre-roll kept before it).
   */
  speechStartMs: number;
  reason: PhraseEndReason;
}

/** What happened to one buffer, for tests, benchmarks and diagnostics. */
export type VadTraceEntry =
  | {
      kind: 'buffer';
      index: number;
      energy: number;
      /** The threshold after this buffer. */
      threshold: number;
      state: 'calibrating' | 'waiting' | 'speech-start' | 'phrase';
    }
  /** A phrase too short to count, dropped (buffers [startBuffer, endBuffer)). */
  | { kind: 'dropped'; startBuffer: number; endBuffer: number };

interface Buffer {
  index: number;
  offset: number;
  samples: Int16Array;
}

type State = 'waiting' | 'phrase';

/**
 * SpeechRecognition's energy VAD, fed incrementally.
 *
 * @example
 * const vad = new EnergyVad({ sampleRate: 16000, bufferSamples: 1600 });
 * vad.calibrate(1); // adjust_for_ambient_noise(duration=1) on the first second
 * for (const phrase of vad.push(samples)) transcribe(phrase.samples);
 * for (const phrase of vad.flush()) transcribe(phrase.samples); // end of the audio
 */
export class EnergyVad {
  readonly sampleRate: number;
  readonly bufferSamples: number;
  /** Seconds per buffer: CHUNK / SAMPLE_RATE. */
  readonly secondsPerBuffer: number;
  readonly pauseBufferCount: number;
  readonly phraseBufferCount: number;
  readonly nonSpeakingBufferCount: number;
  /** Called for every buffer and every dropped phrase. */
  onTrace: ((entry: VadTraceEntry) => void) | undefined;
  #threshold: number;
  #dynamic: boolean;
  #damping: number;
  #ratio: number;
  #phraseTimeLimit: number;
  #pending: Int16Array = new Int16Array(0);
  #bufferIndex = 0;
  #sampleOffset = 0;
  #state: State = 'waiting';
  #frames: Buffer[] = [];
  /** Seconds counted by the current listen() call (the library's `elapsed_time`). */
  #elapsed = 0;
  #phraseStart = 0;
  /** Sample offset of the buffer the current phrase's speech started in. */
  #speechStart = 0;
  #pauseCount = 0;
  #phraseCount = 0;
  #calibration: { duration: number; elapsed: number } | undefined;

  constructor(options: EnergyVadOptions) {
    const pause = options.pauseThreshold ?? SEED_VAD_PARAMETERS.pauseThreshold;
    const phrase = options.phraseThreshold ?? SEED_VAD_PARAMETERS.phraseThreshold;
    const nonSpeaking = options.nonSpeakingDuration ?? SEED_VAD_PARAMETERS.nonSpeakingDuration;
    if (!(options.sampleRate > 0) || !Number.isInteger(options.bufferSamples)) {
      throw new RangeError('sampleRate must be positive and bufferSamples a whole number');
    }
    if (options.bufferSamples < 1) throw new RangeError('bufferSamples must be at least 1');
    // The library asserts the same: the kept silence cannot exceed the pause that ends a phrase.
    if (!(pause >= nonSpeaking && nonSpeaking >= 0)) {
      throw new RangeError(
        `pauseThreshold (${pause}) must be at least nonSpeakingDuration (${nonSpeaking}), which must be at least 0`,
      );
    }
    this.sampleRate = options.sampleRate;
    this.bufferSamples = options.bufferSamples;
    this.secondsPerBuffer = options.bufferSamples / options.sampleRate;
    this.pauseBufferCount = Math.ceil(pause / this.secondsPerBuffer);
    this.phraseBufferCount = Math.ceil(phrase / this.secondsPerBuffer);
    this.nonSpeakingBufferCount = Math.ceil(nonSpeaking / this.secondsPerBuffer);
    this.#threshold = options.energyThreshold ?? SEED_VAD_PARAMETERS.energyThreshold;
    this.#dynamic = options.dynamicEnergyThreshold ?? SEED_VAD_PARAMETERS.dynamicEnergyThreshold;
    this.#damping =
      options.dynamicEnergyAdjustmentDamping ?? SEED_VAD_PARAMETERS.dynamicEnergyAdjustmentDamping;
    this.#ratio = options.dynamicEnergyRatio ?? SEED_VAD_PARAMETERS.dynamicEnergyRatio;
    this.#phraseTimeLimit =
      options.phraseTimeLimit === undefined
        ? SEED_VAD_PARAMETERS.phraseTimeLimit
        : (options.phraseTimeLimit ?? 0);
  }

  /** The current energy threshold. */
  get energyThreshold(): number {
    return this.#threshold;
  }

  /** True while a phrase is being collected. */
  get speaking(): boolean {
    return this.#state === 'phrase';
  }

  /** Buffers seen so far. */
  get buffersSeen(): number {
    return this.#bufferIndex;
  }

  /**
   * Starts `adjust_for_ambient_noise(duration)`: the next buffers, up to `durationSeconds`,
   * calibrate the threshold and are not listened to.
   */
  calibrate(durationSeconds: number): void {
    this.#calibration = durationSeconds > 0 ? { duration: durationSeconds, elapsed: 0 } : undefined;
  }

  /** Feeds mono PCM; returns the phrases completed by it, in order. */
  push(samples: Int16Array): VadPhrase[] {
    const phrases: VadPhrase[] = [];
    let input = samples;
    if (this.#pending.length > 0) {
      const joined = new Int16Array(this.#pending.length + samples.length);
      joined.set(this.#pending);
      joined.set(samples, this.#pending.length);
      input = joined;
    }
    const size = this.bufferSamples;
    let position = 0;
    while (input.length - position >= size) {
      this.#onBuffer(input.slice(position, position + size), phrases);
      position += size;
    }
    this.#pending = input.slice(position);
    return phrases;
  }

  /**
   * The end of the audio: a last short buffer is processed as the library reads it, and a phrase
   * in progress is returned (`reason: 'end-of-stream'`), however short. Then the detector starts
   * afresh (the threshold is kept).
   */
  flush(): VadPhrase[] {
    const phrases: VadPhrase[] = [];
    if (this.#pending.length > 0) {
      const last = this.#pending;
      this.#pending = new Int16Array(0);
      this.#onBuffer(last, phrases);
    }
    if (this.#state === 'phrase') {
      this.#emit(phrases, 'end-of-stream');
    }
    this.#startListen();
    return phrases;
  }

  /**
   * Forgets the phrase in progress and any partial buffer (pause); the threshold is kept.
   * `skipMs` advances the clock over audio that was not pushed, so later phrases keep true times.
   */
  reset(skipMs = 0): void {
    this.#pending = new Int16Array(0);
    this.#startListen();
    this.#calibration = undefined;
    this.#sampleOffset += Math.round((skipMs * this.sampleRate) / 1000);
  }

  #startListen(): void {
    this.#state = 'waiting';
    this.#frames = [];
    this.#elapsed = 0;
    this.#pauseCount = 0;
    this.#phraseCount = 0;
  }

  #adjust(energy: number): void {
    const damping = this.#damping ** this.secondsPerBuffer;
    const target = energy * this.#ratio;
    this.#threshold = this.#threshold * damping + target * (1 - damping);
  }

  #trace(entry: VadTraceEntry): void {
    this.onTrace?.(entry);
  }

  #onBuffer(samples: Int16Array, phrases: VadPhrase[]): void {
    const buffer: Buffer = { index: this.#bufferIndex, offset: this.#sampleOffset, samples };
    this.#bufferIndex += 1;
    this.#sampleOffset += samples.length;
    const calibration = this.#calibration;
    if (calibration) {
      calibration.elapsed += this.secondsPerBuffer;
      if (calibration.elapsed > calibration.duration) {
        // The library stops before reading this buffer: it goes to listening.
        this.#calibration = undefined;
      } else {
        const energy = frameEnergy(samples);
        this.#adjust(energy);
        this.#trace({
          kind: 'buffer',
          index: buffer.index,
          energy,
          threshold: this.#threshold,
          state: 'calibrating',
        });
        return;
      }
    }
    if (this.#state === 'phrase') {
      this.#elapsed += this.secondsPerBuffer;
      if (this.#phraseTimeLimit && this.#elapsed - this.#phraseStart > this.#phraseTimeLimit) {
        // The library breaks before reading; this buffer starts the next listen() call.
        this.#emit(phrases, 'time-limit');
        this.#startListen();
      } else {
        this.#inPhrase(buffer, phrases);
        return;
      }
    }
    this.#waiting(buffer);
  }

  #waiting(buffer: Buffer): void {
    this.#elapsed += this.secondsPerBuffer;
    this.#frames.push(buffer);
    if (this.#frames.length > this.nonSpeakingBufferCount) this.#frames.shift();
    const energy = frameEnergy(buffer.samples);
    if (energy > this.#threshold) {
      this.#trace({
        kind: 'buffer',
        index: buffer.index,
        energy,
        threshold: this.#threshold,
        state: 'speech-start',
      });
      this.#state = 'phrase';
      this.#pauseCount = 0;
      this.#phraseCount = 0;
      this.#phraseStart = this.#elapsed;
      this.#speechStart = buffer.offset;
      return;
    }
    if (this.#dynamic) this.#adjust(energy);
    this.#trace({
      kind: 'buffer',
      index: buffer.index,
      energy,
      threshold: this.#threshold,
      state: 'waiting',
    });
  }

  #inPhrase(buffer: Buffer, phrases: VadPhrase[]): void {
    this.#frames.push(buffer);
    this.#phraseCount += 1;
    const energy = frameEnergy(buffer.samples);
    if (energy > this.#threshold) this.#pauseCount = 0;
    else this.#pauseCount += 1;
    this.#trace({
      kind: 'buffer',
      index: buffer.index,
      energy,
      threshold: this.#threshold,
      state: 'phrase',
    });
    if (this.#pauseCount <= this.pauseBufferCount) return;
    if (this.#phraseCount - this.#pauseCount >= this.phraseBufferCount) {
      this.#emit(phrases, 'pause');
      this.#startListen();
      return;
    }
    // Too short: drop it and wait again with nothing kept; elapsed time runs on (same call).
    const first = this.#frames[0]!;
    this.#trace({
      kind: 'dropped',
      startBuffer: first.index,
      endBuffer: buffer.index + 1,
    });
    this.#state = 'waiting';
    this.#frames = [];
    this.#pauseCount = 0;
    this.#phraseCount = 0;
  }

  #emit(phrases: VadPhrase[], reason: PhraseEndReason): void {
    const trim = this.#pauseCount - this.nonSpeakingBufferCount;
    const frames = trim > 0 ? this.#frames.slice(0, this.#frames.length - trim) : this.#frames;
    if (frames.length === 0) return;
    let length = 0;
    for (const frame of frames) length += frame.samples.length;
    const samples = new Int16Array(length);
    let at = 0;
    for (const frame of frames) {
      samples.set(frame.samples, at);
      at += frame.samples.length;
    }
    const first = frames[0]!;
    const last = frames.at(-1)!;
    const endSample = last.offset + last.samples.length;
    phrases.push({
      samples,
      startBuffer: first.index,
      endBuffer: last.index + 1,
      startSample: first.offset,
      endSample,
      startMs: (first.offset / this.sampleRate) * 1000,
      endMs: (endSample / this.sampleRate) * 1000,
      speechStartMs: (Math.max(first.offset, this.#speechStart) / this.sampleRate) * 1000,
      reason,
    });
  }
}
