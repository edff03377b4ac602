/**
 * The microphone of the app window (AUDIO_INPUT=app). The desktop UI captures it with
 * getUserMedia and streams 16-bit PCM over `WS /api/ws/capture`; this module owns that
 * connection, hands the audio to the running class as an {@link AudioSource}, and reports the
 * capture's state (the `capture.changed` live event), so that a window whose audio stops —
 * closed, hidden and throttled by the browser, refused the microphone, its device unplugged —
 * is reported instead of the class silently transcribing nothing.
 *
 * The protocol (message schemas in ../events/live-events.ts):
 * 1. the backend sends `{"type":"format", sample_rate, channels, chunk_bytes}` — the PCM it
 *    wants (AUDIO_SAMPLE_RATE, AUDIO_CHANNELS, AUDIO_CHUNK_SIZE);
 * 2. once its microphone runs, the window sends `{"type":"hello", device, sample_rate,
 *    channels}` naming the format it really sends (a browser that cannot capture at the asked
 *    rate sends its own; the backend converts), then binary frames of little-endian 16-bit
 *    PCM, channels interleaved;
 * 3. when it cannot capture, it sends `{"type":"problem", problem, message}`.
 * A text message that is not one of these, or audio before `hello`, gets
 * `{"type":"error", code, message}` and the socket is closed (1008).
 *
 * One window at a time: a new connection takes over from the one before, which is sent
 * `{"type":"replaced"}` and closed (4001). The newest window is the one the student just opened
 * or reloaded; an older socket may belong to a page that is frozen or going away, and refusing
 * the new one would leave the class deaf until that old socket times out.
 */
import { ServerError } from '../errors.ts';
import {
  type CaptureProblem,
  type CaptureServerMessage,
  type CaptureStatus,
  CaptureWindowMessageSchema,
} from '../events/live-events.ts';
import type { AudioSource, AudioSourceInfo } from './audio-source.ts';
import { createChunkQueue } from './chunk-queue.ts';
import { createRecognizerConverter, frameEnergy, RECOGNIZER_SAMPLE_RATE } from './pcm.ts';

/** The PCM asked of the window. */
export interface CaptureFormat {
  sampleRate: number;
  channels: number;
  /** Bytes per binary frame. */
  chunkBytes: number;
}

/** A message's payload as `ws` hands it over: one buffer, an ArrayBuffer, or fragments. */
export type CaptureSocketData = Buffer | ArrayBuffer | Buffer[];

/**
 * The socket operations the capture needs (a `ws` WebSocket, as `@fastify/websocket` hands it
 * to a route, has them). Declared here so that the package's types name no `ws` type.
 */
