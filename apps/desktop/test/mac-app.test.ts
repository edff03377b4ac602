// The macOS app as it is assembled on Linux: its layout as Finder and Launch Services read it
// (Info.plist, the executable, the icon), Node's binary kept byte for byte — and the same layout
// run here, with this machine's Node in the place of the Mac's: the executable script finds the
// launcher, the backend's loader starts the real backend bundle, which knows itself for the
// processes it starts. Nothing here runs on macOS (there is none here); see the README.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBinaryKind } from '../src/release/binary-format.ts';
import { bundleBackend, bundleLauncher } from '../src/release/bundle.ts';
import {
  assembleMacApp,
  ICNS_PNG_TYPES,
  infoPlist,
  MAC_APP_BUNDLE,
  MAC_APP_PATHS,
} from '../src/release/mac-app.ts';
import { freePort, killAll, start, waitFor } from './support/processes.ts';

const run = promisify(execFile);
const DESKTOP = join(import.meta.dirname, '..');
const SERVER = join(DESKTOP, '..', '..', 'packages', 'server');

let work: string;
let bundles: { backend: { script: string; worker: string }; launcher: string };

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'desktop-mac-app-'));
  bundles = {
    backend: await bundleBackend({
      serverMain: join(SERVER, 'src', 'main.ts'),
      serverWorker: join(SERVER, 'src', 'material-worker.ts'),
      audioWorker: join(SERVER, 'src', 'audio-keeper-worker.ts'),
      prelude: join(DESKTOP, 'src', 'release', 'backend-prelude.ts'),
      outDir: join(work, 'bundles'),
      appVersion: '9.8.7',
      minify: false,
    }),
    launcher: await bundleLauncher({
      entry: join(DESKTOP, 'src', 'release', 'launcher-entry.ts'),
      outFile: join(work, 'bundles', 'launcher.cjs'),
      minify: false,
    }),
  };
}, 120_000);

afterAll(async () => {
  killAll();
  await rm(work, { recursive: true, force: true });
});

/** The key/value pairs of a flat XML property list. */
function plistEntries(xml: string): Map<string, string | boolean> {
  const entries = new Map<string, string | boolean>();
  for (const match of xml.matchAll(
    /<key>([^<]+)<\/key>\s*(?:<string>([^<]*)<\/string>|<(true|false)\/>)/g,
  )) {
    entries.set(match[1] ?? '', match[2] ?? match[3] === 'true');
  }
  return entries;
}

