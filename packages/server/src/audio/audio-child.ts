/**
 * The microphone runs in a child process: PortAudio and ALSA print to stdout and stderr, and a
 * crash in the native audio stack must not take the server (and the transcript) down with it.
 * The parent talks to it over Node's IPC channel (`serialization: 'advanced'`, so audio travels
 * as bytes): one request in argv, messages out, `{type:'stop'}` or a disconnect to end.
 */
import { loadNaudiodonAddon, type NaudiodonAddon, type NaudiodonDevice } from './native.ts';

/** The argv flag that makes the backend executable act as the audio child (single-file builds). */
export const AUDIO_CHILD_FLAG = '--class-assistant-audio-child';

/** What the parent asks for. */
export interface AudioChildRequest {
  mode: 'probe' | 'capture';
  /** Part of a device name; undefined for the default input. */
  device: string | undefined;
  sampleRate: number;
  channels: number;
  /** Bytes per read (AUDIO_CHUNK_SIZE). */
  chunkBytes: number;
}

/** A device as reported to the parent. */
export interface AudioDeviceInfo {
  id: number;
  name: string;
  hostApi: string;
  maxInputChannels: number;
  defaultSampleRate: number;
}

/** Messages from the child. */
export type AudioChildMessage =
  | { type: 'devices'; inputs: AudioDeviceInfo[]; defaultInput: AudioDeviceInfo | undefined }
  | { type: 'opened'; device: AudioDeviceInfo; sampleRate: number; channels: number }
  | { type: 'audio'; data: Uint8Array }
  | { type: 'probed'; level: number; bytes: number }
  | { type: 'failed'; code: AudioChildFailure; message: string };

/** Why the child could not do what was asked. */
export type AudioChildFailure =
  | 'NO_INPUT_DEVICE'
  | 'DEVICE_NOT_FOUND'
  | 'DEVICE_OPEN_FAILED'
  | 'CAPTURE_FAILED'
  | 'NATIVE_MODULE_MISSING'
  | 'BAD_REQUEST';

const NO_DEVICE = 0xffffffff;

function info(device: NaudiodonDevice): AudioDeviceInfo {
  return {
    id: device.id,
    name: device.name,
    hostApi: device.hostAPIName,
    maxInputChannels: device.maxInputChannels,
    defaultSampleRate: device.defaultSampleRate,
  };
}

/** Input devices and the default one, as PortAudio sees them. */
function listInputs(addon: NaudiodonAddon): {
  inputs: AudioDeviceInfo[];
  defaultInput: AudioDeviceInfo | undefined;
} {
  const devices = addon.getDevices();
  const inputs = devices.filter((device) => device.maxInputChannels > 0).map(info);
  const hostApis = addon.getHostAPIs();
  const defaultId = hostApis.HostAPIs.find(
    (api) => api.id === hostApis.defaultHostAPI,
  )?.defaultInput;
  const defaultInput =
    defaultId === undefined || defaultId === NO_DEVICE
      ? inputs[0]
      : (inputs.find((device) => device.id === defaultId) ?? inputs[0]);
  return { inputs, defaultInput };
}

/** The device a request names: exact name first, then the first whose name contains it. */
function chooseDevice(
  inputs: readonly AudioDeviceInfo[],
  defaultInput: AudioDeviceInfo | undefined,
  wanted: string | undefined,
): AudioDeviceInfo | undefined {
  if (wanted === undefined) return defaultInput;
  const lower = wanted.toLowerCase();
  return (
    inputs.find((device) => device.name.toLowerCase() === lower) ??
    inputs.find((device) => device.name.toLowerCase().includes(lower))
  );
}

function send(message: AudioChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send || !process.connected) {
      resolve();
      return;
    }
    process.send(message, undefined, undefined, () => resolve());
  });
}

function rms(bytes: Uint8Array): number {
  const samples = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1);
  let sum = 0;
  for (const value of samples) sum += value * value;
  return samples.length === 0 ? 0 : Math.floor(Math.sqrt(sum / samples.length));
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    }),
  ]);
}

/**
 * The child's main: reads the request from the last argv element, does it, exits. Exit codes:
 * 0 done, 1 failed (a `failed` message says why), 2 bad request.
 */
export async function runAudioChild(argv: readonly string[]): Promise<number> {
  let request: AudioChildRequest;
  try {
    request = JSON.parse(argv.at(-1) ?? '') as AudioChildRequest;
    if (request.mode !== 'probe' && request.mode !== 'capture') throw new Error('unknown mode');
  } catch (error) {
    await send({
      type: 'failed',
      code: 'BAD_REQUEST',
      message: `bad audio child request: ${(error as Error).message}`,
    });
    return 2;
  }
  let addon: NaudiodonAddon;
  try {
    addon = loadNaudiodonAddon();
  } catch (error) {
    await send({
      type: 'failed',
      code: 'NATIVE_MODULE_MISSING',
      message: (error as Error).message,
    });
    return 1;
  }
  const { inputs, defaultInput } = listInputs(addon);
  await send({ type: 'devices', inputs, defaultInput });
  const device = chooseDevice(inputs, defaultInput, request.device);
  if (!device) {
    await send(
      request.device === undefined
        ? {
            type: 'failed',
            code: 'NO_INPUT_DEVICE',
            message: 'the system has no audio input device (no microphone or sound card found)',
          }
        : {
            type: 'failed',
            code: 'DEVICE_NOT_FOUND',
            message: `no input device named "${request.device}"; inputs: ${inputs.map((input) => `"${input.name}"`).join(', ') || 'none'}`,
          },
    );
    return 1;
  }
  let io: ReturnType<NaudiodonAddon['create']>;
  try {
    io = addon.create({
      inOptions: {
        channelCount: request.channels,
        sampleFormat: 16,
        sampleRate: request.sampleRate,
        deviceId: device.id,
        closeOnError: false,
        // PortAudio drops buffers beyond this queue if the reader falls behind.
        maxQueue: 64,
      },
    });
    io.start();
  } catch (error) {
    await send({
      type: 'failed',
      code: 'DEVICE_OPEN_FAILED',
      message: `could not open "${device.name}" at ${request.sampleRate} Hz, ${request.channels} channel(s): ${(error as Error).message}`,
    });
    return 1;
  }
  await send({
    type: 'opened',
    device,
    sampleRate: request.sampleRate,
    channels: request.channels,
  });
  let stopping = false;
  const stop = () => {
    stopping = true;
  };
  process.on('disconnect', stop);
  process.on('message', (message: { type?: string }) => {
    if (message?.type === 'stop') stop();
  });
  let code = 0;
  try {
    if (request.mode === 'probe') {
      const result = await withTimeout(io.read(request.chunkBytes), 3000, 'the input device');
      if (result.err) throw result.err;
      const bytes = result.buf ?? new Uint8Array(0);
      await send({ type: 'probed', level: rms(bytes), bytes: bytes.byteLength });
    } else {
      while (!stopping) {
        const result = await withTimeout(io.read(request.chunkBytes), 5000, 'the input device');
        if (result.err) throw result.err;
        if (result.finished) break;
        if (result.buf && result.buf.byteLength > 0) {
          // Waiting for each message to be handed over keeps memory flat when the parent is busy.
          await send({ type: 'audio', data: new Uint8Array(result.buf) });
        }
      }
    }
  } catch (error) {
    code = 1;
    await send({
      type: 'failed',
      code: 'CAPTURE_FAILED',
      message: `capture from "${device.name}" failed: ${(error as Error).message}`,
    });
  }
  await withTimeout(io.quit('ABORT'), 2000, 'closing the input device').catch(() => undefined);
  return code;
}
