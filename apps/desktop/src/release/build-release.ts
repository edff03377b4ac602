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
import { APP_BACKEND_SCRIPT } from '../launcher/layout.ts';
import { describeBinaryKind } from './binary-format.ts';
import { bundleBackend, bundleLauncher, VENDORED_FOLDERS } from './bundle.ts';
import { type CheckReport, checkRelease } from './check.ts';
import { BACKEND_ASSETS, backendLoaderSource, makeCodeCache } from './code-cache.ts';
import { assembleMacApp, MAC_APP_BUNDLE, MAC_APP_PATHS } from './mac-app.ts';
import {
  assembleNativeModules,
  type NativeModulesReport,
  reportedNativeModules,
} from './native-modules.ts';
import { smokeStartBackend } from './node-smoke.ts';
import { type ReleaseNode, releaseNodeFor } from './node-version.ts';
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
  /** The UI and bundles made by {@link buildParts} for this version (several targets in a row). */
  parts?: ReleaseParts;
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
  /** The Node the release carries (release.json). */
  node: ReleaseNode;
  /** Every binary of the release with its format, all checked against the target. */
  binaries: ReleaseBinary[];
  /** Seconds per step. */
  timings: Record<string, number>;
}

/** The release's description of itself, at its top: `release.json`. */
const RELEASE_JSON = 'release.json';

/** What release.json says: the target, the Node it carries and the native pieces. */
function releaseManifest(
  version: string,
  target: ReleaseTarget,
  node: ReleaseNode,
  nativeModules: NativeModulesReport,
) {
  return {
    name: 'Class Assistant',
    version,
    target,
    packaging: TARGETS[target].packaging,
    node: { package: node.package, version: node.version, pinned: node.pinned, note: node.note },
    native_modules: {
      included: nativeModules.copied,
      left_out: [...nativeModules.skipped, ...nativeModules.missing],
    },
  };
}

/** How a student starts the app, and (macOS) opens it the first time, in Chinese and English. */
function openingSteps(target: ReleaseTarget): {
  zh: string;
  en: string;
  firstTime?: { zh: string; en: string };
} {
  const { launcher } = executableNames(target);
  if (TARGETS[target].packaging === 'app') {
    return {
      zh: `把 ${MAC_APP_BUNDLE} 拖到“应用程序”文件夹，双击打开`,
      en: `Drag ${MAC_APP_BUNDLE} into Applications and double-click it`,
      firstTime: {
        zh: `第一次打开：这个应用没有经过 Apple 公证（“来自身份不明的开发者”），macOS 会拦下它。
在 Finder 里按住 Control 点按（或右键点按）${MAC_APP_BUNDLE}，选“打开”，再在对话框里点“打开”。
macOS 15 起没有这个“打开”按钮：先双击一次，再到“系统设置 › 隐私与安全性”里点“仍要打开”。之后双击即可。`,
        en: `The first time: the app is not notarized by Apple ("from an unidentified developer"), so macOS
stops it. In Finder, Control-click (or right-click) ${MAC_APP_BUNDLE}, choose Open, then Open in the
dialog. macOS 15 and later have no such Open button: double-click it once, then click "Open Anyway"
in System Settings > Privacy & Security. After that a double-click opens it.`,
      },
    };
  }
  if (target === 'win-x64') return { zh: `双击 ${launcher}`, en: `Double-click ${launcher}` };
  return { zh: `运行 ./${launcher}`, en: `Run ./${launcher}` };
}

