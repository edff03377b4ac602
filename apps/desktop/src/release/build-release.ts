// `pnpm release:build <version>` (steps in apps/desktop/README.md): set the version, build the UI,
// bundle the backend and the launcher into Node single executable applications, assemble
// release/, check the packaged backend on port 18765, and write the zip.
import {
  chmod,
  copyFile,
  cp,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeBinaryKind } from './binary-format.ts';
import { bundleBackend, bundleLauncher, VENDORED_FOLDERS } from './bundle.ts';
import { type CheckReport, checkRelease } from './check.ts';
import { BACKEND_ASSETS, backendLoaderSource, makeCodeCache } from './code-cache.ts';
import {
  assembleNativeModules,
  type NativeModulesReport,
  reportedNativeModules,
} from './native-modules.ts';
import { checkReleaseBinaries, filesInFolder, type ReleaseBinary } from './release-binaries.ts';
import { makeSea } from './sea.ts';
import {
  executableNames,
  hostTarget,
  nodeBinaryFor,
  type ReleaseTarget,
  TARGETS,
} from './targets.ts';
import { setReleaseVersion } from './versions.ts';
import { writeReleaseZip } from './zip.ts';

/** apps/desktop. */
const DESKTOP_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** Options of {@link buildRelease}. */
export interface ReleaseOptions {
  version: string;
  target: ReleaseTarget;
  repoRoot: string;
  /** The unpacked release (default <repo>/release). */
  outDir?: string;
  /** Where the zip goes (default <repo>/dist). */
  zipDir?: string;
  /** Skip the zip (tests). */
  zip?: boolean;
  /** Run the packaged check (default: when the target runs on this machine). */
  check?: boolean;
  /** Port of the check (default 18765, app.json). */
  checkPort?: number;
  log(line: string): void;
}

/** What the build produced. */
export interface ReleaseResult {
  outDir: string;
  zipPath?: string;
  launcher: string;
  backend: string;
  check?: CheckReport;
  versionFilesChanged: string[];
  nativeModules: NativeModulesReport;
  /** Every binary of the release with its format, all checked against the target. */
  binaries: ReleaseBinary[];
  /** Seconds per step. */
  timings: Record<string, number>;
}

/** The release's top-level read-me, Chinese and English. */
export function releaseReadme(version: string, target: ReleaseTarget): string {
  const launcher = executableNames(target).launcher;
  const start = target === 'win-x64' ? `双击 ${launcher}` : `运行 ./${launcher}`;
  const startEn = target === 'win-x64' ? `Double-click ${launcher}` : `Run ./${launcher}`;
  return `课堂助手 Class Assistant ${version}

${start}：它会清理残留的后端、启动后端，并用 Chrome / Edge / Chromium 打开 320x80 的悬浮条。
关闭悬浮条窗口即退出。设置保存在 backend/.env（也可以在应用的“设置”面板里修改），
课堂记录、笔记和日志在 data/ 里（启动诊断：data/_startup.log）。
第一次使用请在设置里填写 LLM_API_KEY；没有麦克风或离线模型时，可改用演示模式（ASR_MODE=mock）。

${startEn}: it stops stale backends, starts the backend and opens the 320x80 floating bar in
Chrome, Edge or Chromium. Closing the bar's window quits. Settings are in backend/.env (or the
app's Settings panel); transcripts, notes and logs are in data/ (startup diagnostics:
data/_startup.log). Set LLM_API_KEY in the settings for the AI features; without a microphone
or an offline model, use the demo mode (ASR_MODE=mock).

Options: ${launcher} --help
`;
}

async function timed<T>(
  timings: Record<string, number>,
  step: string,
  run: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    timings[step] = Math.round((performance.now() - started) / 100) / 10;
  }
}

