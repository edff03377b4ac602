/**
 * The parent side of the sherpa engine's process (see sherpa-child.ts): starts it with a model,
 * streams audio to it and hands its events on. Audio is sent as it comes and never waited on, so
 * decoding never holds up the server's event loop.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { workerUrl } from '../../assets.ts';
import { packagedSelf } from '../../audio/audio-child-process.ts';
import {
  SHERPA_CHILD_FLAG,
  type SherpaChildMessage,
  type SherpaChildRequest,
} from './sherpa-child.ts';
import type { SherpaDecoderConfig, SherpaEvent } from './sherpa-decoder.ts';

const OUTPUT_LIMIT = 8192;
/** Samples per message of a whole recording (10 s). */
const PIECE = 160_000;

/** Why the engine's process could not load its model or ended. */
export class SherpaProcessError extends Error {
  /** What the process printed last (sherpa-onnx and ONNX Runtime name the file they refused). */
  readonly output: string;
  /** The process ended while it loaded the punctuation graph (the recognizer had loaded). */
  readonly duringPunctuation: boolean;
  constructor(message: string, output: string, options: { duringPunctuation?: boolean } = {}) {
    super(message);
    this.name = 'SherpaProcessError';
    this.output = output;
    this.duringPunctuation = options.duringPunctuation === true;
  }
}

/** A loaded sherpa engine process. */
export interface SherpaProcess {
  readonly pid: number | undefined;
  /** Definite lines are punctuated (a punctuation graph was asked for and loaded). */
  readonly punctuated: boolean;
  /** Why the punctuation graph asked for was not loaded (sherpa-onnx's reason). */
  readonly punctuationProblem: string | undefined;
  /** Sends a chunk of 16 kHz mono audio heard at `atMs` (class clock). */
  audio(samples: Int16Array, atMs?: number): void;
  /** Resolves once at most `samples` of the audio sent are still waiting to be decoded. */
  caughtUp(samples: number): Promise<void>;
  /** Ends the utterance being heard; resolves once its line (if any) was handed on. */
  finish(): Promise<void>;
  /** Recognises a whole recording apart from the live audio. */
  transcribe(samples: Int16Array): Promise<string>;
  /** Called with the decoding loop's events, in order. */
  onEvents(listener: (events: SherpaEvent[]) => void): void;
  /** Called once if the process ends without being closed (a crash). */
  onExit(listener: (error: SherpaProcessError) => void): void;
  /** Ends the process (waits up to `graceMs`, then kills it). */
  close(graceMs?: number): Promise<void>;
}

function command(): { command: string; args: string[] } {
  const self = packagedSelf();
  if (self) return { command: self.command, args: [...self.args, SHERPA_CHILD_FLAG] };
  return {
    command: process.execPath,
    args: [fileURLToPath(workerUrl('sherpa-child')), SHERPA_CHILD_FLAG],
  };
}

/** The lines of the process's output worth quoting (the last error sherpa-onnx printed). */
export function lastOutputLines(output: string, maxLines = 2): string {
  return output
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^(Aborted|terminate called)/.test(line))
    .slice(-maxLines)
    .join(' | ');
}

/**
 * Starts a sherpa engine process and loads the model of `config` in it.
 *
 * @throws SherpaProcessError when the model cannot be loaded (the message quotes sherpa-onnx).
 */
