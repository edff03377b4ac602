/**
 * The parent side of the microphone child process (see audio-child.ts): how it is started in the
 * workspace, from npm and inside a single-file executable, and a small handle to talk to it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { workerUrl } from '../assets.ts';
import { AUDIO_CHILD_FLAG, type AudioChildMessage, type AudioChildRequest } from './audio-child.ts';

/**
 * Whether this process is a single-executable application. `node:sea` is read at run time:
 * bundlers drop the `node:` prefix of a static import, and `sea` alone is not a module.
 */
function isSingleExecutable(): boolean {
  const sea = process.getBuiltinModule?.('node:sea') as { isSea?: () => boolean } | undefined;
  return sea?.isSea?.() ?? false;
}

/**
 * How the packaged backend starts itself again (the audio child, the sherpa engine, the MCP
 * server command it shows): a single executable runs itself; the macOS app's backend, one bundled
 * script run by Node's own binary, names that script (`CLASS_ASSISTANT_BACKEND_SCRIPT`, set by its
 * loader). Undefined in the workspace and from npm, where each child has its own script file.
 */
export function packagedSelf(): { command: string; args: string[] } | undefined {
  if (isSingleExecutable()) return { command: process.execPath, args: [] };
  const script = process.env.CLASS_ASSISTANT_BACKEND_SCRIPT;
  if (script) return { command: process.execPath, args: [script] };
  return undefined;
}

/** The command that starts the audio child. */
function audioChildCommand(): { command: string; args: string[] } {
  // A single-file executable has no script files: it runs itself with the flag, and its entry
  // (src/main.ts) hands over to runAudioChild.
  const self = packagedSelf();
  if (self) return { command: self.command, args: [...self.args, AUDIO_CHILD_FLAG] };
  return {
    command: process.execPath,
    args: [fileURLToPath(workerUrl('audio-child')), AUDIO_CHILD_FLAG],
  };
}

/** How the child ended. */
interface AudioChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines it printed (PortAudio and ALSA diagnostics), for error messages and logs. */
  output: string;
}

/** A running audio child. */
export interface AudioChild {
  readonly pid: number | undefined;
  onMessage(listener: (message: AudioChildMessage) => void): void;
  /** Resolves once the process has exited. */
  readonly exited: Promise<AudioChildExit>;
  /** Asks the child to stop, waits up to `graceMs`, then kills it. */
  stop(graceMs?: number): Promise<AudioChildExit>;
  /** What it printed so far (last 8 KiB). */
  output(): string;
}

const OUTPUT_LIMIT = 8192;

/**
 * Starts the audio child with a request.
 *
 * @example
 * const child = startAudioChild({ mode: 'probe', device: undefined, sampleRate: 16000, channels: 1, chunkBytes: 3200 });
 * child.onMessage((message) => console.log(message.type));
 * await child.exited;
 */
export function startAudioChild(
  request: AudioChildRequest,
  options: { environment?: NodeJS.ProcessEnv } = {},
): AudioChild {
  const { command, args } = audioChildCommand();
  const child: ChildProcess = spawn(command, [...args, JSON.stringify(request)], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'advanced',
    env: options.environment ?? process.env,
    windowsHide: true,
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const listeners: Array<(message: AudioChildMessage) => void> = [];
  child.on('message', (message: AudioChildMessage) => {
    for (const listener of listeners) listener(message);
  });
  const exited = new Promise<AudioChildExit>((resolve) => {
    let done = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (done) return;
      done = true;
      resolve({ code, signal, output });
    };
    child.on('exit', finish);
    child.on('error', (error) => {
      output += `\n${error.message}`;
      finish(null, null);
    });
  });
  return {
    pid: child.pid,
    onMessage(listener) {
      listeners.push(listener);
    },
    exited,
    async stop(graceMs = 2000) {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          if (child.connected) child.send({ type: 'stop' });
        } catch {
          // The channel is closing anyway.
        }
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        timer.unref();
        const result = await exited;
        clearTimeout(timer);
        return result;
      }
      return exited;
    },
    output: () => output,
  };
}

/**
 * Lines of child output worth showing a student: ALSA's configuration chatter (one line per PCM
 * it cannot find) and PortAudio's banners are dropped.
 */
export function summariseChildOutput(output: string, maxLines = 3): string {
  const lines = output
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(
      (line) =>
        line !== '' &&
        !/^ALSA lib /.test(line) &&
        !/^(PortAudio V|Input audio options|Output audio options|Input device name|Output device name)/.test(
          line,
        ),
    );
  return lines.slice(-maxLines).join(' | ');
}
