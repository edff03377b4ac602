/**
 * A recognizer over an online streaming service (ASR_MODE=stream, ASR_MODE=dashscope): the
 * class's audio goes to the service in packets; its final sentences become transcript lines, its
 * partial text is shown live. The service is an {@link OnlineService}: how to connect, what its
 * failures mean. Everything about keeping a class alive across connections is here, once.
 *
 * A class outlives connections. The recognizer keeps the audio from the end of the last final
 * sentence on (the part the service has heard but not finalised). When a connection drops or the
 * service reports a retryable failure, it reconnects with backoff, resends that audio first and
 * then continues live; the new connection's times start at 0 again, so they are offset by where
 * its audio starts on the class clock. Sentences already written end before the resent audio
 * starts, so nothing is repeated; everything not yet final is heard again, so nothing is lost. A
 * fatal failure (bad key, invalid request) stops the class's recognition with the service's code.
 */
import {
  type AudioSource,
  inputOf,
  progressOf,
  recordingPositionOf,
} from '../audio/audio-source.ts';
import { RECOGNIZER_SAMPLE_RATE, samplesToBytes } from '../audio/pcm.ts';
import type { ServerError } from '../errors.ts';
import { recognizerAudioSource } from './class-audio-source.ts';
import { createErrorReporter, type Recognizer, type RecognizerContext } from './recognizer.ts';
import { RetainedAudio } from './retained-audio.ts';

const SAMPLES_PER_MS = RECOGNIZER_SAMPLE_RATE / 1000;

/** One open connection to the service. */
export interface ServiceConnection {
  /** Sends 16 kHz mono 16-bit PCM; rejects once the connection is gone. */
  sendAudio(pcm: Uint8Array): Promise<void>;
  /** Says the audio is over and resolves once the last results are in (rejects on timeout). */
  finish(timeoutMs: number): Promise<void>;
  /** Closes at once, without waiting for results. */
  close(): void;
  /** What the log line about the new connection shows (ids of the service). */
  details?: Record<string, unknown>;
}

/** What a connection reports, on its own clock (ms from its first audio). */
export interface ServiceConnectionEvents {
  /** A final sentence, ending `endMs` into the connection's audio. */
  final(text: string, endMs: number): void;
  /** The sentence being heard ('' clears it). */
  partial(text: string): void;
  /** The connection is over: after `finish()` without `failure`, else with what went wrong. */
  end(failure?: unknown): void;
}

/** What a failure means for the class. */
export interface ServiceFailure {
  /** A dropped connection, a busy service: reconnect and resend. */
  retryable: boolean;
  /** The code the student sees for a fatal failure (e.g. STREAM_ASR_45000001). */
  code: string;
  /** What happened, with the service's own code and message. */
  message: string;
}

/** An online streaming recognition service. */
export interface OnlineService {
  /** How messages name it: "the streaming service", "DashScope". */
  name: string;
  /** Prefix of the codes of its reports: STREAM_ASR → STREAM_ASR_RECONNECTING. */
  codePrefix: string;
  /** Work before the first connection (the request, hot words); may throw a ServerError. */
  prepare?(): Promise<void>;
  /** Opens a connection; rejects when it cannot (unreachable, keys refused). */
  connect(events: ServiceConnectionEvents): Promise<ServiceConnection>;
  /** What a connection's failure (or a refused reconnection) means. */
  describe(failure: unknown): ServiceFailure;
  /** The error start_monitor answers when the first connection fails. */
  startError(failure: unknown): ServerError;
}

/** Options of {@link createResendingRecognizer}. */
export interface ResendingRecognizerOptions {
  context: RecognizerContext;
  service: OnlineService;
  /** Audio per packet in ms. */
  packetMs: number;
  /** A source to use instead of AUDIO_INPUT's (tests, benchmarks). */
  source?: AudioSource;
  /** Delays between reconnection attempts, in ms; the last repeats. */
  backoffMs?: readonly number[];
  /** Most audio kept for resending while the service is unreachable. Default 5 minutes. */
  maxRetainedMs?: number;
  /** Longest wait for the final result at stop or at the end of a file. Default 8 s. */
  finishTimeoutMs?: number;
}

/** Defaults of {@link ResendingRecognizerOptions}. */
export const DEFAULT_RESENDING_OPTIONS = {
  backoffMs: [250, 1000, 2000, 4000, 8000, 15000],
  maxRetainedMs: 300_000,
  finishTimeoutMs: 8000,
} as const;

