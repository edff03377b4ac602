/**
 * ASR_MODE=stream: the online streaming service through asr-protocol's client, on the optimised
 * bidirectional endpoint by default, with the request settings in STREAM_REQUEST_SETTINGS.
 *
 * A class outlives connections. The recognizer keeps the audio from the end of the last definite
 * utterance on (the part the service has heard but not finalised). When a connection drops or the
 * service answers a retryable error, it reconnects with backoff, resends that audio first and then
 * continues live; the new connection's times start at 0 again, so they are offset by where its
 * audio starts on the class clock. Sentences already written end before the resent audio starts,
 * so nothing is repeated; everything not yet definite is heard again, so nothing is lost. A fatal
 * error (bad keys, invalid request) stops the class's recognition with the service's code.
 */
import {
  type AsrEndpoint,
  type AsrRequest,
  type AsrStream,
  type AsrUtterance,
  buildHotwordsContext,
  connectAsrStream,
  describeServiceCode,
  isAsrEndpoint,
  isAsrProtocolError,
  validateAsrRequest,
} from '@class-assistant/asr-protocol';
import {
  type AudioSource,
  audioInputAvailability,
  createAudioSource,
  inputOf,
} from '../audio/audio-source.ts';
import { RECOGNIZER_SAMPLE_RATE, samplesToBytes } from '../audio/pcm.ts';
import { ServerError } from '../errors.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import { SERVER_VERSION } from '../version.ts';
import { contextHotwords, fitHotwords, hotwordBudget } from './hotwords.ts';
import {
  createErrorReporter,
  type Recognizer,
  type RecognizerAvailability,
  type RecognizerContext,
  type RecognizerDefinition,
} from './recognizer.ts';

/**
 * The request settings of a class: utterances with their times, one result per sentence, 800 ms
 * of silence ends a sentence, at least 1 s of speech before the end detection applies.
 */
export const STREAM_REQUEST_SETTINGS = {
  show_utterances: true,
  result_type: 'single',
  end_window_size: 800,
  force_to_speech_time: 1000,
} as const;

/** Audio per packet: 200 ms, the protocol's optimum for bidirectional streaming. */
export const STREAM_PACKET_MS = 200;

const SAMPLES_PER_MS = RECOGNIZER_SAMPLE_RATE / 1000;
const PACKET_SAMPLES = STREAM_PACKET_MS * SAMPLES_PER_MS;

/** Options of {@link createStreamRecognizer}. */
export interface StreamRecognizerOptions {
  context: RecognizerContext;
  /** A source to use instead of AUDIO_INPUT's (tests, benchmarks). */
  source?: AudioSource;
  /** Delays between reconnection attempts, in ms; the last repeats. */
  backoffMs?: readonly number[];
  /** Most audio kept for resending while the service is unreachable. Default 5 minutes. */
  maxRetainedMs?: number;
  /** Longest wait for the final result at stop or at the end of a file. Default 8 s. */
  finishTimeoutMs?: number;
}

/** Builds the full client request of a class: 16 kHz mono PCM, the request settings, hot words. */
export function buildStreamRequest(endpoint: AsrEndpoint, hotwords: readonly string[]): AsrRequest {
  const words = fitHotwords(hotwords, hotwordBudget(endpoint));
  const request = {
    user: { uid: 'class-assistant', platform: process.platform, app_version: SERVER_VERSION },
    audio: { format: 'pcm', codec: 'raw', rate: 16000, bits: 16, channel: 1 },
    request: {
      model_name: 'bigmodel',
      enable_itn: true,
      enable_punc: true,
      ...STREAM_REQUEST_SETTINGS,
      ...(words.length > 0 ? { corpus: { context: buildHotwordsContext(words) } } : {}),
    },
  };
  return validateAsrRequest(request, endpoint);
}

