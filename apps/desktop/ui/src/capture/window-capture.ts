// The app window's microphone for classes with AUDIO_INPUT=app. While the backend says a class
// listens to the window (`capture.changed` not `off`), this opens the capture socket
// (WS /api/ws/capture), asks for the microphone the student chose (getUserMedia, the browser's
// own echo cancelling, noise suppression and gain control off, as with the backend's microphone),
// runs it through an AudioContext at the backend's AUDIO_SAMPLE_RATE (the browser resamples) and
// the capture worklet (16-bit PCM frames of AUDIO_CHUNK_SIZE), and sends the frames. Whatever
// stops it — permission refused, no device, the device unplugged, the connection cut, another
// window taking over — becomes a state the views show, and is told to the backend where it can
// be. A test mode runs the microphone for the level meter only, without sending anything.
// The source is the student's choice: the microphone, the computer's sound (a screen or tab
// shared with its audio, getDisplayMedia; the video is stopped at once) or both, summed in the
// AudioContext (every connection into the worklet's input is mixed), each with its own level.
import { preference, savePreference } from '../preferences.ts';
import type { CaptureServerMessage, CaptureStatus, CaptureWindowMessage } from '../types.ts';
import workletUrl from './capture-worklet.ts?worker&url';
import {
  DEVICE_LOST,
  type MicrophoneFailure,
  microphoneFailure,
  type ShareProblem,
  systemSoundFailure,
  type WindowProblem,
} from './microphone-problem.ts';
import { CAPTURE_PROCESSOR, type PcmFrame } from './pcm-chunker.ts';

/** What the window's microphone is doing. */
type MicrophoneState =
  | 'off'
  | 'starting'
  | 'on'
  /** Running, but the browser holds audio until the page is clicked (autoplay rules). */
  | 'suspended'
  | WindowProblem;

/** What the window captures: the microphone, the computer's sound, or both mixed. */
export type CaptureSource = 'microphone' | 'system' | 'both';

/** The level (RMS, 0–32767) of each source captured. */
interface SourceLevels {
  microphone?: number;
  system?: number;
}

/** The capture socket. */
type CaptureLink = 'off' | 'connecting' | 'open' | 'retrying' | 'replaced';

/** Everything the views show about the window's capture. */
export interface WindowCaptureState {
  microphone: MicrophoneState;
  link: CaptureLink;
  /** The label of the device captured ('' when none). */
  device: string;
  /** The browser's words for a failure. */
  detail: string;
  /** A class listens to this window. */
  forClass: boolean;
  /** The student is testing the microphone (level only). */
  testing: boolean;
  /** What the window captures. */
  source: CaptureSource;
  /** Why the computer's sound is not captured ('' when it is, or was not asked for). */
  share: ShareProblem | '';
}

/** Before any class or test: nothing captured, no socket. */
export const IDLE_CAPTURE: WindowCaptureState = {
  microphone: 'off',
  link: 'off',
  device: '',
  detail: '',
  forClass: false,
  testing: false,
  source: 'microphone',
  share: '',
};

/** The controller; see the module comment. */
export interface WindowCapture {
  state(): WindowCaptureState;
  /** Calls `listener` after every change of the state; returns the unsubscribe function. */
  subscribe(listener: (state: WindowCaptureState) => void): () => void;
  /**
   * Calls `listener` with the level (RMS, 0–32767) of each frame sent and of each source in it;
   * returns the unsubscribe.
   */
  onLevel(listener: (level: number, sources: SourceLevels) => void): () => void;
  /** Follows the backend's capture status (from the live events). */
  follow(status: CaptureStatus | null): void;
  /** The input devices (names only once the microphone was allowed). */
  devices(): Promise<MediaDeviceInfo[]>;
  /** The chosen input device's id ('' for the system default). */
  chosenDevice(): string;
  /** Chooses the input device; a running capture switches to it. */
  chooseDevice(deviceId: string): void;
  /** Starts or stops the microphone test. */
  test(on: boolean): void;
  /** Chooses what to capture; a running capture switches to it (kept as a preference). */
  chooseSource(source: CaptureSource): void;
  /** Tries the microphone again after a problem. */
  retry(): void;
  /** Takes the capture back from the window that took it over. */
  takeOver(): void;
}

