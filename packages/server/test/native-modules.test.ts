// How native pieces are found, as the packaged build uses it: CLASS_ASSISTANT_NATIVE_MODULES
// names a folder beside the executable holding koffi (+ @koromix/koffi-<platform>), naudiodon and
// vosk. Each case runs in a fresh process (native modules are loaded once per process).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startBackendProcess } from './support/backend-process.ts';
import { waitFor } from './support/harness.ts';

const run = promisify(execFile);
const NATIVE = fileURLToPath(new URL('../src/audio/native.ts', import.meta.url));
const require = createRequire(import.meta.url);
const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function packageFolder(name: string): Promise<string> {
  // koffi's exports hide package.json: its main entry sits at the package root.
  return realpath(dirname(require.resolve(name === 'koffi' ? 'koffi' : `${name}/package.json`)));
}

/** Runs `code` (an ES module body with `native` imported) with the variable set. */
async function inFreshProcess(folder: string | undefined, code: string): Promise<unknown> {
  const script = `import * as native from ${JSON.stringify(NATIVE)};\n${code}`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      ...process.env,
      ...(folder ? { CLASS_ASSISTANT_NATIVE_MODULES: folder } : {}),
    },
  });
  return JSON.parse(stdout);
}

describe('CLASS_ASSISTANT_NATIVE_MODULES', () => {
  it('loads koffi and libvosk from the folder, not from the package', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'native-modules-'));
    folders.push(folder);
    const koffi = await packageFolder('koffi');
    const platform = `koffi-${process.platform}-${process.arch}`;
    await cp(koffi, join(folder, 'koffi'), { recursive: true, dereference: true });
    await cp(join(koffi, '..', '@koromix', platform), join(folder, '@koromix', platform), {
      recursive: true,
      dereference: true,
    });
    const vosk = await packageFolder('vosk');
    await mkdir(join(folder, 'vosk', 'lib', 'linux-x86_64'), { recursive: true });
    await cp(join(vosk, 'package.json'), join(folder, 'vosk', 'package.json'));
    await cp(
      join(vosk, 'lib', 'linux-x86_64', 'libvosk.so'),
      join(folder, 'vosk', 'lib', 'linux-x86_64', 'libvosk.so'),
    );
    const result = (await inFreshProcess(
      folder,
      `const vosk = native.voskLibraryPath();
       const library = native.loadLibrary(vosk);
       library.func('void vosk_set_log_level(int)')(-1);
       const model = library.func('void* vosk_model_new(const char*)')('/no/such/model');
       let microphone;
       try { native.naudiodonAddonPath(); } catch (error) { microphone = { code: error.code, message: error.message }; }
       console.log(JSON.stringify({ vosk, model, microphone, report: native.nativeModulesReport() }));`,
    )) as {
      vosk: string;
      model: null;
      microphone: { code: string; message: string };
      report: Array<{ name: string; available: boolean; detail: string }>;
    };
    expect(result.vosk).toBe(join(folder, 'vosk', 'lib', 'linux-x86_64', 'libvosk.so'));
    // libvosk answered through koffi loaded from the folder.
    expect(result.model).toBeNull();
    expect(result.microphone.code).toBe('NATIVE_MODULE_MISSING');
    expect(result.microphone.message).toContain(`CLASS_ASSISTANT_NATIVE_MODULES=${folder}`);
    expect(result.report).toEqual([
      expect.objectContaining({
        name: 'koffi',
        available: true,
        detail: join(folder, 'koffi', '..', '@koromix', platform),
      }),
      expect.objectContaining({ name: 'naudiodon', available: false }),
      expect.objectContaining({ name: 'vosk', available: true }),
      expect.objectContaining({ name: 'sherpa-onnx', available: false }),
    ]);
  });

  it('loads sherpa-onnx from the folder: its JavaScript and the platform package beside it', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'native-modules-'));
    folders.push(folder);
    const sherpa = await packageFolder('sherpa-onnx-node');
    const platformPackage = `sherpa-onnx-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
    await cp(sherpa, join(folder, 'sherpa-onnx-node'), { recursive: true, dereference: true });
    const script = `const sherpa = native.loadSherpaOnnx();
       const report = native.nativeModulesReport().find((item) => item.name === 'sherpa-onnx');
       console.log(JSON.stringify({ version: sherpa.version, report }));`;
    // Without its platform package the report and the loader both say which package is missing.
    await expect(inFreshProcess(folder, script)).rejects.toThrow(
      new RegExp(`${platformPackage} is not next to it`),
    );
    await cp(join(sherpa, '..', platformPackage), join(folder, platformPackage), {
      recursive: true,
      dereference: true,
    });
    const result = (await inFreshProcess(folder, script)) as {
      version: string;
      report: { available: boolean; detail: string };
    };
    expect(result.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(result.report).toMatchObject({
      available: true,
      detail: join(folder, 'sherpa-onnx-node', '..', platformPackage, 'sherpa-onnx.node'),
    });
  });

  it('without the variable, uses the package dependencies', async () => {
    const result = (await inFreshProcess(
      undefined,
      'console.log(JSON.stringify({ addon: native.naudiodonAddonPath(), vosk: native.voskLibraryPath() }));',
    )) as { addon: string; vosk: string };
    expect(result.addon).toBe(
      join(await packageFolder('naudiodon'), 'build', 'Release', 'naudiodon.node'),
    );
    // Our per-platform package first (once built or installed from npm), else the vosk package.
    const own = join(
      await packageFolder('@class-assistant/libvosk-linux-x64'),
      'lib',
      'libvosk.so',
    );
    expect(result.vosk).toBe(
      existsSync(own)
        ? own
        : join(await packageFolder('vosk'), 'lib', 'linux-x86_64', 'libvosk.so'),
    );
  });

  it('prefers our per-platform libvosk package to the vosk package in the folder', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'native-modules-'));
    folders.push(folder);
    const vosk = await packageFolder('vosk');
    const ownPackage = join(folder, '@class-assistant', 'libvosk-linux-x64');
    await mkdir(join(ownPackage, 'lib'), { recursive: true });
    await cp(
      join(await packageFolder('@class-assistant/libvosk-linux-x64'), 'package.json'),
      join(ownPackage, 'package.json'),
    );
    await cp(
      join(vosk, 'lib', 'linux-x86_64', 'libvosk.so'),
      join(ownPackage, 'lib', 'libvosk.so'),
    );
    await mkdir(join(folder, 'vosk', 'lib', 'linux-x86_64'), { recursive: true });
    await cp(join(vosk, 'package.json'), join(folder, 'vosk', 'package.json'));
    const pick = () =>
      inFreshProcess(folder, 'console.log(JSON.stringify(native.voskLibraryPath()));');
    expect(await pick()).toBe(join(ownPackage, 'lib', 'libvosk.so'));
    // Without its library file, the package is passed over with a message naming both places.
    await rm(join(ownPackage, 'lib'), { recursive: true });
    await expect(pick()).rejects.toThrow(/libvosk is missing from .*libvosk-linux-x64.*and .*vosk/);
  });

  it('a backend with an empty native folder starts, runs a mock class, and says what is missing', async () => {
    const native = await mkdtemp(join(tmpdir(), 'native-empty-'));
    folders.push(native);
    const backend = await startBackendProcess(
      ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=50', 'LOG_LEVEL=warn'],
      { ...process.env, CLASS_ASSISTANT_NATIVE_MODULES: native },
    );
    try {
      const base = backend.base;
      const health = (await (await fetch(`${base}/api/health`)).json()) as {
        audio: {
          native_modules_folder: string;
          native_modules: Array<{ name: string; available: boolean; detail: string }>;
        };
      };
      expect(health.audio.native_modules_folder).toBe(native);
      expect(health.audio.native_modules.map((item) => [item.name, item.available])).toEqual([
        ['koffi', false],
        ['naudiodon', false],
        ['vosk', false],
        ['sherpa-onnx', false],
      ]);
      expect(health.audio.native_modules[1]!.detail).toContain('CLASS_ASSISTANT_NATIVE_MODULES');
      const started = await fetch(`${base}/api/start_monitor`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(((await started.json()) as { status: string }).status).toBe('started');
      await waitFor(
        async () =>
          (await readFile(join(backend.dataDir, 'class_transcript.txt'), 'utf8')).includes('] '),
        20_000,
        'a mock line',
      );
      // The microphone check explains instead of failing.
      const mic = (await (await fetch(`${base}/api/check_mic`)).json()) as Record<string, string>;
      expect(mic).toMatchObject({ status: 'error', error_code: 'NATIVE_MODULE_MISSING' });
    } finally {
      await backend.stop();
    }
  });
});