/** Width, height and the RGBA pixel at (x, y) of an 8-bit RGBA PNG without filters. */
function pngPixel(png: Uint8Array, x: number, y: number) {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const width = view.getUint32(16);
  const height = view.getUint32(20);
  const chunks: Uint8Array[] = [];
  for (let at = 8; at < png.length; ) {
    const length = view.getUint32(at);
    const type = new TextDecoder().decode(png.subarray(at + 4, at + 8));
    if (type === 'IDAT') chunks.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const rows = inflateSync(Buffer.concat(chunks));
  const at = y * (width * 4 + 1) + 1 + x * 4;
  return { width, height, rgba: [...rows.subarray(at, at + 4)] };
}

async function assembled(name: string, nodeBinary: string): Promise<string> {
  const appDir = join(work, name, MAC_APP_BUNDLE);
  await assembleMacApp({
    appDir,
    version: '9.8.7',
    nodeBinary,
    backendBundle: bundles.backend.script,
    launcherBundle: bundles.launcher,
  });
  return appDir;
}

describe('Class Assistant.app', () => {
  it('is laid out as macOS reads an app, with Node’s binary byte for byte', async () => {
    // A stand-in for Node's Apple Silicon binary: a Mach-O arm64 header and some bytes.
    const node = join(work, 'node-arm64');
    const image = new Uint8Array(4096);
    new DataView(image.buffer).setUint32(0, 0xcffaedfe, false);
    new DataView(image.buffer).setUint32(4, 0x0100000c, true);
    for (let index = 32; index < image.length; index++) image[index] = (index * 7) % 251;
    await writeFile(node, image);
    const appDir = await assembled('layout', node);

    const plist = await readFile(join(appDir, MAC_APP_PATHS.infoPlist), 'utf8');
    expect(plist).toBe(infoPlist('9.8.7'));
    const entries = plistEntries(plist);
    expect(entries.get('CFBundlePackageType')).toBe('APPL');
    expect(entries.get('CFBundleIdentifier')).toMatch(/^[a-z0-9.-]+$/);
    expect(entries.get('CFBundleShortVersionString')).toBe('9.8.7');
    expect(entries.get('CFBundleVersion')).toBe('9.8.7');
    expect(entries.get('LSMinimumSystemVersion')).toBe('13.5');
    expect(entries.get('NSHighResolutionCapable')).toBe(true);
    // The executable Launch Services starts is there, executable.
    const executable = join(appDir, 'Contents', 'MacOS', String(entries.get('CFBundleExecutable')));
    expect(executable).toBe(join(appDir, MAC_APP_PATHS.executable));
    expect((await stat(executable)).mode & 0o111).toBe(0o111);
    expect((await stat(join(appDir, MAC_APP_PATHS.node))).mode & 0o111).toBe(0o111);
    // Node's binary unchanged (its signature is what lets Apple Silicon run it).
    const copied = await readFile(join(appDir, MAC_APP_PATHS.node));
    expect(copied.equals(Buffer.from(image))).toBe(true);
    expect(readBinaryKind(copied)).toEqual({ format: 'mach-o', architectures: ['arm64'] });

    // The icon Info.plist names: an .icns of PNGs, each the size its type says, drawn as the
    // favicon (green dot in the middle, transparent corner).
    const icns = new Uint8Array(
      await readFile(
        join(appDir, 'Contents', 'Resources', `${entries.get('CFBundleIconFile')}.icns`),
      ),
    );
    const view = new DataView(icns.buffer);
    expect(new TextDecoder().decode(icns.subarray(0, 4))).toBe('icns');
    expect(view.getUint32(4)).toBe(icns.length);
    const found: string[] = [];
    for (let at = 8; at < icns.length; ) {
      const type = new TextDecoder().decode(icns.subarray(at, at + 4));
      const length = view.getUint32(at + 4);
      const png = icns.subarray(at + 8, at + length);
      const size = ICNS_PNG_TYPES.find((entry) => entry.type === type)?.size;
      const middle = pngPixel(png, Math.floor((size ?? 0) / 2), Math.floor((size ?? 0) / 2));
      expect([middle.width, middle.height]).toEqual([size, size]);
      if ((size ?? 0) >= 64) {
        expect(middle.rgba).toEqual([0x4a, 0xde, 0x80, 255]);
        expect(pngPixel(png, 0, 0).rgba[3]).toBe(0);
      }
      found.push(type);
      at += length;
    }
    expect(found).toEqual(ICNS_PNG_TYPES.map((entry) => entry.type));
  });

  it('runs here with this machine’s Node in its place: the launcher, and the backend bundle beside Node', async () => {
    const appDir = await assembled('running', process.execPath);
    const resources = join(appDir, MAC_APP_PATHS.resources);
    // What the release adds beside the loader and bundle: the parser worker and the settings.
    const backendDir = join(appDir, MAC_APP_PATHS.backend);
    await run('cp', ['-r', join(work, 'bundles', 'lib'), join(backendDir, 'lib')]);
    await writeFile(join(backendDir, 'lib', 'package.json'), '{ "type": "commonjs" }\n');

    // Finder starts Contents/MacOS/Class Assistant: it runs the launcher with the Node beside it
    // (the app's path has a space in it).
    const home = join(work, 'running', 'home');
    const { stdout } = await run(join(appDir, MAC_APP_PATHS.executable), ['--version'], {
      env: { ...process.env, HOME: home },
    });
    const { version } = JSON.parse(await readFile(join(DESKTOP, 'app.json'), 'utf8')) as {
      version: string;
    };
    expect(stdout.trim()).toBe(version);

    const port = await freePort();
    const settings = join(work, 'running', '.env');
    await writeFile(settings, 'ASR_MODE=mock\n');
    await chmod(settings, 0o600);
    const backend = start(join(resources, 'node'), [
      join(backendDir, 'class-assistant-backend.cjs'),
      '--port',
      String(port),
      '--settings-file',
      settings,
      '--data-dir',
      join(work, 'running', 'data'),
    ]);
    const health = await waitFor(
      async () => {
        const response = await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => undefined);
        return response?.ok ? ((await response.json()) as { app_version?: string }) : undefined;
      },
      `the app's backend to answer (${backend.output()})`,
      60_000,
    );
    expect(health.app_version).toBe('9.8.7');
    // It starts itself again as Node + its script (the MCP command a client would run).
    const connection = (await (
      await fetch(`http://127.0.0.1:${port}/api/mcp/connection`)
    ).json()) as { token_command: { command: string; args: string[] } };
    expect(connection.token_command.command).toBe(join(resources, 'node'));
    expect(connection.token_command.args[0]).toBe(join(backendDir, 'class-assistant-backend.cjs'));
    backend.child.kill('SIGTERM');
    await backend.exited;
  }, 120_000);
});