interface Format {
  sampleRate: number;
  channels: 1 | 2;
  chunkBytes: number;
}

interface Pipeline {
  streams: MediaStream[];
  /** The first audio track (the microphone's when there is one). */
  track: MediaStreamTrack;
  context: AudioContext;
  sources: MediaStreamAudioSourceNode[];
  /** One analyser per source, for its own level. */
  analysers: Array<{ source: keyof SourceLevels; node: AnalyserNode }>;
  node: AudioWorkletNode;
  format: Format;
  deviceId: string;
  kind: CaptureSource;
  /** What the hello names: the tracks' labels. */
  label: string;
}

/** The format of a test without a class (the backend's defaults). */
const TEST_FORMAT: Format = { sampleRate: 16000, channels: 1, chunkBytes: 3200 };
/** Frames waiting in the socket beyond which new ones are dropped (a stalled connection). */
const MAX_BUFFERED_FRAMES = 50;
const DEVICE_PREFERENCE = 'captureDevice';
const SOURCE_PREFERENCE = 'captureSource';

function savedSource(): CaptureSource {
  const saved = preference(SOURCE_PREFERENCE, 'microphone');
  return saved === 'system' || saved === 'both' ? saved : 'microphone';
}

/** RMS of an analyser's latest block, on the 16-bit scale of the frames. */
function analyserLevel(node: AnalyserNode, buffer: Float32Array<ArrayBuffer>): number {
  node.getFloatTimeDomainData(buffer);
  let sum = 0;
  for (const value of buffer) sum += value * value;
  return Math.round(Math.sqrt(sum / buffer.length) * 32767);
}

/**
 * The computer's sound: a screen or tab shared with its audio. Chromium shares audio only with
 * video, so the video track is stopped at once; a share without an audio track is refused with
 * `NoSharedAudio` (the student left "share audio" unticked).
 */
async function openSystemSound(): Promise<MediaStream> {
  if (!navigator.mediaDevices?.getDisplayMedia) {
    throw new DOMException('no getDisplayMedia in this browser', 'NotSupportedError');
  }
  const stream = await navigator.mediaDevices.getDisplayMedia({
    video: true,
    audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
    systemAudio: 'include',
    windowAudio: 'system',
  } as DisplayMediaStreamOptions);
  for (const track of stream.getVideoTracks()) {
    track.stop();
    stream.removeTrack(track);
  }
  if (stream.getAudioTracks().length === 0) {
    throw new DOMException('the shared screen or tab has no audio track', 'NoSharedAudio');
  }
  return stream;
}

const sameFormat = (a: Format, b: Format) =>
  a.sampleRate === b.sampleRate && a.channels === b.channels && a.chunkBytes === b.chunkBytes;

