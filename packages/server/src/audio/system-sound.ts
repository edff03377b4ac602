/**
 * The computer's own sound (AUDIO_INPUT=system): what it plays, as an online class is heard. On
 * Linux the sound server (PulseAudio, or PipeWire's PulseAudio service) offers every output as a
 * "monitor" source; the capture child opens ALSA's `pulse` device with PULSE_SOURCE naming the
 * default output's monitor, so the usual capture path records it. macOS and Windows have no such
 * source without an extra driver: there the app window captures it instead.
 */
import { connect } from 'node:net';
import { join } from 'node:path';
import { type Localized, localized } from '../language.ts';

/** The PortAudio (ALSA) device that reaches the sound server. */
export const SYSTEM_SOUND_DEVICE = 'pulse';

/** PULSE_SOURCE's name for the monitor of the default output, whichever it is. */
const DEFAULT_MONITOR = '@DEFAULT_MONITOR@';

/** Whether this machine can capture its own sound natively, and what to do if not. */
export interface SystemSoundSupport {
  available: boolean;
  /** What to do instead (null when available). */
  message: Localized | null;
}

/**
 * The environment of the capture child for the computer's sound: the monitor of the default
 * output, unless PULSE_SOURCE already names a source (a student who picked another output).
 */
export function systemSoundEnvironment(environment: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const chosen = environment.PULSE_SOURCE?.trim();
  return { ...environment, PULSE_SOURCE: chosen ? chosen : DEFAULT_MONITOR };
}

/**
 * The sound server's socket: PULSE_SERVER (`unix:/path` or a bare path), else
 * `$XDG_RUNTIME_DIR/pulse/native`. Undefined when it cannot be told (a TCP server is trusted as is).
 */
function soundServerSocket(environment: NodeJS.ProcessEnv): string | undefined {
  const server = environment.PULSE_SERVER?.trim();
  if (server) {
    // The first entry of a list; tcp: servers are not probed.
    const first = server.split(/\s+/)[0]!;
    if (first.startsWith('unix:')) return first.slice(5);
    return first.startsWith('/') ? first : undefined;
  }
  const runtime = environment.XDG_RUNTIME_DIR?.trim();
  return runtime ? join(runtime, 'pulse', 'native') : undefined;
}

function answers(socket: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const connection = connect(socket);
    const done = (result: boolean) => {
      clearTimeout(timer);
      connection.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    connection.once('connect', () => done(true));
    connection.once('error', () => done(false));
  });
}

const ELSEWHERE = {
  win32: localized(
    'Windows 没有不装驱动就能录下电脑声音的原生方式。请在应用窗口里选择“电脑声音（在线课）”：Chromium 会请你选择要共享的屏幕，并勾选“共享系统音频”。',
    'Windows has no native way to record the sound of this computer without an extra driver. Choose "Computer sound (online class)" in the app window: Chromium asks which screen to share; tick "Share system audio".',
  ),
  darwin: localized(
    'macOS 不装驱动就无法录下电脑声音。请在应用窗口里选择“电脑声音（在线课）”并共享播放网课的浏览器标签页（勾选“共享标签页音频”），或安装 BlackHole 等回环驱动，再把它设为麦克风（AUDIO_INPUT=mic:BlackHole）。',
    'macOS cannot record the sound of this computer without an extra driver. Choose "Computer sound (online class)" in the app window and share the browser tab that plays the class (tick "Share tab audio"), or install a loopback driver such as BlackHole and use it as the microphone (AUDIO_INPUT=mic:BlackHole).',
  ),
  other: localized(
    '这个系统不能在后端录下电脑声音。请在应用窗口里选择“电脑声音（在线课）”，共享屏幕或标签页时勾选共享音频。',
    'This system cannot record the sound of this computer in the backend. Choose "Computer sound (online class)" in the app window and tick sharing audio when you share the screen or tab.',
  ),
};

/**
 * Whether AUDIO_INPUT=system can work here: Linux with a sound server that answers on its socket.
 * Cheap (one local connection attempt), for /api/health and GET /api/audio_sources.
 *
 * @example
 * const support = await systemSoundSupport(process.platform, process.env);
 * if (!support.available) console.log(support.message?.en);
 */
export async function systemSoundSupport(
  platform: NodeJS.Platform,
  environment: NodeJS.ProcessEnv,
  timeoutMs = 1000,
): Promise<SystemSoundSupport> {
  if (platform === 'win32' || platform === 'darwin') {
    return { available: false, message: ELSEWHERE[platform] };
  }
  if (platform !== 'linux') return { available: false, message: ELSEWHERE.other };
  const socket = soundServerSocket(environment);
  if (environment.PULSE_SERVER?.trim() && socket === undefined) {
    return { available: true, message: null };
  }
  if (socket && (await answers(socket, timeoutMs))) return { available: true, message: null };
  return {
    available: false,
    message: localized(
      `找不到声音服务（PulseAudio 或 PipeWire），所以后端录不到电脑声音${socket ? `（${socket} 没有回应）` : ''}。请在桌面会话中启动本应用，或安装并启动 pipewire-pulse / pulseaudio；也可以在应用窗口里选择“电脑声音（在线课）”，共享播放网课的浏览器标签页。`,
      `No sound server (PulseAudio or PipeWire) answers${socket ? ` at ${socket}` : ''}, so the backend cannot record the sound of this computer. Start the app inside your desktop session, or install and start pipewire-pulse or pulseaudio; or choose "Computer sound (online class)" in the app window and share the browser tab that plays the class.`,
    ),
  };
}
