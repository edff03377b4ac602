// AUDIO_INPUT=system for real: a private PulseAudio server with a null sink as the default output
// (what a laptop's speakers are to an online class), espeak-ng speech played into it with paplay,
// and a backend process whose capture child records the sink's monitor through ALSA's pulse
// device, PortAudio and naudiodon, as it would on a student's Linux desktop.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemSoundSupport } from '../src/audio/system-sound.ts';
import { type BackendProcess, startBackendProcess } from './support/backend-process.ts';
import { type ClassClient, classClient } from './support/class-client.ts';
import { waitFor } from './support/harness.ts';
import { type SpokenSentence, speechRecording, words } from './support/speech.ts';

const run = promisify(execFile);

const LECTURE: readonly SpokenSentence[] = [
  { text: 'good morning everyone', pauseAfterMs: 1500 },
  { text: 'today we will talk about binary search trees', pauseAfterMs: 1500 },
  { text: 'please open your books to page ten', pauseAfterMs: 2500 },
];

let folder: string;
let pulse: ChildProcess | undefined;
let environment: NodeJS.ProcessEnv;
let backend: BackendProcess | undefined;
let client: ClassClient | undefined;
let player: ChildProcess | undefined;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'system-sound-'));
  const runtime = join(folder, 'runtime');
  const home = join(folder, 'home');
  await mkdir(runtime, { recursive: true });
  await mkdir(home, { recursive: true });
  await chmod(runtime, 0o700);
  const script = join(folder, 'default.pa');
  await writeFile(
    script,
    [
      'load-module module-native-protocol-unix auth-anonymous=1',
      'load-module module-null-sink sink_name=classroom',
      'set-default-sink classroom',
      // The "microphone": another sink's monitor as the default input, so only the default
      // output's monitor carries what the computer plays.
      'load-module module-null-sink sink_name=microphone',
      'set-default-source microphone.monitor',
      '',
    ].join('\n'),
  );
  environment = {
    ...process.env,
    XDG_RUNTIME_DIR: runtime,
    HOME: home,
    PULSE_SERVER: undefined,
    PULSE_SOURCE: undefined,
  };
  pulse = spawn(
    'pulseaudio',
    ['-n', '--daemonize=no', '--exit-idle-time=-1', '--disallow-exit', '-F', script],
    { env: environment, stdio: 'ignore' },
  );
  await waitFor(
    () =>
      run('pactl', ['info'], { env: environment }).then(
        ({ stdout }) => stdout.includes('Default Source: microphone.monitor'),
        () => false,
      ),
    30_000,
    'the private PulseAudio server to answer',
  );
}, 60_000);

afterAll(async () => {
  if (pulse && pulse.exitCode === null) {
    const exited = new Promise((resolve) => pulse!.once('exit', resolve));
    pulse.kill('SIGTERM');
    await exited;
  }
  await rm(folder, { recursive: true, force: true });
});

afterEach(async () => {
  player?.kill('SIGKILL');
  player = undefined;
  client?.close();
  client = undefined;
  await backend?.stop();
  backend = undefined;
});

