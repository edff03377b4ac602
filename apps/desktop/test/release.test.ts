// The release as a student gets it: built for this machine, zipped, unpacked into an empty
// folder outside the repository, started with no Node.js on PATH.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRelease, type ReleaseResult } from '../src/release/build-release.ts';
import { hostTarget, TARGETS } from '../src/release/targets.ts';
import { freePort, killAll, listening, start, waitFor } from './support/processes.ts';
import { unzip, zipEntries } from './support/unzip.ts';

const REPO = join(import.meta.dirname, '..', '..', '..');
const target = hostTarget();
let root: string;
let result: ReleaseResult;
let version: string;
const lines: string[] = [];

beforeAll(async () => {
  if (!target) return;
  root = await mkdtemp(join(tmpdir(), 'desktop-release-'));
  // The current version: the build rewrites nothing in the repository.
  version = (
    JSON.parse(await readFile(join(REPO, 'apps', 'desktop', 'app.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  result = await buildRelease({
    version,
    target,
    repoRoot: REPO,
    outDir: join(root, 'release'),
    zipDir: join(root, 'dist'),
    checkPort: await freePort(),
    log: (line) => lines.push(line),
  });
}, 240_000);

afterAll(async () => {
  killAll();
  if (root) await rm(root, { recursive: true, force: true });
});

describe.runIf(target !== undefined)('pnpm release:build', () => {
  it('checks the packaged backend and launcher while building', () => {
    expect(result.versionFilesChanged).toEqual([]);
    expect(result.check?.lines).toBeGreaterThanOrEqual(3);
    expect(result.check?.uploaded).toMatch(/^slides_\d{8}_\d{6}\.txt$/);
    expect(lines.some((line) => line.startsWith('packaged backend: healthy after'))).toBe(true);
    // Its check-native loaded the native pieces, sherpa-onnx running the Silero VAD.
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^packaged backend loads koffi, vosk, sherpa-onnx \(sherpa-onnx [\d.]+ .*: no speech in 1 s of silence\)$/,
      ),
    );
    expect(lines.some((line) => line.startsWith('packaged launcher: backend healthy after'))).toBe(
      true,
    );
  });

  it('lays out release/ as the README describes it and leaves the shipped settings untouched', async () => {
    const release = result.outDir;
    const example = await readFile(join(release, 'backend', '.env.example'), 'utf8');
    expect(await readFile(join(release, 'backend', '.env'), 'utf8')).toBe(example);
    // The packaged app listens through its own window: no native audio addon on any OS.
    expect(example).toMatch(/^AUDIO_INPUT=app$/m);
    expect(example).not.toMatch(/^AUDIO_INPUT=mic$/m);
    expect((await stat(join(release, 'backend', '.env'))).mode & 0o777).toBe(0o600);
    expect(example).toMatch(/^ASR_MODE=local$/m);
    for (const path of ['class-assistant', 'backend/class-assistant-backend']) {
      expect((await stat(join(release, path))).mode & 0o111, path).not.toBe(0);
    }
    for (const path of [
      'backend/ui/index.html',
      'backend/assets/mock-lecture.txt',
      'backend/assets/silero-vad/silero_vad.onnx',
      'backend/lib/material-worker.js',
      'backend/lib/audio-keeper-worker.js',
      'README.txt',
    ]) {
      expect((await stat(join(release, path))).isFile(), path).toBe(true);
    }
    // The build's check left its startup diagnostics, and nothing else, in data/.
    expect(await readFile(join(release, 'data', '_startup.log'), 'utf8')).toContain(
      'Class Assistant backend starting',
    );
  });

  it("carries this machine's native modules, every binary the target's", async () => {
    const info = TARGETS[target!];
    expect(result.nativeModules).toEqual({
      copied: [
        'koffi',
        `@koromix/koffi-${info.platform}-x64`,
        'vosk',
        'sherpa-onnx-node',
        info.sherpaOnnxPackage,
        'naudiodon',
      ],
      skipped: [],
      missing: [],
    });
    const paths = result.binaries.map((binary) => binary.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        `backend/node_modules/vosk/lib/${info.voskLibraryFolder}/libvosk${info.platform === 'win32' ? '.dll' : '.so'}`,
        'backend/node_modules/naudiodon/build/Release/naudiodon.node',
        `backend/node_modules/${info.sherpaOnnxPackage}/sherpa-onnx.node`,
      ]),
    );
    for (const binary of result.binaries) {
      expect(binary.kind, binary.path).toMatchObject({
        format: info.binaryFormat,
        architectures: ['x64'],
      });
    }
    // Only the target's folder of vosk's libraries, and none of naudiodon's prebuilt ones.
    const entries = (await zipEntries(result.zipPath!)).map((entry) => entry.name);
    expect(
      entries
        .filter((name) => name.includes('/vosk/lib/'))
        .every((name) => name.includes(`/vosk/lib/${info.voskLibraryFolder}/`)),
    ).toBe(true);
    expect(entries.some((name) => name.includes('/naudiodon/portaudio/'))).toBe(false);
  });

  it('zips it with the version in the name, executables executable and data/ empty', async () => {
    expect(result.zipPath).toBe(join(root, 'dist', `class-assistant-${version}-${target}.zip`));
    const entries = await zipEntries(result.zipPath!);
    const top = `ClassAssistant-${version}/`;
    expect(entries.every((entry) => entry.name.startsWith(top))).toBe(true);
    const mode = (name: string) => entries.find((entry) => entry.name === top + name)?.mode;
    expect(mode('class-assistant')).toBe(0o100755);
    expect(mode('backend/class-assistant-backend')).toBe(0o100755);
    // The settings will hold API keys: owner-only, also after unzip.
    expect(mode('backend/.env')).toBe(0o100600);
    expect(mode('backend/.env.example')).toBe(0o100644);
    expect(mode('data/')).toBe(0o40755);
    expect(entries.filter((entry) => entry.name.startsWith(`${top}data/`))).toHaveLength(1);
  });

  it('the packaged backend takes its options like the source bin: --env-file, --settings-file', async () => {
    const backend = join(
      result.outDir,
      'backend',
      `class-assistant-backend${TARGETS[target!].executableSuffix}`,
    );
    const elsewhere = await mkdtemp(join(tmpdir(), 'desktop-packaged-options-'));
    try {
      for (const flag of ['--env-file', '--settings-file']) {
        const settings = join(elsewhere, `${flag.slice(2)}.env`);
        const port = await freePort();
        const running = start(backend, ['--port', String(port), flag, settings], {
          cwd: elsewhere,
        });
        const health = await waitFor(
          async () => {
            const response = await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => null);
            return response?.ok ? ((await response.json()) as Record<string, unknown>) : undefined;
          },
          `the packaged backend with ${flag}`,
          30_000,
        );
        expect(health).toMatchObject({
          settings_file: settings,
          data_dir: join(elsewhere, 'data'),
        });
        running.child.kill('SIGTERM');
        expect(await running.exited).toEqual({ code: 0, signal: null });
      }
      // A stop that comes while it is still starting is a clean stop too (it was killed by the
      // signal when the handlers came after the start).
      const early = start(
        backend,
        ['--port', String(await freePort()), '--settings-file', join(elsewhere, 'early.env')],
        { cwd: elsewhere },
      );
      await new Promise<void>((resolve) => {
        const seen = () => {
          if (!early.output().includes('Class Assistant backend starting')) return;
          early.child.stdout?.off('data', seen);
          resolve();
        };
        early.child.stdout?.on('data', seen);
      });
      early.child.kill('SIGTERM');
      expect(await early.exited).toEqual({ code: 0, signal: null });
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('starts from the unpacked zip on a machine without Node.js', async () => {
    const machine = await mkdtemp(join(tmpdir(), 'desktop-clean-machine-'));
    try {
      await unzip(result.zipPath!, machine);
      const app = join(machine, `ClassAssistant-${version}`);
      const port = await freePort();
      const emptyPath = join(machine, 'no-tools');
      const launcher = start(
        join(app, 'class-assistant'),
        ['--no-window', '--port', String(port)],
        {
          cwd: machine,
          env: { PATH: emptyPath, HOME: machine },
        },
      );
      await waitFor(() => launcher.output().includes('Press Ctrl-C'), 'the unpacked app', 60_000);
      const health = (await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()) as Record<
        string,
        unknown
      >;
      expect(health).toMatchObject({
        status: 'healthy',
        settings_file: join(app, 'backend', '.env'),
        data_dir: join(app, 'data'),
        asr: { mode: 'local', available: false },
      });
      // The backend finds the native modules in the unpacked release, nowhere else.
      const modules = join(app, 'backend', 'node_modules');
      expect(health.audio).toMatchObject({
        native_modules_folder: modules,
        native_modules: [
          { name: 'koffi', available: true, detail: join(modules, '@koromix', 'koffi-linux-x64') },
          {
            name: 'naudiodon',
            available: true,
            detail: join(modules, 'naudiodon', 'build', 'Release', 'naudiodon.node'),
          },
          {
            name: 'vosk',
            available: true,
            detail: join(modules, 'vosk', 'lib', 'linux-x86_64', 'libvosk.so'),
          },
          {
            name: 'sherpa-onnx',
            available: true,
            detail: join(modules, 'sherpa-onnx-linux-x64', 'sherpa-onnx.node'),
          },
        ],
      });
      // And loads them there: sherpa-onnx runs the Silero VAD of the unpacked assets.
      const checked = start(join(app, 'backend', 'class-assistant-backend'), ['check-native'], {
        cwd: machine,
        env: { PATH: emptyPath, HOME: machine },
      });
      expect((await checked.exited).code, checked.output()).toBe(0);
      expect(checked.output()).toContain(
        `ok   sherpa-onnx: sherpa-onnx ${(JSON.parse(await readFile(join(modules, 'sherpa-onnx-node', 'package.json'), 'utf8')) as { version: string }).version}`,
      );
      expect(checked.output()).toContain(
        `Silero VAD ${join(app, 'backend', 'assets', 'silero-vad', 'silero_vad.onnx')}: no speech in 1 s of silence`,
      );
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toContain('<div id="app">');
      launcher.child.kill('SIGTERM');
      expect((await launcher.exited).code).toBe(0);
      expect(await listening(port)).toBe(false);
      const startupLog = await readFile(join(app, 'data', '_startup.log'), 'utf8');
      expect(startupLog).toContain('not configured: AI features');
      expect(startupLog).toContain('"msg":"stopped"');
    } finally {
      await rm(machine, { recursive: true, force: true });
    }
  });
});