/** Creates the controller of this window's microphone. */
export function createWindowCapture(options: { url?: string } = {}): WindowCapture {
  const url =
    options.url ??
    `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/ws/capture`;
  let state: WindowCaptureState = { ...IDLE_CAPTURE, source: savedSource() };
  const listeners = new Set<(state: WindowCaptureState) => void>();
  const levelListeners = new Set<(level: number, sources: SourceLevels) => void>();
  let levelBuffer = new Float32Array(0);
  let pipeline: Pipeline | undefined;
  /** Grows with every start and stop of the microphone: a start that was overtaken gives up. */
  let generation = 0;
  let starting: { format: Format; deviceId: string; kind: CaptureSource } | undefined;
  let failure: MicrophoneFailure | undefined;
  /** The format the backend asked for (kept across reconnections). */
  let wanted: Format | undefined;
  let socket: WebSocket | undefined;
  /** The current socket has received the backend's format. */
  let greeted = false;
  let helloSent = false;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let retries = 0;

  const set = (patch: Partial<WindowCaptureState>) => {
    state = { ...state, ...patch };
    for (const listener of [...listeners]) listener(state);
  };

  const send = (message: CaptureWindowMessage) => {
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  };

  const sendHello = () => {
    if (!pipeline || !greeted || helloSent || !state.forClass || state.microphone !== 'on') return;
    if (socket?.readyState !== WebSocket.OPEN) return;
    send({
      type: 'hello',
      device: pipeline.label || 'default',
      sample_rate: pipeline.context.sampleRate,
      channels: pipeline.format.channels,
    });
    helloSent = true;
  };

  const reportFailure = () => {
    if (!failure || !greeted) return;
    send({ type: 'problem', problem: failure.problem, message: failure.message });
    helloSent = false;
  };

  const onFrame = (frame: PcmFrame) => {
    const sources: SourceLevels = {};
    for (const { source, node } of pipeline?.analysers ?? []) {
      if (levelBuffer.length !== node.fftSize) levelBuffer = new Float32Array(node.fftSize);
      sources[source] = analyserLevel(node, levelBuffer);
    }
    for (const listener of [...levelListeners]) listener(frame.level, sources);
    if (!helloSent || socket?.readyState !== WebSocket.OPEN) return;
    if (socket.bufferedAmount > MAX_BUFFERED_FRAMES * frame.pcm.byteLength) return;
    socket.send(frame.pcm);
  };

  const releasePipeline = () => {
    const current = pipeline;
    pipeline = undefined;
    helloSent = false;
    if (!current) return;
    current.node.port.onmessage = null;
    for (const source of current.sources) source.disconnect();
    for (const stream of current.streams) for (const track of stream.getTracks()) track.stop();
    void current.context.close().catch(() => undefined);
  };

  const fail = (problem: MicrophoneFailure) => {
    releasePipeline();
    failure = problem;
    set({
      microphone: problem.problem,
      detail: problem.message,
      device: '',
      share: problem.share ?? '',
    });
    reportFailure();
  };

  const openStream = async (channels: number, deviceId: string): Promise<MediaStream> => {
    const constraints = (device: string): MediaStreamConstraints => ({
      audio: {
        ...(device ? { deviceId: { exact: device } } : {}),
        channelCount: channels,
        echoCancellation: false,
        noiseSuppression: false,
        autoGainControl: false,
      },
    });
    try {
      return await navigator.mediaDevices.getUserMedia(constraints(deviceId));
    } catch (error) {
      const name = (error as { name?: string }).name;
      // The chosen device is gone: the system default is better than silence.
      if (deviceId && (name === 'OverconstrainedError' || name === 'NotFoundError')) {
        return navigator.mediaDevices.getUserMedia(constraints(''));
      }
      throw error;
    }
  };

  /** Resumes a context the browser suspended, at the student's next click or key. */
  const resumeOnGesture = (context: AudioContext) => {
    const resume = () => {
      void context.resume();
      document.removeEventListener('pointerdown', resume, true);
      document.removeEventListener('keydown', resume, true);
    };
    document.addEventListener('pointerdown', resume, true);
    document.addEventListener('keydown', resume, true);
  };

  const startMicrophone = async (format: Format, deviceId: string, kind: CaptureSource) => {
    const run = ++generation;
    releasePipeline();
    starting = { format, deviceId, kind };
    failure = undefined;
    set({ microphone: 'starting', detail: '', share: '' });
    const streams: MediaStream[] = [];
    let context: AudioContext | undefined;
    /** Releases what this start opened; true when a stop or another start overtook it. */
    const overtaken = () => {
      if (run === generation) return false;
      for (const stream of streams) for (const track of stream.getTracks()) track.stop();
      void context?.close().catch(() => undefined);
      return true;
    };
    let sharing = false;
    try {
      if (!navigator.mediaDevices?.getUserMedia || typeof AudioWorkletNode === 'undefined') {
        throw new Error('this browser cannot capture audio (no getUserMedia or AudioWorklet)');
      }
      // The share first: its prompt needs the click that started the class or the retry.
      let system: MediaStream | undefined;
      if (kind !== 'microphone') {
        sharing = true;
        system = await openSystemSound();
        streams.push(system);
        sharing = false;
        if (overtaken()) return;
      }
      let microphone: MediaStream | undefined;
      if (kind !== 'system') {
        microphone = await openStream(format.channels, deviceId);
        streams.push(microphone);
        if (overtaken()) return;
      }
      try {
        context = new AudioContext({ sampleRate: format.sampleRate });
      } catch {
        // A rate this browser cannot run: its own, which the backend converts.
        context = new AudioContext();
      }
      await context.audioWorklet.addModule(workletUrl);
      if (overtaken()) return;
      const inputs = [
        ...(microphone ? [{ source: 'microphone' as const, stream: microphone }] : []),
        ...(system ? [{ source: 'system' as const, stream: system }] : []),
      ];
      const tracks = inputs.map((input) => input.stream.getAudioTracks()[0]);
      const track = tracks[0];
      if (!track || tracks.some((each) => !each)) {
        throw new DOMException('the stream has no audio track', 'NotFoundError');
      }
      const open = context;
      const sources = inputs.map((input) => open.createMediaStreamSource(input.stream));
      const analysers = inputs.map((input, index) => {
        const analyser = open.createAnalyser();
        analyser.fftSize = 2048;
        sources[index]!.connect(analyser);
        return { source: input.source, node: analyser };
      });
      const label = inputs
        .map((input, index) =>
          input.source === 'system'
            ? `Computer sound (${tracks[index]!.label || 'shared'})`
            : tracks[index]!.label,
        )
        .join(' + ');
      const node = new AudioWorkletNode(context, CAPTURE_PROCESSOR, {
        numberOfInputs: 1,
        numberOfOutputs: 0,
        channelCount: format.channels,
        channelCountMode: 'explicit',
        channelInterpretation: 'speakers',
        processorOptions: { channels: format.channels, chunkBytes: format.chunkBytes },
      });
      node.port.onmessage = (event: MessageEvent<PcmFrame>) => onFrame(event.data);
      // Both sources into the one input: the AudioContext sums them.
      for (const source of sources) source.connect(node);
      const current: Pipeline = {
        streams,
        track,
        context,
        sources,
        analysers,
        node,
        format,
        deviceId,
        kind,
        label,
      };
      pipeline = current;
      starting = undefined;
      inputs.forEach((input, index) => {
        tracks[index]!.addEventListener('ended', () => {
          if (pipeline !== current) return;
          // Sharing ended (the browser's "Stop sharing"): the computer's sound is gone.
          fail(
            input.source === 'system'
              ? systemSoundFailure(new DOMException('sharing stopped', 'NotAllowedError'))
              : DEVICE_LOST,
          );
        });
      });
      const started = context;
      started.addEventListener('statechange', () => {
        if (pipeline !== current) return;
        if (started.state === 'running' && state.microphone === 'suspended') {
          set({ microphone: 'on' });
          sendHello();
        }
      });
      await started.resume().catch(() => undefined);
      if (pipeline !== current) return;
      if (started.state !== 'running') resumeOnGesture(started);
      set({
        microphone: started.state === 'running' ? 'on' : 'suspended',
        device: label,
      });
      sendHello();
    } catch (error) {
      if (overtaken()) return;
      starting = undefined;
      for (const stream of streams) for (const track of stream.getTracks()) track.stop();
      void context?.close().catch(() => undefined);
      fail(sharing ? systemSoundFailure(error) : microphoneFailure(error));
    }
  };

  const stopMicrophone = () => {
    generation++;
    starting = undefined;
    releasePipeline();
    failure = undefined;
    if (state.microphone !== 'off' || state.device !== '') {
      set({ microphone: 'off', device: '', detail: '', share: '' });
    }
  };

  const closeSocket = () => {
    clearTimeout(retryTimer);
    retryTimer = undefined;
    const current = socket;
    socket = undefined;
    greeted = false;
    helloSent = false;
    current?.close(1000, 'the class stopped listening');
  };

  const connect = () => {
    const current = new WebSocket(url);
    current.binaryType = 'arraybuffer';
    socket = current;
    greeted = false;
    helloSent = false;
    set({ link: 'connecting' });
    current.addEventListener('open', () => {
      if (socket !== current) return;
      retries = 0;
      set({ link: 'open' });
    });
    current.addEventListener('message', (event: MessageEvent) => {
      if (socket !== current || typeof event.data !== 'string') return;
      let message: CaptureServerMessage;
      try {
        message = JSON.parse(event.data) as CaptureServerMessage;
      } catch {
        return;
      }
      if (message.type === 'format') {
        wanted = {
          sampleRate: message.sample_rate,
          channels: message.channels === 2 ? 2 : 1,
          chunkBytes: message.chunk_bytes,
        };
        greeted = true;
        reconcile();
        if (failure) reportFailure();
        else sendHello();
      } else if (message.type === 'replaced') {
        set({ link: 'replaced' });
      }
    });
    current.addEventListener('close', () => {
      if (socket !== current) return;
      socket = undefined;
      greeted = false;
      helloSent = false;
      if (state.link === 'replaced' || !state.forClass) {
        if (state.link !== 'replaced') set({ link: 'off' });
        reconcile();
        return;
      }
      // The backend restarted or the connection broke: try again, 0.5 s doubling to 5 s.
      set({ link: 'retrying' });
      retryTimer = setTimeout(
        () => {
          retryTimer = undefined;
          reconcile();
        },
        Math.min(5000, 500 * 2 ** retries++),
      );
    });
  };

  /** Brings the socket and the microphone to what the class and the test want. */
  const reconcile = () => {
    const socketWanted = state.forClass && state.link !== 'replaced';
    if (socketWanted && !socket && !retryTimer) connect();
    if (!socketWanted && socket) closeSocket();
    const classFormat = state.forClass && state.link !== 'replaced' ? wanted : undefined;
    const format = classFormat ?? (state.testing ? TEST_FORMAT : undefined);
    if (!format) {
      stopMicrophone();
      return;
    }
    const deviceId = preference(DEVICE_PREFERENCE, '');
    const kind = state.source;
    const current = pipeline ?? starting;
    if (
      current &&
      sameFormat(current.format, format) &&
      current.deviceId === deviceId &&
      current.kind === kind
    ) {
      return;
    }
    // A problem waits for the student (retry) or the system (device or permission change).
    if (!current && failure) return;
    void startMicrophone(format, deviceId, kind);
  };

  const retry = () => {
    failure = undefined;
    if (!pipeline && !starting) set({ microphone: 'off', detail: '', share: '' });
    reconcile();
  };

  if (typeof navigator !== 'undefined' && navigator.mediaDevices) {
    navigator.mediaDevices.addEventListener('devicechange', () => {
      if (failure?.problem === 'device-lost' || failure?.problem === 'no-device') retry();
    });
  }
  void navigator.permissions
    ?.query({ name: 'microphone' as PermissionName })
    .then((permission) => {
      permission.addEventListener('change', () => {
        if (permission.state !== 'denied' && failure?.problem === 'permission-denied') retry();
      });
    })
    .catch(() => undefined);

  return {
    state: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onLevel(listener) {
      levelListeners.add(listener);
      return () => levelListeners.delete(listener);
    },
    follow(status) {
      const forClass = status !== null && status.state !== 'off';
      if (forClass === state.forClass) return;
      // A new class starts afresh: a window that was replaced may capture again.
      set({ forClass, ...(forClass ? {} : { link: 'off' as const }) });
      if (!forClass) failure = state.testing ? failure : undefined;
      reconcile();
    },
    async devices() {
      if (!navigator.mediaDevices?.enumerateDevices) return [];
      const all = await navigator.mediaDevices.enumerateDevices();
      return all.filter((device) => device.kind === 'audioinput');
    },
    chosenDevice: () => preference(DEVICE_PREFERENCE, ''),
    chooseDevice(deviceId) {
      savePreference(DEVICE_PREFERENCE, deviceId);
      failure = undefined;
      reconcile();
    },
    chooseSource(source) {
      savePreference(SOURCE_PREFERENCE, source);
      failure = undefined;
      set({ source, share: '' });
      reconcile();
    },
    test(on) {
      if (on === state.testing) return;
      set({ testing: on });
      if (on) failure = undefined;
      reconcile();
    },
    retry,
    takeOver() {
      if (state.link !== 'replaced') return;
      set({ link: 'off' });
      reconcile();
    },
  };
}
