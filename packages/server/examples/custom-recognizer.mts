// A recognition mode of your own, registered through the recognizer seam: here another offline
// engine behind the same audio input, speech detection (VAD) and local-mode merging as
// ASR_MODE=local. The engine is a small scripted one — the Nth phrase it hears is the Nth line
// of its script — and the audio a recording this example writes: three phrases of tone between
// stretches of quiet room noise. The app runs in-process and is driven with fastify's inject().
//
//   node examples/custom-recognizer.mts
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeWav } from '@class-assistant/asr-protocol';
import {
  buildApp,
  createPhraseRecognizer,
  createRecognizerRegistry,
  defaultRecognizerDefinitions,
  type RecognizerDefinition,
  type ResolvedSettings,
} from '@class-assistant/server';

const folder = await mkdtemp(join(tmpdir(), 'class-assistant-recognizer-'));
const dataDir = join(folder, 'data');
const envFile = join(folder, '.env');

// The recording: 16 kHz mono, quiet noise with tones where the "speaker" talks.
const RATE = 16000;
let seed = 7;
function noise(): number {
  seed = (seed * 48271) % 2147483647; // a small deterministic generator: a quiet room, ±30
  return (seed % 61) - 30;
}
const samples: number[] = [];
const quiet = (seconds: number) => {
  for (let index = 0; index < seconds * RATE; index++) samples.push(noise());
};
const speak = (seconds: number) => {
  for (let index = 0; index < seconds * RATE; index++)
    samples.push(Math.round(6000 * Math.sin((2 * Math.PI * 220 * index) / RATE)) + noise());
};
quiet(1.5); // the first second calibrates the speech detector
speak(1.6);
quiet(1.5);
speak(0.7);
quiet(1.2);
speak(1.4);
quiet(1.5);
const pcm = new Uint8Array(Int16Array.from(samples).buffer);
await writeFile(join(folder, 'lecture.wav'), encodeWav(pcm, { sampleRate: RATE }));
// A relative AUDIO_INPUT file starts at the folder holding the data folder.
await writeFile(envFile, 'ASR_MODE=local\nAUDIO_INPUT=file:lecture.wav\nAUDIO_FILE_PACE=fast\n');

/** The engine: the Nth phrase decodes to the Nth line of the script. */
async function loadScriptedEngine(settings: ResolvedSettings) {
  const script = ['同学们好，今天讲二叉树。', '张三你来', '回答一下什么是完全二叉树。'];
  let next = 0;
  console.log(`engine loaded for ${settings.audioInput}`);
  return {
    decode(phrase: Int16Array): string {
      const line = script[next++] ?? '';
      console.log(`engine: phrase of ${(phrase.length / RATE).toFixed(1)} s → ${line}`);
      return line;
    },
    free: () => console.log('engine freed'),
  };
}

// #region seam
// Another offline engine behind the same VAD and merging as the local mode.
const local: RecognizerDefinition = {
  mode: 'local',
  description: 'a scripted offline engine',
  // Called by /api/health (keep it cheap) and before start: say what is missing, naming settings.
  async availability(settings) {
    return settings.audioInput.startsWith('file:')
      ? { available: true, detail: 'scripted engine, reading a recording' }
      : {
          available: false,
          message: 'the scripted engine reads a recording: set AUDIO_INPUT=file:PATH',
          settings: ['AUDIO_INPUT'],
        };
  },
  create: (context) =>
    createPhraseRecognizer({
      context,
      emitAs: 'segment',
      async prepare() {
        const engine = await loadScriptedEngine(context.settings);
        return {
          transcribe: async (phrase) => engine.decode(phrase.samples),
          close: () => engine.free(),
        };
      },
    }),
};
const app = await buildApp({
  dataDir,
  envFile,
  recognizers: createRecognizerRegistry([...defaultRecognizerDefinitions(), local]),
});
// #endregion seam

// inject() runs requests in-process. The local guard answers only the server's own name and
// port (8765 until it listens), as the Host header says.
async function call<T>(method: 'GET' | 'POST', url: string): Promise<T> {
  const response = await app.inject({ method, url, headers: { host: '127.0.0.1:8765' } });
  return response.json<T>();
}

const health = await call<{ asr: { mode: string; available: boolean; message: string } }>(
  'GET',
  '/api/health',
);
console.log(
  `health: ASR_MODE ${health.asr.mode}, available: ${health.asr.available} (${health.asr.message})`,
);
console.log(
  `start_monitor: ${(await call<{ status: string }>('POST', '/api/start_monitor')).status}`,
);
let state: string | null = 'running';
while (state === 'running') {
  await new Promise((resolve) => setTimeout(resolve, 100));
  state = (await call<{ recognizer_state: string | null }>('GET', '/api/monitor_status'))
    .recognizer_state;
}
console.log(`recognizer: ${state}`);
const transcript = await call<{ entries: Array<{ id: number; text: string }> }>(
  'GET',
  '/api/transcript',
);
for (const entry of transcript.entries) console.log(`transcript #${entry.id}: ${entry.text}`);
await call('POST', '/api/stop_monitor?with_summary=false');
await app.close();
await rm(folder, { recursive: true });