/** The release's top-level read-me, Chinese and English. */
export function releaseReadme(
  version: string,
  target: ReleaseTarget,
  node?: ReleaseNode,
  nativeModules?: NativeModulesReport,
): string {
  const app = TARGETS[target].packaging === 'app';
  const launcher = executableNames(target).launcher;
  const steps = openingSteps(target);
  const where = app
    ? {
        zh: '设置和课堂记录保存在 ~/Library/Application Support/Class Assistant/（.env 与 data/；\n启动诊断：data/_startup.log）',
        en: 'Settings and transcripts are kept in\n~/Library/Application Support/Class Assistant/ (.env and data/; startup diagnostics:\ndata/_startup.log)',
      }
    : {
        zh: '设置保存在 backend/.env（也可以在应用的“设置”面板里修改），\n课堂记录、笔记和日志在 data/ 里（启动诊断：data/_startup.log）',
        en: "Settings are in backend/.env (or the\napp's Settings panel); transcripts, notes and logs are in data/ (startup diagnostics:\ndata/_startup.log)",
      };
  const firstTime = steps.firstTime ? `\n${steps.firstTime.zh}\n\n${steps.firstTime.en}\n` : '';
  const leftOut = [...(nativeModules?.skipped ?? []), ...(nativeModules?.missing ?? [])];
  const nodeLine = node
    ? `\nNode.js ${node.version} (${node.package})${node.note ? `: ${node.note}` : ''}.\n${
        nativeModules
          ? `Native modules: ${nativeModules.copied.join(', ') || 'none'}.\n${leftOut
              .map(({ name, why }) => `Without ${name}: ${why}.\n`)
              .join('')}`
          : ''
      }`
    : '';
  return `课堂助手 Class Assistant ${version} (${target})

${steps.zh}：它会清理残留的后端、启动后端，并用 Chrome / Edge / Chromium 打开 320x80 的悬浮条。
关闭悬浮条窗口即退出。${where.zh}。
第一次使用请在设置里填写 LLM_API_KEY；没有麦克风或离线模型时，可改用演示模式（ASR_MODE=mock）。

${steps.en}: it stops stale backends, starts the backend and opens the 320x80 floating bar in
Chrome, Edge or Chromium. Closing the bar's window quits. ${where.en}. Set LLM_API_KEY in the settings for the AI features; without a microphone
or an offline model, use the demo mode (ASR_MODE=mock).
${firstTime}${nodeLine}
Options: ${app ? `"${MAC_APP_BUNDLE}/${MAC_APP_PATHS.executable}"` : launcher} --help
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

/** What every target's release is made of: the built UI and the bundles (see {@link buildParts}). */
export interface ReleaseParts {
  uiDir: string;
  serverDir: string;
  bundles: { backend: { script: string; worker: string; audioWorker: string }; launcher: string };
}

/**
 * Builds the UI and bundles the backend (for `version`) and the launcher into `folder`: the same
 * for every target, so several targets built in a row share them.
 */
export async function buildParts(options: {
  version: string;
  folder: string;
  log(line: string): void;
}): Promise<ReleaseParts> {
  const { folder, version, log } = options;
  const uiDir = join(folder, 'ui');
  const { build } = await import('vite');
  await build({
    configFile: join(DESKTOP_DIR, 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir: uiDir, emptyOutDir: true },
  });
  log('UI built');

  const requireFromDesktop = createRequire(join(DESKTOP_DIR, 'package.json'));
  const serverDir = dirname(requireFromDesktop.resolve('@class-assistant/server/package.json'));
  const serverManifest = JSON.parse(await readFile(join(serverDir, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  // The bin is a small shim that runs src/main.ts in the workspace; bundle what it runs.
  if (!serverManifest.bin['class-assistant-backend']) {
    throw new Error('@class-assistant/server has no class-assistant-backend bin');
  }
  const bundles = {
    backend: await bundleBackend({
      serverMain: join(serverDir, 'src', 'main.ts'),
      serverWorker: join(serverDir, 'src', 'material-worker.ts'),
      audioWorker: join(serverDir, 'src', 'audio-keeper-worker.ts'),
      prelude: join(DESKTOP_DIR, 'src', 'release', 'backend-prelude.ts'),
      outDir: folder,
      appVersion: version,
    }),
    launcher: await bundleLauncher({
      entry: join(DESKTOP_DIR, 'src', 'release', 'launcher-entry.ts'),
      outFile: join(folder, 'launcher.cjs'),
    }),
  };
  log('backend and launcher bundled');
  return { uiDir, serverDir, bundles };
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
  const info = TARGETS[target];
  const pinnedNode = (
    JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    }
  ).devDependencies.node;
  if (!pinnedNode || !/^\d+\.\d+\.\d+$/.test(pinnedNode)) {
    throw new Error('the root package.json must pin the `node` devDependency to an exact version');
  }

  const versionFilesChanged = await timed(timings, 'version', () =>
    setReleaseVersion(repoRoot, version),
  );
  log(
    `version ${version}${versionFilesChanged.length > 0 ? ` (set in ${versionFilesChanged.join(', ')})` : ''}`,
  );

  const parts =
    options.parts ??
    (await timed(timings, 'ui+bundle', () => buildParts({ version, folder: work, log })));
  const { uiDir, serverDir, bundles } = parts;

  const cacheDir = join(DESKTOP_DIR, '.cache');
  const node = await timed(timings, 'node', () =>
    releaseNodeFor(target, pinnedNode, { repoRoot, cacheDir }),
  );
  if (node.note) log(`node: ${node.note}`);
  // A single executable's blob is made by this Node: the binary it goes into must be the same
  // version.
  if (info.packaging === 'sea' && node.version !== process.versions.node) {
    throw new Error(
      `a ${target} single executable needs Node ${process.versions.node} (the Node building it), and the npm registry's ${info.nodePackages.join(', ')} carry ${node.version} at best`,
    );
  }
  const nodeBinary = await timed(timings, 'node', () =>
    nodeBinaryFor(target, node, { repoRoot, cacheDir, log }),
  );
  log(`node: ${node.package} ${node.version}`);

  // release/ from scratch. A macOS release is the app bundle; the others the two executables
  // with backend/ and data/ beside them.
  await rm(outDir, { recursive: true, force: true });
  const app = info.packaging === 'app';
  const appDir = join(outDir, MAC_APP_BUNDLE);
  const backendDir = app ? join(appDir, MAC_APP_PATHS.backend) : join(outDir, 'backend');
  await mkdir(join(backendDir, 'lib'), { recursive: true });
  if (!app) await mkdir(join(outDir, 'data'), { recursive: true });
  const launcherPath = app ? join(appDir, MAC_APP_PATHS.executable) : join(outDir, names.launcher);
  const backendPath = app ? join(backendDir, APP_BACKEND_SCRIPT) : join(backendDir, names.backend);
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
  if (app) {
    await timed(timings, 'app', () =>
      assembleMacApp({
        appDir,
        version,
        nodeBinary,
        backendBundle: bundles.backend.script,
        launcherBundle: bundles.launcher,
        ...(runsHere ? { codeCache } : {}),
      }),
    );
    log(`${MAC_APP_BUNDLE}: Node's own binary runs the launcher and the backend`);
  } else
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
  if (!app) log(`single executables: ${names.launcher}, backend/${names.backend}`);

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
    if (!app) {
      // The app keeps its settings in Application Support (its launcher copies the example
      // there the first time); the other releases beside the backend.
      await writeFile(join(backendDir, '.env'), settings);
      // The settings will hold API keys: readable by their owner only, in the zip as well.
      await chmod(join(backendDir, '.env'), 0o600);
    }
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
    await writeFile(join(outDir, 'README.txt'), releaseReadme(version, target, node, report));
    await chmod(launcherPath, 0o755);
    await chmod(backendPath, 0o755);
    await writeFile(
      join(outDir, RELEASE_JSON),
      `${JSON.stringify(releaseManifest(version, target, node, report), null, 2)}\n`,
    );
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
  if (app) {
    await assertSameBytes(join(appDir, MAC_APP_PATHS.node), nodeBinary);
    log(
      `${MAC_APP_PATHS.node}: byte for byte ${node.package} ${node.version}'s ${info.binaryInPackage}`,
    );
  }
  const host = hostTarget();
  if (app && !runsHere && host && node.version !== process.versions.node) {
    // The app carries an older Node than this one: its backend must run on that version.
    const hostPackage = TARGETS[host].nodePackages[0] ?? '';
    let hostNode: string | undefined;
    try {
      hostNode = await nodeBinaryFor(
        host,
        { package: hostPackage, version: node.version },
        { repoRoot, cacheDir, log },
      );
    } catch (error) {
      log(`node ${node.version}: not tried here (${(error as Error).message})`);
    }
    if (hostNode) {
      const nodeBinaryHere = hostNode;
      const smoke = await timed(timings, 'node smoke', () =>
        smokeStartBackend({
          nodeBinary: nodeBinaryHere,
          backendScript: backendPath,
          version,
          workDir: work,
        }),
      );
      log(
        `the app's backend on Node ${node.version} (${hostPackage}, this machine's build of the version the app carries): healthy, a demo class wrote ${smoke.lines} lines`,
      );
    }
  }

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
      writeReleaseZip(outDir, target_, `ClassAssistant-${version}`, app ? [] : ['data']),
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
    node,
    binaries,
    timings,
  };
}

/** Throws unless the two files hold the same bytes (the app's Node binary and the registry's). */
async function assertSameBytes(copy: string, original: string): Promise<void> {
  const [a, b] = await Promise.all([readFile(copy), readFile(original)]);
  if (!a.equals(b)) {
    throw new Error(`${copy} differs from ${original}: the app must carry Node's binary unchanged`);
  }
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