export interface CaptureSocket {
  readonly readyState: number;
  readonly OPEN: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  on(event: 'message', listener: (data: CaptureSocketData, isBinary: boolean) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** Options of {@link createAppCapture}. */
export interface AppCaptureOptions {
  /** The format asked of a window while no class listens (the current settings). */
  format(): CaptureFormat;
  /** Called with every change of {@link AppCapture.status} (buildApp publishes `capture.changed`). */
  onStatus?(status: CaptureStatus): void;
  /** Where state changes are logged. */
  logger?: { info(object: object, message?: string): void };
  /**
   * No audio for this long while a class listens means the window's audio stopped (and a gap
   * this long in the audio starts the recognizers afresh). Default 2000 ms.
   */
  stallMs?: number;
  /** Most audio held for a slow recognizer before the oldest is dropped. Default 30 s. */
  maxQueuedMs?: number;
  /** Clock in ms (tests). Default `performance.now`. */
  now?(): number;
}

/** Defaults of {@link AppCaptureOptions}. */
export const DEFAULT_APP_CAPTURE_OPTIONS = { stallMs: 2000, maxQueuedMs: 30_000 } as const;

/** The app window's capture; see the module comment. */
export interface AppCapture {
  /** What the backend knows of the window's microphone now. */
  status(): CaptureStatus;
  /** Takes a window's capture socket (from `WS /api/ws/capture`); a newer one replaces it. */
  attach(socket: CaptureSocket): void;
  /**
   * The audio source of a class listening to the window. Opening it asks the window for audio
   * (`capture.changed` leaves `off`); it never fails for want of a window — the class waits and
   * `capture.changed` says why no audio comes — and never ends until closed.
   */
  createSource(format: CaptureFormat, options?: { onWarning?(message: string): void }): AudioSource;
  /** Closes the window's socket (the backend is stopping). */
  close(): void;
}

interface Connection {
  socket: CaptureSocket;
  hello?: { device: string; sampleRate: number; channels: number; at: number };
  convert?: (bytes: Uint8Array) => Int16Array;
}

interface Listener {
  format: CaptureFormat;
  since: number;
  /** Audio arrived since the class started listening. */
  heard: boolean;
  push(samples: Int16Array): void;
}

function bytesOf(data: CaptureSocketData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

function send(socket: CaptureSocket, message: CaptureServerMessage): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
}

/**
 * Creates the app window's capture (one per backend).
 *
 * @example
 * const capture = createAppCapture({ format: () => ({ sampleRate: 16000, channels: 1, chunkBytes: 3200 }) });
 * app.get('/api/ws/capture', { websocket: true }, (socket) => capture.attach(socket));
 * const source = capture.createSource({ sampleRate: 16000, channels: 1, chunkBytes: 3200 });
 */
export function createAppCapture(options: AppCaptureOptions): AppCapture {
  const { stallMs, maxQueuedMs } = { ...DEFAULT_APP_CAPTURE_OPTIONS, ...options };
  const now = options.now ?? (() => performance.now());
  let connection: Connection | undefined;
  let listener: Listener | undefined;
  let lastAudioAt = Number.NEGATIVE_INFINITY;
  let windowProblem: { problem: CaptureProblem; message: string } | undefined;
  let published = '';
  let timer: NodeJS.Timeout | undefined;
  const seconds = `${stallMs / 1000} s`;

  const status = (): CaptureStatus => {
    const connected = connection !== undefined;
    const device = connection?.hello?.device ?? '';
    const base = { connected, device };
    if (!listener) {
      return {
        ...base,
        state: 'off',
        problem: null,
        message: 'No class is listening to the app window.',
      };
    }
    if (windowProblem) {
      return {
        ...base,
        state: 'stopped',
        problem: windowProblem.problem,
        message: `The app window cannot capture: ${windowProblem.message}`,
      };
    }
    const at = now();
    if (listener.heard && at - lastAudioAt < stallMs) {
      return {
        ...base,
        state: 'receiving',
        problem: null,
        message: `Receiving audio from the app window${device ? ` (${device})` : ''}.`,
      };
    }
    const hello = connection?.hello;
    if (
      (connection && (!hello || at - hello.at < stallMs)) ||
      (!listener.heard && at - listener.since < stallMs)
    ) {
      return {
        ...base,
        state: 'waiting',
        problem: null,
        message: 'A class listens to the app window, which is opening its microphone.',
      };
    }
    return connected
      ? {
          ...base,
          state: 'stopped',
          problem: 'no-audio',
          message: `The app window is connected but has sent no audio for ${seconds}: it may be hidden and throttled by the browser, or frozen. Bring it to the front; listening resumes by itself.`,
        }
      : {
          ...base,
          state: 'stopped',
          problem: 'disconnected',
          message: `No app window has been capturing for ${seconds}: open the Class Assistant window (it was closed or lost the backend); listening resumes by itself.`,
        };
  };

  /** Publishes the status when it changed. */
  const update = () => {
    const current = status();
    const text = JSON.stringify(current);
    if (text === published) return;
    published = text;
    options.logger?.info({ capture: current }, `app window capture: ${current.state}`);
    options.onStatus?.(current);
  };

  const formatMessage = (): CaptureServerMessage => {
    const format = listener?.format ?? options.format();
    return {
      type: 'format',
      sample_rate: format.sampleRate,
      channels: format.channels,
      chunk_bytes: format.chunkBytes,
    };
  };

  const refuse = (current: Connection, code: string, message: string) => {
    send(current.socket, { type: 'error', code, message });
    current.socket.close(1008, code);
  };

  const onText = (current: Connection, text: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      refuse(current, 'CAPTURE_MESSAGE_INVALID', 'Text messages must be JSON (hello or problem).');
      return;
    }
    const result = CaptureWindowMessageSchema.safeParse(parsed);
    if (!result.success) {
      const problems = result.error.issues
        .map((issue) => `${issue.path.join('.') || 'message'}: ${issue.message}`)
        .join('; ');
      refuse(current, 'CAPTURE_MESSAGE_INVALID', `Not a capture message (${problems}).`);
      return;
    }
    const message = result.data;
    if (message.type === 'hello') {
      current.hello = {
        device: message.device,
        sampleRate: message.sample_rate,
        channels: message.channels,
        at: now(),
      };
      current.convert = createRecognizerConverter({
        sampleRate: message.sample_rate,
        channels: message.channels,
      });
      windowProblem = undefined;
    } else {
      windowProblem = { problem: message.problem, message: message.message };
    }
    update();
  };

  const onAudio = (current: Connection, bytes: Uint8Array) => {
    if (!current.convert) {
      refuse(
        current,
        'CAPTURE_HELLO_MISSING',
        'Send {"type":"hello", device, sample_rate, channels} before audio.',
      );
      return;
    }
    const samples = current.convert(bytes);
    if (samples.length === 0) return;
    lastAudioAt = now();
    windowProblem = undefined;
    if (listener) {
      listener.heard = true;
      listener.push(samples);
    }
    update();
  };

  const stopTimer = () => {
    clearInterval(timer);
    timer = undefined;
  };

  return {
    status,
    attach(socket) {
      const previous = connection;
      const current: Connection = { socket };
      connection = current;
      // The new window speaks for itself: what the old one reported no longer holds.
      windowProblem = undefined;
      if (previous) {
        send(previous.socket, {
          type: 'replaced',
          message: 'Another window took over the microphone capture.',
        });
        previous.socket.close(4001, 'replaced by another window');
      }
      send(socket, formatMessage());
      socket.on('message', (data, isBinary) => {
        if (connection !== current) return;
        if (isBinary) onAudio(current, bytesOf(data));
        else onText(current, new TextDecoder().decode(bytesOf(data)));
      });
      socket.on('close', () => {
        if (connection !== current) return;
        connection = undefined;
        windowProblem = undefined;
        update();
      });
      // A failing socket closes too; the close handler above reports it.
      socket.on('error', () => undefined);
      update();
    },
    createSource(format, sourceOptions = {}) {
      let info: AudioSourceInfo | undefined;
      let paused = false;
      let closed = false;
      let level = 0;
      let openedAt = 0;
      let clockMs = 0;
      const queue = createChunkQueue({
        maxQueuedMs,
        ...(sourceOptions.onWarning ? { onWarning: sourceOptions.onWarning } : {}),
      });
      const self: Listener = {
        format,
        since: 0,
        heard: false,
        push(samples) {
          // The class clock counts samples; a gap longer than a stall (the window was away)
          // moves it on to the time that passed, so the recognizers start afresh after it.
          const wall = now() - openedAt;
          if (wall - clockMs > stallMs) clockMs = wall;
          const atMs = clockMs;
          clockMs += (samples.length / RECOGNIZER_SAMPLE_RATE) * 1000;
          level = frameEnergy(samples);
          if (paused || closed) return;
          queue.push({ samples, atMs });
        },
      };
      return {
        get info() {
          if (!info) return undefined;
          const hello = connection?.hello;
          return hello
            ? {
                ...info,
                name: hello.device,
                sampleRate: hello.sampleRate,
                channels: hello.channels,
              }
            : info;
        },
        get level() {
          return level;
        },
        async open() {
          if (listener && listener !== self) {
            throw new ServerError(
              'AUDIO_DEVICE_UNAVAILABLE',
              'The app window’s microphone already feeds another class.',
              { field: 'AUDIO_INPUT' },
            );
          }
          openedAt = now();
          self.since = openedAt;
          self.heard = false;
          listener = self;
          info = {
            kind: 'app',
            name: 'the app window',
            sampleRate: format.sampleRate,
            channels: format.channels,
          };
          // A window connected before the class may have been told other settings.
          if (connection) send(connection.socket, formatMessage());
          timer ??= setInterval(update, Math.max(50, stallMs / 4));
          timer.unref();
          update();
        },
        chunks() {
          return { [Symbol.asyncIterator]: () => queue.read(() => closed) };
        },
        pause() {
          paused = true;
          queue.clear();
        },
        resume() {
          paused = false;
        },
        async close() {
          if (closed) return;
          closed = true;
          queue.notify();
          if (listener === self) {
            listener = undefined;
            stopTimer();
            update();
          }
        },
      };
    },
    close() {
      stopTimer();
      const current = connection;
      connection = undefined;
      current?.socket.close(1001, 'the backend is stopping');
    },
  };
}