/** Builds the release. */
export async function buildRelease(options: ReleaseOptions): Promise<ReleaseResult> {
  const { repoRoot, target, version, log } = options;
  const timings: Record<string, number> = {};
  const outDir = options.outDir ?? join(repoRoot, 'release');
  const work = await mkdtemp(join(tmpdir(), 'class-assistant-release-'));
  const names = executableNames(target);
  const windows = TARGETS[target].platform === 'win32';
  const runsHere = hostTarget() === target;
  const appConfig = JSON.parse(await readFile(join(DESKTOP_DIR, 'app.json'), 'utf8')) as {
    backend: { releaseCheckPort: number };
  };
  const nodeVersion = (
    JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    }
  ).devDependencies.node;
  if (!nodeVersion || !/^\d+\.\d+\.\d+$/.test(nodeVersion)) {
    throw new Error('the root package.json must pin the `node` devDependency to an exact version');
  }

  const versionFilesChanged = await timed(timings, 'version', () =>
    setReleaseVersion(repoRoot, version),
  );
  log(
    `version ${version}${versionFilesChanged.length > 0 ? ` (set in ${versionFilesChanged.join(', ')})` : ''}`,
  );

  const uiDir = join(work, 'ui');
  await timed(timings, 'ui', async () => {
    const { build } = await import('vite');
    await build({
      configFile: join(DESKTOP_DIR, 'vite.config.ts'),
      logLevel: 'warn',
      build: { outDir: uiDir, emptyOutDir: true },
    });
  });
  log('UI built');

  const requireFromDesktop = createRequire(join(DESKTOP_DIR, 'package.json'));
  const serverDir = dirname(requireFromDesktop.resolve('@class-assistant/server/package.json'));
  const serverManifest = JSON.parse(await readFile(join(serverDir, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  // The bin is a small shim that runs src/main.ts in the workspace; bundle what it runs.
  const serverBin = serverManifest.bin['class-assistant-backend'];
  if (!serverBin) throw new Error('@class-assistant/server has no class-assistant-backend bin');
  const serverMain = join(serverDir, 'src', 'main.ts');

  const bundles = await timed(timings, 'bundle', async () => ({
    backend: await bundleBackend({
      serverMain,
      serverWorker: join(serverDir, 'src', 'material-worker.ts'),
      audioWorker: join(serverDir, 'src', 'audio-keeper-worker.ts'),
      prelude: join(DESKTOP_DIR, 'src', 'release', 'backend-prelude.ts'),
      outDir: work,
      appVersion: version,
    }),
    launcher: await bundleLauncher({
      entry: join(DESKTOP_DIR, 'src', 'release', 'launcher-entry.ts'),
      outFile: join(work, 'launcher.cjs'),
    }),
  }));
  log('backend and launcher bundled');

  const cacheDir = join(DESKTOP_DIR, '.cache');
  const nodeBinary = await timed(timings, 'node', () =>
    nodeBinaryFor(target, { repoRoot, cacheDir, nodeVersion, log }),
  );

  // release/ from scratch.
  await rm(outDir, { recursive: true, force: true });
  const backendDir = join(outDir, 'backend');
  await mkdir(join(backendDir, 'lib'), { recursive: true });
  await mkdir(join(outDir, 'data'), { recursive: true });
  const launcherPath = join(outDir, names.launcher);
  const backendPath = join(backendDir, names.backend);
  const settings = packagedSettings(await readFile(join(serverDir, '.env.example'), 'utf8'));
  // The backend's code cache is made by running it, so only for a target that runs here.
  const codeCache = join(work, BACKEND_ASSETS.cache);
  if (runsHere) {
    await timed(timings, 'cache', () =>
      makeCodeCache({
        nodeBinary,
        bundle: bundles.backend.script,
        output: codeCache,
        settings,
        uiDir,
        workDir: work,
      }),
    );
    log('backend code cache made by a start');
  }
  await timed(timings, 'sea', async () => {
    const loader = join(work, 'backend-loader.cjs');
    await writeFile(loader, backendLoaderSource());
    await makeSea({
      nodeBinary,
      script: loader,
      output: backendPath,
      workDir: work,
      windows,
      useCodeCache: runsHere,
      assets: {
        [BACKEND_ASSETS.script]: bundles.backend.script,
        ...(runsHere ? { [BACKEND_ASSETS.cache]: codeCache } : {}),
      },
    });
    await makeSea({
      nodeBinary,
      script: bundles.launcher,
      output: launcherPath,
      workDir: work,
      windows,
      gui: true,
      useCodeCache: runsHere,
    });
  });
  log(`single executables: ${names.launcher}, backend/${names.backend}`);

  const nativeModules = await timed(timings, 'assemble', async () => {
    await copyFile(bundles.backend.worker, join(backendDir, 'lib', 'material-worker.js'));
    await copyFile(bundles.backend.audioWorker, join(backendDir, 'lib', 'audio-keeper-worker.js'));
    // The worker is CommonJS; a package.json with "type": "module" above an unpacked release
    // (this repository's, for one) must not make Node read it as ESM.
    await writeFile(join(backendDir, 'lib', 'package.json'), '{ "type": "commonjs" }\n');
    await cp(join(serverDir, 'assets'), join(backendDir, 'assets'), { recursive: true });
    // The packaged app listens through its own window's microphone (no native audio addon is
    // needed on any OS); the example and the first settings file say so.
    await writeFile(join(backendDir, '.env.example'), settings);
    await writeFile(join(backendDir, '.env'), settings);
    // The settings will hold API keys: readable by their owner only, in the zip as well.
    await chmod(join(backendDir, '.env'), 0o600);
    await cp(uiDir, join(backendDir, 'ui'), { recursive: true });
    for (const { packageName, folder } of VENDORED_FOLDERS) {
      const packageDir = dirname(
        createRequire(join(serverDir, 'package.json')).resolve(`${packageName}/package.json`),
      );
      await cp(
        join(packageDir, folder),
        join(backendDir, 'vendor', ...packageName.split('/'), folder),
        {
          recursive: true,
          dereference: true,
        },
      );
    }
    const report = await assembleNativeModules({
      serverDir,
      target,
      destination: join(backendDir, 'node_modules'),
      cacheDir,
      log,
    });
    await writeFile(join(outDir, 'README.txt'), releaseReadme(version, target));
    await chmod(launcherPath, 0o755);
    await chmod(backendPath, 0o755);
    return report;
  });
  if (nativeModules.copied.length > 0) log(`native modules: ${nativeModules.copied.join(', ')}`);
  for (const { name, why } of nativeModules.skipped) log(`native modules: no ${name}: ${why}`);
  for (const { name, why } of nativeModules.missing) {
    log(`native modules: ${name} ${why}; its recognition mode will say so (the demo mode works)`);
  }

  // Every binary in release/ must be the target's: a wrong one fails the build here.
  const binaries = await timed(timings, 'binaries', () =>
    checkReleaseBinaries(filesInFolder(outDir), target),
  );
  log(`binaries, each checked to be ${target}'s:`);
  for (const binary of binaries) log(`  ${binary.path}: ${describeBinaryKind(binary.kind)}`);

  let check: CheckReport | undefined;
  if (options.check ?? runsHere) {
    if (!runsHere)
      throw new Error(`a ${target} build cannot be checked on ${process.platform}-${process.arch}`);
    check = await timed(timings, 'check', () =>
      checkRelease({
        releaseDir: outDir,
        backendExecutable: backendPath,
        launcherExecutable: launcherPath,
        version,
        port: options.checkPort ?? appConfig.backend.releaseCheckPort,
        fixtures: ['slides.pptx', 'notes.pdf'].map((name) =>
          join(DESKTOP_DIR, 'test', 'fixtures', name),
        ),
        nativeModules: reportedNativeModules(nativeModules.copied),
        log,
      }),
    );
  } else {
    log(`${target} runs on another OS: the packaged check is skipped here`);
  }

  let zipPath: string | undefined;
  if (options.zip !== false) {
    const zipDir = options.zipDir ?? join(repoRoot, 'dist');
    await mkdir(zipDir, { recursive: true });
    zipPath = join(zipDir, `class-assistant-${version}-${target}.zip`);
    const target_ = zipPath;
    await timed(timings, 'zip', () =>
      writeReleaseZip(outDir, target_, `ClassAssistant-${version}`, ['data']),
    );
    log(`zip: ${zipPath} (${Math.round((await stat(zipPath)).size / 1024 / 1024)} MiB)`);
  }
  await rm(work, { recursive: true, force: true });
  return {
    outDir,
    ...(zipPath ? { zipPath } : {}),
    launcher: launcherPath,
    backend: backendPath,
    ...(check ? { check } : {}),
    versionFilesChanged,
    nativeModules,
    binaries,
    timings,
  };
}

/**
 * The settings a release ships: the backend's `.env.example` with `AUDIO_INPUT=app`, the app
 * window's microphone, instead of the backend's own capture.
 */
function packagedSettings(example: string): string {
  const packaged = example.replace(/^AUDIO_INPUT=mic$/m, 'AUDIO_INPUT=app');
  if (packaged === example) {
    throw new Error(
      'the backend .env.example has no "AUDIO_INPUT=mic" line to turn into AUDIO_INPUT=app for the release',
    );
  }
  return packaged;
}
