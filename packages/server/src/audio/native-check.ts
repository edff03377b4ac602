/**
 * `class-assistant-backend check-native`: loads the native pieces of the local mode the way a
 * class would — koffi, libvosk through it, and sherpa-onnx, which then runs the bundled Silero VAD
 * over a second of silence — and says for each whether it works. /api/health only says where
 * each piece would be loaded from; this proves it loads on this machine (a packaged release is
 * checked with it). The microphone addon is left out: the microphone test in the app opens it.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { assetPath } from '../assets.ts';
import {
  loadKoffi,
  loadLibrary,
  loadSherpaOnnx,
  sherpaOnnxAddonPath,
  voskLibraryPath,
} from './native.ts';

/** Usage text of `class-assistant-backend check-native --help`. */
const CHECK_NATIVE_USAGE = `class-assistant-backend check-native — load the offline recognition libraries

Usage: class-assistant-backend check-native [--json]

Loads koffi, libvosk and sherpa-onnx (running the Silero VAD over a second of silence) from
where the server would load them, and prints one line per piece.

Options:
  --json      one JSON object: {"native_modules":[{"name","loaded","detail"}]}
  -h, --help  show this help

Exit codes: 0 every piece loaded, 1 one did not, 2 usage.`;

/** One native piece as the check found it. */
interface NativeLoadResult {
  name: 'koffi' | 'vosk' | 'sherpa-onnx';
  loaded: boolean;
  /** What was loaded from where, or why it did not load. */
  detail: string;
}

/** The part of sherpa-onnx-node's API the check uses. */
interface SherpaVadApi {
  version: string;
  onnxruntimeVersion: string;
  Vad: new (
    config: {
      sileroVad: {
        model: string;
        threshold: number;
        minSilenceDuration: number;
        minSpeechDuration: number;
        windowSize: number;
      };
      sampleRate: number;
      numThreads: number;
      debug: number;
    },
    bufferSizeInSeconds: number,
  ) => {
    acceptWaveform(samples: Float32Array): void;
    flush(): void;
    isEmpty(): boolean;
  };
}

/** The Silero VAD graph shipped in the assets (MIT; see assets/silero-vad/README.md). */
const SILERO_VAD_ASSET = 'silero-vad/silero_vad.onnx';

const SAMPLE_RATE = 16_000;

/** sherpa-onnx loads, and its Silero VAD finds no speech in a second of silence. */
function checkSherpaOnnx(): string {
  const addon = sherpaOnnxAddonPath();
  const sherpa = loadSherpaOnnx<SherpaVadApi>();
  const model = assetPath(SILERO_VAD_ASSET);
  // sherpa-onnx does not throw for a missing model: it prints, and its VAD then detects nothing.
  if (!existsSync(model)) throw new Error(`the Silero VAD model ${model} is missing`);
  const vad = new sherpa.Vad(
    {
      sileroVad: {
        model,
        threshold: 0.5,
        minSilenceDuration: 0.25,
        minSpeechDuration: 0.25,
        windowSize: 512,
      },
      sampleRate: SAMPLE_RATE,
      numThreads: 1,
      debug: 0,
    },
    2,
  );
  const silence = new Float32Array(SAMPLE_RATE);
  for (let start = 0; start < silence.length; start += 512) {
    vad.acceptWaveform(silence.subarray(start, start + 512));
  }
  vad.flush();
  if (!vad.isEmpty()) throw new Error('the Silero VAD heard speech in a second of silence');
  return `sherpa-onnx ${sherpa.version} (onnxruntime ${sherpa.onnxruntimeVersion}) from ${addon}; Silero VAD ${model}: no speech in 1 s of silence`;
}

/** Loads each piece; never throws. */
function checkNativeModules(): NativeLoadResult[] {
  const check = (name: NativeLoadResult['name'], load: () => string): NativeLoadResult => {
    try {
      return { name, loaded: true, detail: load() };
    } catch (error) {
      return { name, loaded: false, detail: (error as Error).message };
    }
  };
  return [
    check('koffi', () => {
      loadKoffi();
      return 'loaded';
    }),
    check('vosk', () => {
      const path = voskLibraryPath();
      loadLibrary(path);
      return path;
    }),
    check('sherpa-onnx', checkSherpaOnnx),
  ];
}

/** Runs `check-native` with the arguments after it; returns the exit code. */
export function runCheckNativeCli(
  args: string[],
  stdout: { write(text: string): unknown } = process.stdout,
  stderr: { write(text: string): unknown } = process.stderr,
): number {
  let values: { json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (error) {
    stderr.write(`class-assistant-backend check-native: ${(error as Error).message}\n`);
    return 2;
  }
  if (values.help) {
    stdout.write(`${CHECK_NATIVE_USAGE}\n`);
    return 0;
  }
  const results = checkNativeModules();
  if (values.json) {
    stdout.write(`${JSON.stringify({ native_modules: results })}\n`);
  } else {
    for (const result of results) {
      stdout.write(`${result.loaded ? 'ok  ' : 'FAIL'} ${result.name}: ${result.detail}\n`);
    }
  }
  return results.every((result) => result.loaded) ? 0 : 1;
}