interface Connection {
  link: ServiceConnection | undefined;
  /** Class sample index of the first sample sent on it: its time 0. */
  base: number;
  /** Class sample index up to which audio was sent on it. */
  sent: number;
  /** Whether audio was sent yet (until then `base` follows the retained audio). */
  started: boolean;
  alive: boolean;
}

/**
 * The recognizer of one class over `service`.
 *
 * @example
 * const recognizer = createResendingRecognizer({ context, service, packetMs: 200 });
 * await recognizer.start(); // rejects with service.startError(…) when the first connection fails
 */
export function createResendingRecognizer(options: ResendingRecognizerOptions): Recognizer {
  const { context, service } = options;
  const settings = context.settings;
  const backoff = options.backoffMs ?? DEFAULT_RESENDING_OPTIONS.backoffMs;
  const maxRetained =
    (options.maxRetainedMs ?? DEFAULT_RESENDING_OPTIONS.maxRetainedMs) * SAMPLES_PER_MS;
  const finishTimeoutMs = options.finishTimeoutMs ?? DEFAULT_RESENDING_OPTIONS.finishTimeoutMs;
  const packetSamples = options.packetMs * SAMPLES_PER_MS;
  const retained = new RetainedAudio();
  let source: AudioSource | undefined;
  let connection: Connection | undefined;
  let connecting: Promise<void> | undefined;
  let pumping: Promise<void> | undefined;
  let loop: Promise<void> | undefined;
  /** Class sample index up to which final sentences cover the audio. */
  let committed = 0;
  /** stop() was called: the source is closing and the final result is awaited. */
  let stopping = false;
  /** Everything is closed. */
  let stopped = false;
  let failed = false;
  let paused = false;
  let attempts = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let droppedWarned = false;
  const emitError = createErrorReporter(context);

  const report = (code: string, message: string, fatal: boolean) => {
    if (fatal) failed = true;
    emitError(code, message, fatal);
  };

  // Each final sentence becomes one transcript line, exactly once: one covered by audio an
  // earlier connection already finalised (resent after a reconnection) is a repeat.
  const onFinal = (current: Connection, text: string, endMs: number) => {
    if (connection !== current) return;
    const end = current.base + endMs * SAMPLES_PER_MS;
    if (end <= committed) return;
    committed = Math.max(committed, Math.min(end, current.sent));
    retained.dropBefore(committed);
    // A final sentence without words (noise) still covers its audio: it is not heard again.
    if (text.trim() !== '') context.emit({ type: 'text', text });
  };

  const onEnd = (current: Connection, failure: unknown) => {
    current.alive = false;
    if (connection !== current) return;
    connection = undefined;
    if (stopping || paused || failed || failure === undefined) return;
    const described = service.describe(failure);
    if (described.retryable) {
      report(
        `${service.codePrefix}_RECONNECTING`,
        `The connection to ${service.name} was lost (${described.message}); reconnecting and resending the audio not yet recognised.`,
        false,
      );
      context.emit({ type: 'partial', text: '' });
      scheduleReconnect();
    } else {
      report(
        described.code,
        `${capitalise(service.name)} stopped the class: ${described.message}`,
        true,
      );
      void source?.close();
    }
  };

  const open = async (): Promise<void> => {
    const current: Connection = {
      link: undefined,
      base: retained.start,
      sent: retained.start,
      started: false,
      alive: true,
    };
    const link = await service.connect({
      final: (text, endMs) => onFinal(current, text, endMs),
      partial: (text) => {
        if (connection === current && !paused) context.emit({ type: 'partial', text });
      },
      end: (failure) => onEnd(current, failure),
    });
    if (stopped) {
      link.close();
      return;
    }
    current.link = link;
    current.base = retained.start;
    current.sent = retained.start;
    connection = current;
    context.logger.info(
      { ...link.details, resendMs: (retained.end - retained.start) / SAMPLES_PER_MS },
      `${service.name}: connected`,
    );
    void pump();
  };

  const scheduleReconnect = () => {
    if (reconnectTimer || connecting || stopping || failed || paused) return;
    const delay = backoff[Math.min(attempts, backoff.length - 1)] ?? 1000;
    attempts += 1;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connecting = open()
        .then(() => {
          attempts = 0;
          context.logger.info({}, `${service.name}: recognition resumed`);
        })
        .catch((error: unknown) => {
          if (stopping || failed) return;
          const described = service.describe(error);
          if (!described.retryable) {
            report(
              described.code,
              `${capitalise(service.name)} refused to reconnect: ${described.message}`,
              true,
            );
            void source?.close();
            return;
          }
          context.logger.warn({ err: error, attempts }, `reconnecting to ${service.name} failed`);
          connecting = undefined;
          scheduleReconnect();
        })
        .finally(() => {
          connecting = undefined;
        });
    }, delay);
  };

  /**
   * Sends retained audio [sent, to) on a connection. The first audio sent fixes the connection's
   * time 0 (after a pause the audio may restart later on the class clock than when it opened).
   */
  const send = (current: Connection, to: number): Promise<void> => {
    const from = Math.max(current.sent, retained.start);
    if (!current.started) {
      current.started = true;
      current.base = from;
    }
    const audio = retained.read(from, to);
    current.sent = to;
    return audio.length > 0 ? current.link!.sendAudio(samplesToBytes(audio)) : Promise.resolve();
  };

  /** Sends whole packets of retained audio the current connection has not had yet. */
  const sendPackets = async (): Promise<void> => {
    for (;;) {
      const current = connection;
      if (!current?.alive || stopped) return;
      const from = Math.max(current.sent, retained.start);
      if (retained.end - from < packetSamples) return;
      try {
        await send(current, from + packetSamples);
      } catch {
        return; // the connection's end handler reconnects
      }
    }
  };

  /** One sender at a time; callers share the running one. */
  const pump = (): Promise<void> => {
    if (pumping) return pumping;
    const running = sendPackets().finally(() => {
      if (pumping === running) pumping = undefined;
    });
    pumping = running;
    return running;
  };

  /** Sends the rest and waits for the final result (end of a file, or stop). */
  const finish = async (): Promise<void> => {
    for (let round = 0; round < 3 && !failed; round++) {
      if (!connection && !stopping) {
        scheduleReconnect();
        const deadline = Date.now() + finishTimeoutMs;
        while (!connection && !failed && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      const current = connection;
      if (!current) return;
      await pump();
      try {
        await send(current, retained.end);
        await current.link!.finish(finishTimeoutMs);
        return;
      } catch (error) {
        if (stopping) return;
        context.logger.warn({ err: error }, 'the final result did not come; trying again');
        connection = undefined;
      }
    }
  };

  const run = async (current: AudioSource) => {
    try {
      for await (const chunk of current.chunks()) {
        if (stopping || failed) break;
        if (paused) continue;
        retained.append(Math.round(chunk.atMs * SAMPLES_PER_MS), chunk.samples);
        if (retained.end - retained.start > maxRetained) {
          retained.dropBefore(retained.end - maxRetained);
          committed = Math.max(committed, retained.start);
          if (!droppedWarned) {
            droppedWarned = true;
            report(
              `${service.codePrefix}_AUDIO_DROPPED`,
              `${capitalise(service.name)} has been unreachable for over ${maxRetained / SAMPLES_PER_MS / 60000} minutes: older audio is being dropped.`,
              false,
            );
          }
        }
        if (connection) await pump();
        else if (!connecting && !reconnectTimer) scheduleReconnect();
      }
      // The file is over, or stop() closed the source: the last sentence still becomes final.
      if (failed || paused) return;
      await finish();
      if (!stopping && !failed) context.emit({ type: 'end', reason: 'the audio file is over' });
    } catch (error) {
      if (stopping) return;
      report('AUDIO_INPUT_FAILED', `Listening stopped: ${(error as Error).message}`, true);
      connection?.link?.close();
    }
  };

  return {
    input: () => inputOf(source),
    recordingPosition: (atMs) => recordingPositionOf(source, atMs),
    progress: () => progressOf(source),
    async start() {
      if (loop || stopped) return;
      await service.prepare?.();
      const current = recognizerAudioSource(settings, context, options.source, (message) =>
        report('AUDIO_DROPPED', message, false),
      );
      await current.open();
      source = current;
      try {
        await open();
      } catch (error) {
        await current.close();
        source = undefined;
        throw service.startError(error);
      }
      loop = run(current);
    },
    async pause() {
      paused = true;
      source?.pause();
      clearTimeout(reconnectTimer);
      reconnectTimer = undefined;
      // The service would time out waiting for packets; a new connection starts at resume.
      const current = connection;
      connection = undefined;
      current?.link?.close();
      retained.clear();
      committed = retained.end;
    },
    async resume() {
      if (!paused) return;
      paused = false;
      source?.resume();
      if (!connection && !stopping && !failed) scheduleReconnect();
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      clearTimeout(reconnectTimer);
      reconnectTimer = undefined;
      await source?.close();
      // The run loop sends the rest and waits for the final result (the sentence being spoken
      // when the student pressed stop is still written), within the finish timeout.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        loop ?? Promise.resolve(),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, finishTimeoutMs + 1000);
        }),
      ]);
      clearTimeout(timer);
      stopped = true;
      connection?.link?.close();
      connection = undefined;
    },
  };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