export async function startSherpaProcess(config: SherpaDecoderConfig): Promise<SherpaProcess> {
  const { command: file, args } = command();
  const child: ChildProcess = spawn(file, args, {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'advanced',
    windowsHide: true,
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let closing = false;
  const eventListeners: Array<(events: SherpaEvent[]) => void> = [];
  const exitListeners: Array<(error: SherpaProcessError) => void> = [];
  const pending = new Map<
    number,
    { resolve: (value: string) => void; reject: (error: Error) => void }
  >();
  let nextId = 1;
  let ready: { resolve: () => void; reject: (error: Error) => void } | undefined;
  let punctuating = false;
  let punctuationProblem: string | undefined;
  let backlog = 0;
  let dead = false;
  const backlogWaiters: Array<{ samples: number; resolve: () => void }> = [];
  const wakeBacklog = () => {
    for (const waiter of [...backlogWaiters]) {
      if (dead || backlog <= waiter.samples) {
        backlogWaiters.splice(backlogWaiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };

  const exited = new Promise<void>((resolve) => {
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      // Let the pipes deliver the last lines sherpa-onnx printed before naming them.
      setImmediate(() => {
        const how = signal ? `was ended by ${signal}` : `exited with code ${code}`;
        const said = lastOutputLines(output);
        const error = new SherpaProcessError(
          `the sherpa-onnx engine process ${how}${said ? `: ${said}` : ''}`,
          output,
          { duringPunctuation: ready !== undefined && punctuating },
        );
        ready?.reject(error);
        ready = undefined;
        dead = true;
        wakeBacklog();
        for (const waiter of pending.values()) waiter.reject(error);
        pending.clear();
        if (!closing) for (const listener of exitListeners) listener(error);
        resolve();
      });
    };
    child.once('exit', finish);
    child.once('error', (error) => {
      output += `\n${error.message}`;
      if (child.exitCode === null) finish(null, null);
    });
  });

  child.on('message', (message: SherpaChildMessage) => {
    switch (message.type) {
      case 'punctuating':
        punctuating = true;
        return;
      case 'ready':
        punctuationProblem = message.punctuation;
        ready?.resolve();
        ready = undefined;
        return;
      case 'failed':
        ready?.reject(new SherpaProcessError(message.message, output));
        ready = undefined;
        return;
      case 'events':
        if (message.heard !== undefined) {
          backlog -= message.heard;
          wakeBacklog();
        }
        if (message.events.length > 0)
          for (const listener of eventListeners) listener(message.events);
        return;
      case 'finished':
      case 'transcribed': {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        waiter?.resolve(message.type === 'transcribed' ? message.text : '');
        return;
      }
      case 'error': {
        const error = new SherpaProcessError(message.message, output);
        for (const waiter of pending.values()) waiter.reject(error);
        pending.clear();
        return;
      }
    }
  });

  const send = (request: SherpaChildRequest) => {
    if (!child.connected) return false;
    try {
      child.send(request);
      return true;
    } catch {
      return false;
    }
  };
  const ask = (request: (id: number) => SherpaChildRequest) =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      if (!send(request(id))) {
        pending.delete(id);
        reject(new SherpaProcessError('the sherpa-onnx engine process is not running', output));
      }
    });
  const close = async (graceMs = 2000) => {
    closing = true;
    if (child.exitCode === null && child.signalCode === null) {
      send({ type: 'close' });
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      timer.unref();
      await exited;
      clearTimeout(timer);
    }
  };

  try {
    await new Promise<void>((resolve, reject) => {
      ready = { resolve, reject };
      send({ type: 'load', config });
    });
  } catch (error) {
    await close(500);
    throw error;
  }

  return {
    pid: child.pid,
    punctuated: punctuating && punctuationProblem === undefined,
    punctuationProblem,
    audio(samples, atMs) {
      if (send({ type: 'audio', samples, ...(atMs !== undefined ? { atMs } : {}) }))
        backlog += samples.length;
    },
    caughtUp: (samples) =>
      dead || backlog <= samples
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            backlogWaiters.push({ samples, resolve });
          }),
    finish: async () => {
      await ask((id) => ({ type: 'finish', id }));
    },
    transcribe: (samples) =>
      ask((id) => {
        // Pieces of 10 s: serialising a long recording at once would hold the event loop.
        for (let offset = 0; offset + PIECE < samples.length; offset += PIECE) {
          send({
            type: 'transcribe',
            id,
            samples: samples.slice(offset, offset + PIECE),
            last: false,
          });
        }
        const tail = Math.max(0, Math.ceil(samples.length / PIECE) - 1) * PIECE;
        return { type: 'transcribe', id, samples: samples.slice(tail), last: true };
      }),
    onEvents(listener) {
      eventListeners.push(listener);
    },
    onExit(listener) {
      exitListeners.push(listener);
    },
    close,
  };
}
