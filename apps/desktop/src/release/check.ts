// The release's own check (apps/desktop/README.md, "The release build"): run the packaged
// backend on port 18765 and see that it is healthy and really works — its app version, the UI at
// /, /docs, the native pieces it carries (loaded by its check-native: sherpa-onnx runs the Silero
// VAD), material uploads (the parser worker), a demo class — then stop it over HTTP with its
// run token, restore the shipped settings byte for byte and empty data/. The packaged launcher is
// run as well, without a window and without cleanup by name.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { DATA_FOLDER, dataPaths } from '@class-assistant/server/data-folder';
import { CACHE_REJECTED } from './code-cache.ts';

/** What the check measured. */
export interface CheckReport {
  /** Milliseconds from spawning the packaged backend to a healthy answer. */
  coldStartMs: number;
  lines: number;
  uploaded: string;
  launcherMs: number;
}

/** Starts `file`, keeping the last 8000 characters of its stdout and stderr together. */
function startCollectingOutput(
  file: string,
  args: string[],
  cwd: string,
): { child: ChildProcess; output: () => string } {
  const child = spawn(file, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = `${output}${chunk.toString('utf8')}`.slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => output };
}

/** The exit code of `child` once it exits; rejects after `timeoutMs`. */
function waitForExit(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null) {
      resolve(child.exitCode);
      return;
    }
    const timer = setTimeout(() => reject(new Error(`no exit within ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

async function waitHealthy(
  base: string,
  child: ChildProcess,
  output: () => string,
): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the packaged backend exited (${child.exitCode}):\n${output()}`);
    try {
      const response = await fetch(`${base}/api/health`);
      if (((await response.json()) as { status?: string }).status === 'healthy')
        return performance.now() - started;
    } catch {
      // Not yet.
    }
    if (performance.now() - started > 30_000)
      throw new Error(`not healthy within 30 s:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The JSON body of a successful response; throws the server's message for an HTTP error. */
async function okJson<T>(response: Response): Promise<T> {
  const body = (await response.json()) as T & { status?: string; message?: string };
  if (!response.ok)
    throw new Error(`HTTP ${response.status}: ${body.message ?? JSON.stringify(body)}`);
  return body;
}

const HOMOPHONE_KEYWORD = '数剧结构';

/** Whether the live events (replayed from the first) hold an alert for `keyword`. */
async function alertRaised(base: string, keyword: string): Promise<boolean> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 5000);
  try {
    const response = await fetch(`${base}/api/events`, {
      headers: { 'last-event-id': '0' },
      signal: controller.signal,
    });
    if (!response.body) return false;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return false;
      text += value;
      for (const block of text.split('\n\n')) {
        if (block.includes('event: alert.raised') && block.includes(JSON.stringify(keyword)))
          return true;
      }
    }
  } catch (error) {
    if (controller.signal.aborted) return false;
    throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

/** One piece as `class-assistant-backend check-native --json` reports it. */
interface LoadedModule {
  name: string;
  loaded: boolean;
  detail: string;
}

/**
 * The packaged backend's own `check-native`: it loads the native pieces it carries (sherpa-onnx
 * runs the Silero VAD from the release's assets), which /api/health only locates.
 */
async function checkNativeLoads(
  backendExecutable: string,
  releaseDir: string,
): Promise<LoadedModule[]> {
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)(backendExecutable, ['check-native', '--json'], {
      cwd: releaseDir,
      timeout: 120_000,
      windowsHide: true,
    }));
  } catch (error) {
    // Exit code 1 when a piece does not load: its JSON still says which.
    const failed = error as { stdout?: string; stderr?: string; message: string };
    if (!failed.stdout?.trim().startsWith('{')) {
      throw new Error(
        `the packaged backend's check-native failed: ${failed.message}\n${failed.stderr ?? ''}`,
      );
    }
    stdout = failed.stdout;
  }
  return (JSON.parse(stdout) as { native_modules: LoadedModule[] }).native_modules;
}

