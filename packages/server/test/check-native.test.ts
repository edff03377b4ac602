// `class-assistant-backend check-native` as a user (or the release build) runs it: a real process
// loading the real koffi, libvosk and sherpa-onnx, which runs the real Silero VAD.
import type { ChildProcess } from 'node:child_process';
import { cp, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assetPath } from '../src/assets.ts';
import { sherpaOnnxPlatformPackage } from '../src/audio/native.ts';
import { spawnBin } from './support/bin-process.ts';

const require = createRequire(import.meta.url);
const children: ChildProcess[] = [];
const folders: string[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

interface Checked {
  code: number | null;
  modules: Record<string, { loaded: boolean; detail: string }>;
}

async function checkNative(env: Record<string, string> = {}): Promise<Checked> {
  const started = spawnBin(['check-native', '--json'], env);
  children.push(started.child);
  const code = await started.exited;
  const { stdout, stderr } = started.output();
  let parsed: { native_modules: Array<{ name: string; loaded: boolean; detail: string }> };
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new Error(`check-native printed no JSON (exit ${code}):\n${stdout}\n${stderr}`);
  }
  return {
    code,
    modules: Object.fromEntries(
      parsed.native_modules.map(({ name, loaded, detail }) => [name, { loaded, detail }]),
    ),
  };
}

describe('class-assistant-backend check-native', () => {
  it('loads koffi, libvosk and sherpa-onnx, whose Silero VAD hears nothing in silence', async () => {
    const checked = await checkNative();
    expect(checked.code).toBe(0);
    expect(Object.keys(checked.modules)).toEqual(['koffi', 'vosk', 'sherpa-onnx']);
    expect(checked.modules.koffi!.loaded).toBe(true);
    expect(checked.modules.vosk).toMatchObject({
      loaded: true,
      detail: expect.stringMatching(/libvosk\.so$/),
    });
    expect(checked.modules['sherpa-onnx']).toEqual({
      loaded: true,
      detail: expect.stringMatching(
        /^sherpa-onnx \d+\.\d+\.\d+ \(onnxruntime \d+\.\d+\.\d+\) from .*sherpa-onnx\.node; Silero VAD .*: no speech in 1 s of silence$/,
      ),
    });
    expect(checked.modules['sherpa-onnx']!.detail).toContain(
      assetPath('silero-vad/silero_vad.onnx'),
    );
  });

  it('fails, naming the piece, when the sherpa-onnx addon is there but does not load', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'check-native-'));
    folders.push(folder);
    const sherpa = await realpath(dirname(require.resolve('sherpa-onnx-node/package.json')));
    const platformPackage = sherpaOnnxPlatformPackage();
    await cp(sherpa, join(folder, 'sherpa-onnx-node'), { recursive: true, dereference: true });
    await cp(join(sherpa, '..', platformPackage), join(folder, platformPackage), {
      recursive: true,
      dereference: true,
    });
    const env = { CLASS_ASSISTANT_NATIVE_MODULES: folder };
    // The whole platform package: sherpa-onnx loads from the folder (koffi and libvosk are not there).
    const complete = await checkNative(env);
    expect(complete.code).toBe(1);
    expect(complete.modules['sherpa-onnx']).toMatchObject({ loaded: true });
    expect(complete.modules['sherpa-onnx']!.detail).toContain(join(folder, platformPackage));
    expect(complete.modules.koffi).toEqual({
      loaded: false,
      detail: expect.stringContaining(`CLASS_ASSISTANT_NATIVE_MODULES=${folder}`),
    });
    // An addon file that is no library: /api/health would still find the file; the check says
    // it did not load, and where it must come from.
    await writeFile(join(folder, platformPackage, 'sherpa-onnx.node'), 'not a library');
    const broken = await checkNative(env);
    expect(broken.code).toBe(1);
    expect(broken.modules['sherpa-onnx']).toEqual({
      loaded: false,
      detail: expect.stringContaining(
        `its native part for ${process.platform}-${process.arch} did not load`,
      ),
    });
    expect(broken.modules['sherpa-onnx']!.detail).toContain(platformPackage);
  });

  it('is listed in the help, has its own, and refuses an unknown option', async () => {
    const help = spawnBin(['--help']);
    children.push(help.child);
    expect(await help.exited).toBe(0);
    expect(help.output().stdout).toContain('class-assistant-backend check-native [--json]');
    const own = spawnBin(['check-native', '--help']);
    children.push(own.child);
    expect(await own.exited).toBe(0);
    expect(own.output().stdout).toContain(
      'Exit codes: 0 every piece loaded, 1 one did not, 2 usage.',
    );
    const wrong = spawnBin(['check-native', '--verbose']);
    children.push(wrong.child);
    expect(await wrong.exited).toBe(2);
    expect(wrong.output().stderr).toContain(
      "class-assistant-backend check-native: Unknown option '--verbose'",
    );
  });
});