describe('the computer’s sound on Linux (AUDIO_INPUT=system)', () => {
  it('is offered when a sound server answers, and explained when none does', async () => {
    expect(await systemSoundSupport('linux', environment)).toEqual({
      available: true,
      message: null,
    });
    const none = await systemSoundSupport('linux', {
      XDG_RUNTIME_DIR: join(folder, 'home'),
    });
    expect(none.available).toBe(false);
    expect(none.message?.en).toContain('No sound server (PulseAudio or PipeWire) answers');
    expect(none.message?.zh).toContain('找不到声音服务');
    const mac = await systemSoundSupport('darwin', environment);
    expect(mac.message?.en).toContain('BlackHole');
    const windows = await systemSoundSupport('win32', environment);
    expect(windows.message?.en).toContain('Share system audio');

    backend = await startBackendProcess(
      ['ASR_MODE=local', 'LOCAL_ASR_ENGINE=pocketsphinx', 'AUDIO_INPUT=system'],
      environment,
    );
    const sources = await (await fetch(`${backend.base}/api/audio_sources`)).json();
    expect(sources).toEqual({
      platform: 'linux',
      microphone: { available: true, message: null },
      system: { available: true, message: null },
    });
    // The check before class opens the monitor as it would a microphone.
    const check = await (await fetch(`${backend.base}/api/check_mic`)).json();
    expect(check).toMatchObject({
      status: 'ok',
      device: 'Computer sound',
      message: expect.stringContaining("The computer's sound can be recorded"),
    });
    await backend.stop();

    // No sound server: said in the student's language, at the check and before the class.
    backend = await startBackendProcess(
      ['ASR_MODE=local', 'LOCAL_ASR_ENGINE=pocketsphinx', 'AUDIO_INPUT=system'],
      { ...environment, XDG_RUNTIME_DIR: join(folder, 'home') },
    );
    const refused = await (
      await fetch(`${backend.base}/api/check_mic`, { headers: { 'accept-language': 'zh-CN' } })
    ).json();
    expect(refused).toMatchObject({
      status: 'error',
      error_code: 'AUDIO_DEVICE_UNAVAILABLE',
      message: expect.stringContaining('找不到声音服务'),
    });
    const health = (await (await fetch(`${backend.base}/api/health`)).json()) as {
      asr: { available: boolean; message: string };
    };
    expect(health.asr.available).toBe(false);
    expect(health.asr.message).toContain('No sound server (PulseAudio or PipeWire) answers');
  }, 60_000);

  /** Starts a class with `input` and waits until its capture is open. */
  async function startClass(input: string, device: string): Promise<string> {
    backend = await startBackendProcess(
      ['ASR_MODE=local', 'LOCAL_ASR_ENGINE=pocketsphinx', `AUDIO_INPUT=${input}`],
      environment,
    );
    const base = backend.base;
    client = await classClient(base);
    expect((await client.start({ course_name: 'Online class' })).body).toMatchObject({
      status: 'started',
    });
    // The capture is open once the microphone check sees it in use.
    await waitFor(
      async () => {
        const mic = (await (await fetch(`${base}/api/check_mic`)).json()) as {
          in_use?: boolean;
          device?: string;
        };
        return mic.in_use === true && mic.device?.startsWith(device);
      },
      30_000,
      'the computer sound capture to open',
    );
    return base;
  }

  /** Waits until at least `least` of the words of `sentences` are in the transcript. */
  async function heard(sentences: readonly SpokenSentence[], least: number) {
    const spoken = words(sentences.map((sentence) => sentence.text).join(' '));
    let said = '';
    await waitFor(
      async () => {
        said = (await client!.transcript()).map((entry) => entry.text).join(' ');
        const known = new Set(words(said));
        return spoken.filter((word) => known.has(word)).length >= least;
      },
      120_000,
      'the spoken words in the transcript',
    ).catch(async (error: Error) => {
      const status = await (await fetch(`${backend!.base}/api/monitor_status`)).text();
      throw new Error(`${error.message}; the transcript said: "${said}"; the class: ${status}`);
    });
  }

  it('hears what the computer plays: a class transcribes speech played into the default output', async () => {
    const lecture = await speechRecording(LECTURE, { name: 'system-sound' });
    await startClass('system', 'Computer sound');
    player = spawn('paplay', [lecture.path], { env: environment, stdio: 'ignore' });
    await heard(LECTURE, 7);
  }, 240_000);

  it('system+mic hears the computer and the microphone in one class', async () => {
    const online = await speechRecording(LECTURE.slice(0, 2), { name: 'system-part' });
    const asked = await speechRecording(LECTURE.slice(2), { name: 'microphone-part' });
    await startClass('system+mic', 'Computer sound + ');
    player = spawn('paplay', [online.path], { env: environment, stdio: 'ignore' });
    await heard(LECTURE.slice(0, 2), 5);
    // The student speaks: the default input (the "microphone" sink's monitor) carries it.
    player = spawn('paplay', ['-d', 'microphone', asked.path], {
      env: environment,
      stdio: 'ignore',
    });
    await heard(LECTURE.slice(2), 4);
  }, 240_000);
});