/** Options of {@link checkRelease}. */
export interface CheckOptions {
  releaseDir: string;
  backendExecutable: string;
  launcherExecutable: string;
  version: string;
  port: number;
  /** .pptx/.pdf/.docx files to upload; the first one is the class's material. */
  fixtures: readonly string[];
  /**
   * Native pieces the release carries, as /api/health names them: the packaged backend must find
   * each one, and load those its `check-native` loads (koffi, vosk, sherpa-onnx).
   */
  nativeModules: readonly string[];
  log(line: string): void;
}

/** Runs the check; throws with the backend's output when something fails. */
export async function checkRelease(options: CheckOptions): Promise<CheckReport> {
  const { releaseDir, port } = options;
  const envFile = join(releaseDir, 'backend', '.env');
  const dataDir = join(releaseDir, 'data');
  const shipped = await readFile(envFile);
  const base = `http://127.0.0.1:${port}`;
  const backend = startCollectingOutput(
    options.backendExecutable,
    ['--port', String(port)],
    releaseDir,
  );
  try {
    const coldStartMs = await waitHealthy(base, backend.child, backend.output);
    const health = await okJson<{
      settings_file: string;
      data_dir: string;
      app_version: string;
      audio: { native_modules: Array<{ name: string; available: boolean; detail: string }> };
    }>(await fetch(`${base}/api/health`));
    if (health.settings_file !== envFile || health.data_dir !== dataDir) {
      throw new Error(
        `the packaged backend uses ${health.settings_file} and ${health.data_dir}, not the release's files`,
      );
    }
    if (health.app_version !== options.version) {
      throw new Error(
        `the packaged backend reports app version ${health.app_version}, not ${options.version}`,
      );
    }
    for (const name of options.nativeModules) {
      const found = health.audio.native_modules.find((entry) => entry.name === name);
      if (!found?.available) {
        throw new Error(
          `the packaged backend does not find the ${name} the release carries: ${found?.detail ?? 'not reported'}`,
        );
      }
    }
    const loaded = await checkNativeLoads(options.backendExecutable, releaseDir);
    const carriedAndLoadable = loaded.filter(({ name }) => options.nativeModules.includes(name));
    for (const piece of carriedAndLoadable) {
      if (!piece.loaded) {
        throw new Error(
          `the packaged backend finds the ${piece.name} the release carries but cannot load it: ${piece.detail}`,
        );
      }
    }
    options.log(
      `packaged backend loads ${carriedAndLoadable.map(({ name }) => name).join(', ') || 'no native piece'}${carriedAndLoadable
        .filter(({ name }) => name === 'sherpa-onnx')
        .map(({ detail }) => ` (${detail})`)
        .join('')}`,
    );
    const page = await (await fetch(`${base}/`)).text();
    if (!page.includes('id="app"')) throw new Error('the UI is not served at /');
    if ((await fetch(`${base}/docs/static/index.html`)).status !== 200)
      throw new Error('/docs is broken');

    // The parsers are loaded on the first upload, each kind by its own code: upload them all.
    const uploads: string[] = [];
    for (const fixture of options.fixtures) {
      const form = new FormData();
      form.append('file', new Blob([await readFile(fixture)]), basename(fixture));
      const upload = await okJson<{ cite_filename: string }>(
        await fetch(`${base}/api/upload_ppt`, { method: 'POST', body: form }),
      );
      uploads.push(upload.cite_filename);
    }

    const post = (path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    await okJson(
      await post('/api/settings', { fields: { ASR_MODE: 'mock', MOCK_INTERVAL_MS: '40' } }),
    );
    // A keyword only a homophone of in the demo lecture's first line (数据结构): matching it
    // needs pinyin, loaded when the class starts.
    await okJson(await post('/api/update_keywords', { keywords: [HOMOPHONE_KEYWORD] }));
    await okJson(
      await post('/api/start_monitor', {
        course_name: 'release check',
        cite_filename: uploads[0],
      }),
    );
    let lines = 0;
    for (let attempt = 0; attempt < 200 && lines < 3; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      lines = (await okJson<{ total: number }>(await fetch(`${base}/api/transcript`))).total;
    }
    if (lines < 3) throw new Error('the demo class wrote no lines');
    if (!(await alertRaised(base, HOMOPHONE_KEYWORD)))
      throw new Error(`no alert for ${HOMOPHONE_KEYWORD}, a homophone of the demo's 数据结构`);
    await okJson(await post('/api/stop_monitor?with_summary=false'));
    // The backend's run token, as the launcher reads it: only its owner can stop it.
    const token = (await readFile(dataPaths(dataDir).shutdownToken, 'utf8')).trim();
    if ((await post('/api/shutdown')).status !== 403)
      throw new Error('POST /api/shutdown without the token was not refused');
    const shutdown = await fetch(`${base}/api/shutdown`, {
      method: 'POST',
      headers: { 'x-shutdown-token': token },
    });
    if (shutdown.status !== 202) throw new Error('POST /api/shutdown with the token was refused');
    const code = await waitForExit(backend.child, 20_000);
    if (code !== 0)
      throw new Error(`the packaged backend exited with ${code}:\n${backend.output()}`);
    // A release checked here was built here, with the code cache of this very bundle.
    if (backend.output().includes(CACHE_REJECTED))
      throw new Error('the packaged backend refused its own code cache');
    const startupLog = await readFile(dataPaths(dataDir).startupLog, 'utf8');
    if (!startupLog.includes('Class Assistant backend starting'))
      throw new Error('no startup diagnostics in data/_startup.log');
    options.log(
      `packaged backend: healthy after ${Math.round(coldStartMs)} ms; UI, /docs, uploads (${options.fixtures.map((fixture) => basename(fixture)).join(', ')}), demo class (${lines} lines, a homophone alert) and graceful stop work`,
    );

    // The launcher: its version, then a run without a window until it is told to stop.
    const version = startCollectingOutput(options.launcherExecutable, ['--version'], releaseDir);
    await waitForExit(version.child, 20_000);
    if (version.output().trim() !== options.version) {
      throw new Error(
        `the launcher says "${version.output().trim()}", expected ${options.version}`,
      );
    }
    const launcherStarted = performance.now();
    // Without cleanup by name: the student's own installed app may be running on this machine,
    // and a build must never stop it (the port cleanup touches port ${port} only).
    const launcher = startCollectingOutput(
      options.launcherExecutable,
      ['--no-window', '--no-cleanup-by-name', '--port', String(port)],
      releaseDir,
    );
    const launcherMs = await waitHealthy(base, launcher.child, launcher.output).then(
      () => performance.now() - launcherStarted,
    );
    launcher.child.kill('SIGTERM');
    const launcherCode = await waitForExit(launcher.child, 30_000);
    if (launcherCode !== 0)
      throw new Error(`the launcher exited with ${launcherCode}:\n${launcher.output()}`);
    if (!launcher.output().includes('stopped'))
      throw new Error(`the launcher did not stop cleanly:\n${launcher.output()}`);
    options.log(
      `packaged launcher: backend healthy after ${Math.round(launcherMs)} ms, stopped with the launcher`,
    );
    return { coldStartMs, lines, uploaded: uploads[0]!, launcherMs };
  } finally {
    if (backend.child.exitCode === null) backend.child.kill('SIGKILL');
    // The shipped settings and a data folder with only the check's startup diagnostics,
    // whatever happened (the archive leaves data/ empty).
    await writeFile(envFile, shipped);
    for (const entry of await readdir(dataDir).catch(() => [] as string[])) {
      if (entry !== DATA_FOLDER.startupLog.name)
        await rm(join(dataDir, entry), { recursive: true, force: true });
    }
    await mkdir(dataDir, { recursive: true });
  }
}