/** Audio on the class clock, from `start` (a sample index at 16 kHz) on. */
class RetainedAudio {
  #chunks: Array<{ start: number; samples: Int16Array }> = [];
  #start = 0;
  #end = 0;

  get start(): number {
    return this.#start;
  }

  get end(): number {
    return this.#end;
  }

  /**
   * Appends samples starting at `start`. Within 10 ms of the end it continues the audio (a
   * resampled file's clock wanders by a sample); a larger gap (a pause) restarts the buffer.
   */
  append(start: number, samples: Int16Array): void {
    let at = start;
    if (this.#chunks.length > 0 && Math.abs(start - this.#end) <= 160) at = this.#end;
    else if (this.#chunks.length === 0 || start !== this.#end) {
      this.#chunks = [];
      this.#start = start;
    }
    this.#chunks.push({ start: at, samples });
    this.#end = at + samples.length;
  }

  /** Forgets audio before `sample`. */
  dropBefore(sample: number): void {
    while (this.#chunks.length > 0) {
      const first = this.#chunks[0]!;
      const firstEnd = first.start + first.samples.length;
      if (firstEnd <= sample) {
        this.#chunks.shift();
        continue;
      }
      if (first.start < sample) {
        this.#chunks[0] = { start: sample, samples: first.samples.subarray(sample - first.start) };
      }
      break;
    }
    this.#start = this.#chunks.length > 0 ? this.#chunks[0]!.start : this.#end;
  }

  /** A copy of samples [from, to). */
  read(from: number, to: number): Int16Array {
    const out = new Int16Array(Math.max(0, to - from));
    for (const chunk of this.#chunks) {
      const chunkEnd = chunk.start + chunk.samples.length;
      if (chunkEnd <= from || chunk.start >= to) continue;
      const begin = Math.max(from, chunk.start);
      const finish = Math.min(to, chunkEnd);
      out.set(chunk.samples.subarray(begin - chunk.start, finish - chunk.start), begin - from);
    }
    return out;
  }

  clear(): void {
    this.#chunks = [];
    this.#start = this.#end;
  }
}

interface Connection {
  stream: AsrStream;
  /** Class sample index of the first sample sent on it: its time 0. */
  base: number;
  /** Class sample index up to which audio was sent on it. */
  sent: number;
  /** Whether audio was sent yet (until then `base` follows the retained audio). */
  started: boolean;
  alive: boolean;
}

function describeFailure(error: unknown): string {
  if (isAsrProtocolError(error)) {
    if (error.serviceCode !== undefined) {
      return `service error ${error.serviceCode} (${describeServiceCode(error.serviceCode)}): ${error.serviceMessage ?? error.message}${error.logId ? ` [log id ${error.logId}]` : ''}`;
    }
    return `${error.message}${error.logId ? ` [log id ${error.logId}]` : ''}`;
  }
  return (error as Error)?.message ?? String(error);
}

/** The error start_monitor answers when the first connection fails. */
function startError(error: unknown, settings: ResolvedSettings): ServerError {
  const detail = describeFailure(error);
  if (isAsrProtocolError(error) && error.code === 'ASR_HANDSHAKE_FAILED') {
    const auth = error.status === 401 || error.status === 403;
    return new ServerError(
      'RECOGNIZER_UNAVAILABLE',
      auth ? 503 : 502,
      auth
        ? `The streaming service refused the keys (HTTP ${error.status}): check STREAM_ASR_APP_KEY, STREAM_ASR_ACCESS_KEY and STREAM_ASR_RESOURCE_ID (${settings.streamAsrResourceId}). ${detail}`
        : `The streaming service refused the connection: ${detail}`,
      { field: auth ? 'STREAM_ASR_ACCESS_KEY' : 'STREAM_ASR_URL' },
    );
  }
  if (isAsrProtocolError(error) && error.serviceCode !== undefined) {
    return new ServerError(
      'RECOGNIZER_FAILED',
      502,
      `The streaming service refused the class: ${detail}`,
      { field: 'ASR_MODE' },
    );
  }
  return new ServerError(
    'RECOGNIZER_UNAVAILABLE',
    502,
    `Cannot reach the streaming service at ${settings.streamAsrUrl}: ${detail}. Check the network and STREAM_ASR_URL.`,
    { field: 'STREAM_ASR_URL' },
  );
}

/**
 * The streaming recognizer of one class.
 *
 * @example
 * const recognizer = createStreamRecognizer({ context });
 * await recognizer.start(); // rejects when the service cannot be reached or refuses the keys
 */
export function createStreamRecognizer(options: StreamRecognizerOptions): Recognizer {
  const { context } = options;
  const settings = context.settings;
  const endpoint: AsrEndpoint = isAsrEndpoint(settings.streamAsrEndpoint)
    ? settings.streamAsrEndpoint
    : 'bigmodel_async';
  const backoff = options.backoffMs ?? [250, 1000, 2000, 4000, 8000, 15000];
  const maxRetained = (options.maxRetainedMs ?? 300_000) * SAMPLES_PER_MS;
  const finishTimeoutMs = options.finishTimeoutMs ?? 8000;
  const retained = new RetainedAudio();
  let request: AsrRequest | undefined;
  let source: AudioSource | undefined;
  let connection: Connection | undefined;
  let connecting: Promise<void> | undefined;
  let pumping: Promise<void> | undefined;
  let loop: Promise<void> | undefined;
  /** Class sample index up to which definite utterances cover the audio. */
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

  // Each definite utterance becomes one transcript line, exactly once: one covered by audio an
  // earlier connection already finalised (resent after a reconnection) is a repeat.
  const onDefinite = (current: Connection, utterance: AsrUtterance) => {
    const end = current.base + utterance.end_time * SAMPLES_PER_MS;
    if (end <= committed) return;
    committed = Math.max(committed, Math.min(end, current.sent));
    retained.dropBefore(committed);
    context.emit({ type: 'text', text: utterance.text });
  };

  const attach = (current: Connection) => {
    current.stream.on('utterance-complete', ({ utterance }) => {
      if (connection === current) onDefinite(current, utterance);
    });
    current.stream.on('partial-update', ({ text }) => {
      if (connection === current && !paused) context.emit({ type: 'partial', text });
    });
    current.stream.on('end', ({ error }) => {
      current.alive = false;
      if (connection !== current) return;
      connection = undefined;
      if (stopping || paused || failed || error === undefined) return;
      if (error.retryable) {
        report(
          'STREAM_ASR_RECONNECTING',
          `The streaming connection was lost (${describeFailure(error)}); reconnecting and resending the audio not yet recognised.`,
          false,
        );
        context.emit({ type: 'partial', text: '' });
        scheduleReconnect();
      } else {
        report(
          error.serviceCode !== undefined ? `STREAM_ASR_${error.serviceCode}` : error.code,
          `The streaming service stopped the class: ${describeFailure(error)}`,
          true,
        );
        void source?.close();
      }
    });
  };

  const open = async (): Promise<void> => {
    const stream = await connectAsrStream({
      url: settings.streamAsrUrl,
      endpoint,
      appKey: settings.streamAsrAppKey,
      accessKey: settings.streamAsrAccessKey,
      resourceId: settings.streamAsrResourceId,
      request: request!,
      finishTimeoutMs,
    });
    if (stopped) {
      stream.close();
      return;
    }
    const current: Connection = {
      stream,
      base: retained.start,
      sent: retained.start,
      started: false,
      alive: true,
    };
    connection = current;
    attach(current);
    context.logger.info(
      {
        logId: stream.logId,
        connectId: stream.connectId,
        resendMs: (retained.end - retained.start) / SAMPLES_PER_MS,
      },
      'streaming recognition connected',
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
          context.logger.info({}, 'streaming recognition resumed');
        })
        .catch((error: unknown) => {
          if (stopping || failed) return;
          if (isAsrProtocolError(error) && !error.retryable) {
            report(
              error.code,
              `The streaming service refused to reconnect: ${describeFailure(error)}`,
              true,
            );
            void source?.close();
            return;
          }
          context.logger.warn(
            { err: error, attempts },
            'reconnecting to the streaming service failed',
          );
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
    return audio.length > 0 ? current.stream.sendAudio(samplesToBytes(audio)) : Promise.resolve();
  };

  /** Sends whole packets of retained audio the current connection has not had yet. */
  const sendPackets = async (): Promise<void> => {
    for (;;) {
      const current = connection;
      if (!current?.alive || stopped) return;
      const from = Math.max(current.sent, retained.start);
      if (retained.end - from < PACKET_SAMPLES) return;
      try {
        await send(current, from + PACKET_SAMPLES);
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
        await current.stream.finish({ timeoutMs: finishTimeoutMs });
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
              'STREAM_ASR_AUDIO_DROPPED',
              `The streaming service has been unreachable for over ${maxRetained / SAMPLES_PER_MS / 60000} minutes: older audio is being dropped.`,
              false,
            );
          }
        }
        if (connection) await pump();
        else if (!connecting && !reconnectTimer) scheduleReconnect();
      }
      // The file is over, or stop() closed the source: the last sentence still becomes definite.
      if (failed || paused) return;
      await finish();
      if (!stopping && !failed) context.emit({ type: 'end', reason: 'the audio file is over' });
    } catch (error) {
      if (stopping) return;
      report('AUDIO_INPUT_FAILED', `Listening stopped: ${(error as Error).message}`, true);
      connection?.stream.close();
    }
  };

  return {
    input: () => inputOf(source),
    async start() {
      if (loop || stopped) return;
      const hotwords = settings.streamAsrHotwords ? await contextHotwords(context) : [];
      try {
        request = buildStreamRequest(endpoint, hotwords);
      } catch (error) {
        throw new ServerError(
          'RECOGNIZER_FAILED',
          500,
          `Invalid streaming request: ${(error as Error).message}`,
          {
            field: 'ASR_MODE',
          },
        );
      }
      const words = fitHotwords(hotwords, hotwordBudget(endpoint));
      context.logger.info({ endpoint, hotwords: words }, 'streaming recognition: hot words');
      const current =
        options.source ??
        createAudioSource(settings, context.dataDir, {
          onWarning: (message) => report('AUDIO_DROPPED', message, false),
          ...(context.appCapture ? { appCapture: context.appCapture } : {}),
        });
      await current.open();
      source = current;
      try {
        await open();
      } catch (error) {
        await current.close();
        source = undefined;
        throw startError(error, settings);
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
      current?.stream.close();
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
      connection?.stream.close();
      connection = undefined;
    },
  };
}

/** ASR_MODE=stream. */
export const streamRecognizerDefinition: RecognizerDefinition = {
  mode: 'stream',
  description: 'online streaming recognition (bigmodel WebSocket protocol)',
  async availability(settings, where): Promise<RecognizerAvailability> {
    const missing = [
      settings.streamAsrAppKey === '' ? 'STREAM_ASR_APP_KEY' : '',
      settings.streamAsrAccessKey === '' ? 'STREAM_ASR_ACCESS_KEY' : '',
    ].filter((key) => key !== '');
    if (missing.length > 0) {
      return {
        available: false,
        message: `ASR_MODE=stream needs ${missing.join(' and ')} (the application id and access token from the streaming provider's console).`,
        settings: missing,
      };
    }
    const input = await audioInputAvailability(settings, where?.dataDir ?? '.');
    if (!input.available) return input;
    return {
      available: true,
      detail: `${settings.streamAsrUrl} (${settings.streamAsrEndpoint}); listening to ${input.detail}`,
    };
  },
  create: (context) => createStreamRecognizer({ context }),
};
