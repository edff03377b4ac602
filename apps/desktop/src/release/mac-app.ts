// The macOS release is an app bundle, `Class Assistant.app`, assembled on any machine:
//
//   Contents/Info.plist                  what Finder and Launch Services read
//   Contents/MacOS/Class Assistant       a shell script: Node's binary runs the launcher
//   Contents/Resources/node              Node's own signed binary, byte for byte as Node ships it
//   Contents/Resources/launcher.cjs      the launcher bundle
//   Contents/Resources/backend/          the backend bundle, its loader, UI, assets, native modules
//   Contents/Resources/AppIcon.icns      the icon, drawn here from the app's favicon geometry
//
// Apple Silicon runs no machine code without a valid signature, and injecting a bundle into
// Node's binary (a single executable, as on Windows and Linux) breaks the one Node's binary has:
// so the binary is kept as it is and runs the bundles beside it. The app itself is not signed:
// the first time, a student opens it with right-click › Open (README.txt says how).
import { chmod, copyFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { APP_BACKEND_SCRIPT, MAC_APP_NAME } from '../launcher/layout.ts';
import { appBackendLoaderSource, BACKEND_ASSETS } from './code-cache.ts';

/** The app bundle's folder name. */
export const MAC_APP_BUNDLE = `${MAC_APP_NAME}.app`;

/** The app's bundle identifier. */
const MAC_BUNDLE_ID = 'org.class-assistant.desktop';

/** Node 24's oldest macOS (Node's BUILDING.md: macOS 13.5 and later). */
const MAC_MINIMUM_SYSTEM = '13.5';

/** Paths inside the app bundle, relative to it. */
export const MAC_APP_PATHS = {
  infoPlist: 'Contents/Info.plist',
  executable: `Contents/MacOS/${MAC_APP_NAME}`,
  resources: 'Contents/Resources',
  node: 'Contents/Resources/node',
  launcher: 'Contents/Resources/launcher.cjs',
  backend: 'Contents/Resources/backend',
  icon: 'Contents/Resources/AppIcon.icns',
} as const;

function xmlText(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** The keys of the app's Info.plist, in the order written. */
function infoPlistEntries(version: string): Array<[string, string | boolean]> {
  return [
    ['CFBundleDevelopmentRegion', 'en'],
    ['CFBundleDisplayName', MAC_APP_NAME],
    ['CFBundleExecutable', MAC_APP_NAME],
    ['CFBundleIconFile', 'AppIcon'],
    ['CFBundleIdentifier', MAC_BUNDLE_ID],
    ['CFBundleInfoDictionaryVersion', '6.0'],
    ['CFBundleName', MAC_APP_NAME],
    ['CFBundlePackageType', 'APPL'],
    ['CFBundleShortVersionString', version],
    ['CFBundleVersion', version],
    ['LSApplicationCategoryType', 'public.app-category.education'],
    ['LSMinimumSystemVersion', MAC_MINIMUM_SYSTEM],
    ['NSHighResolutionCapable', true],
    // The window is a browser's: the microphone permission is the browser's, not this app's.
  ];
}

/** The app's Info.plist (XML property list). */
export function infoPlist(version: string): string {
  const body = infoPlistEntries(version)
    .map(
      ([key, value]) =>
        `\t<key>${xmlText(key)}</key>\n\t${typeof value === 'boolean' ? `<${value}/>` : `<string>${xmlText(value)}</string>`}`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
${body}
</dict>
</plist>
`;
}

/** Contents/MacOS/Class Assistant: runs the launcher with the Node binary beside it. */
function macLauncherScript(): string {
  return `#!/bin/sh
# Class Assistant: Node's own binary (Contents/Resources/node) runs the launcher, which starts
# the backend and opens the window in Chrome, Edge or Chromium (or the default browser).
RESOURCES="$(cd "$(dirname "$0")/../Resources" && pwd)" || exit 1
exec "$RESOURCES/node" "$RESOURCES/launcher.cjs" "$@"
`;
}

// ------------------------------------------------------------------------------ the icon

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (CRC_TABLE[(crc ^ byte) & 0xff] ?? 0) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const chunk = new Uint8Array(12 + data.length);
  const view = new DataView(chunk.buffer);
  view.setUint32(0, data.length);
  chunk.set(new TextEncoder().encode(type), 4);
  chunk.set(data, 8);
  view.setUint32(8 + data.length, crc32(chunk.subarray(4, 8 + data.length)));
  return chunk;
}

/** An RGBA image as a PNG file. */
function encodePng(width: number, height: number, rgba: Uint8Array): Uint8Array {
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, no filter method, no interlace
  const rows = new Uint8Array(height * (width * 4 + 1));
  for (let y = 0; y < height; y++) {
    rows.set(rgba.subarray(y * width * 4, (y + 1) * width * 4), y * (width * 4 + 1) + 1);
  }
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', new Uint8Array(deflateSync(rows, { level: 9 }))),
    pngChunk('IEND', new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * The app icon at `size` pixels: the favicon's geometry on a 32-unit square (a dark rounded
 * square, a green ring and dot), inset as macOS icons are, 4x4 samples per pixel.
 */
function appIconPng(size: number): Uint8Array {
  const rgba = new Uint8Array(size * size * 4);
  // macOS icons leave ~10 % of the canvas around the shape.
  const inset = size * 0.1;
  const scale = (size - 2 * inset) / 32;
  const samples = 4;
  const inRoundedSquare = (x: number, y: number) => {
    const r = 8;
    const cx = Math.min(Math.max(x, r), 32 - r);
    const cy = Math.min(Math.max(y, r), 32 - r);
    return x >= 0 && y >= 0 && x <= 32 && y <= 32 && (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
  };
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let covered = 0;
      let green = 0;
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const x = (px + (sx + 0.5) / samples - inset) / scale;
          const y = (py + (sy + 0.5) / samples - inset) / scale;
          if (!inRoundedSquare(x, y)) continue;
          covered++;
          const distance = Math.hypot(x - 16, y - 16);
          if (Math.abs(distance - 7) <= 1.5 || distance <= 2.5) green++;
        }
      }
      if (covered === 0) continue;
      const at = (py * size + px) * 4;
      const share = green / covered;
      // #1f2937 and #4ade80, mixed by the share of samples on the ring or dot.
      rgba[at] = Math.round(0x1f + (0x4a - 0x1f) * share);
      rgba[at + 1] = Math.round(0x29 + (0xde - 0x29) * share);
      rgba[at + 2] = Math.round(0x37 + (0x80 - 0x37) * share);
      rgba[at + 3] = Math.round((255 * covered) / (samples * samples));
    }
  }
  return encodePng(size, size, rgba);
}

/** The ICNS element types holding PNG images, by pixel size (Apple's icns format). */
export const ICNS_PNG_TYPES: ReadonlyArray<{ type: string; size: number }> = [
  { type: 'icp4', size: 16 },
  { type: 'icp5', size: 32 },
  { type: 'ic11', size: 32 }, // 16@2x
  { type: 'ic12', size: 64 }, // 32@2x
  { type: 'ic07', size: 128 },
  { type: 'ic13', size: 256 }, // 128@2x
  { type: 'ic08', size: 256 },
  { type: 'ic14', size: 512 }, // 256@2x
  { type: 'ic09', size: 512 },
  { type: 'ic10', size: 1024 }, // 512@2x
];

/** An .icns file of PNG images: `icns`, its length, then each element's type, length and data. */
function icnsFile(images: ReadonlyArray<{ type: string; png: Uint8Array }>): Uint8Array {
  const length = 8 + images.reduce((sum, image) => sum + 8 + image.png.length, 0);
  const out = new Uint8Array(length);
  const view = new DataView(out.buffer);
  const ascii = new TextEncoder();
  out.set(ascii.encode('icns'), 0);
  view.setUint32(4, length);
  let at = 8;
  for (const image of images) {
    out.set(ascii.encode(image.type), at);
    view.setUint32(at + 4, 8 + image.png.length);
    out.set(image.png, at + 8);
    at += 8 + image.png.length;
  }
  return out;
}

/** The app's icon file, every size drawn once. */
function appIcns(): Uint8Array {
  const drawn = new Map<number, Uint8Array>();
  return icnsFile(
    ICNS_PNG_TYPES.map(({ type, size }) => {
      let png = drawn.get(size);
      if (!png) {
        png = appIconPng(size);
        drawn.set(size, png);
      }
      return { type, png };
    }),
  );
}

/** Options of {@link assembleMacApp}. */
export interface MacAppOptions {
  /** The `Class Assistant.app` folder to fill (the backend's other files go to its backend/). */
  appDir: string;
  version: string;
  /** The target's Node binary, copied unchanged. */
  nodeBinary: string;
  /** The backend bundle (backend.cjs) and the launcher bundle. */
  backendBundle: string;
  launcherBundle: string;
  /** The backend's code cache, made by a start with the target's Node (only on a Mac). */
  codeCache?: string;
}

/**
 * Writes the app's own parts: Info.plist, the executable script, the icon, Node's binary (byte
 * for byte), the launcher, and the backend's loader and bundle (and its code cache when made).
 */
export async function assembleMacApp(options: MacAppOptions): Promise<void> {
  const { appDir } = options;
  const backendDir = join(appDir, MAC_APP_PATHS.backend);
  await mkdir(backendDir, { recursive: true });
  await mkdir(dirname(join(appDir, MAC_APP_PATHS.executable)), { recursive: true });
  await copyFile(options.nodeBinary, join(appDir, MAC_APP_PATHS.node));
  await chmod(join(appDir, MAC_APP_PATHS.node), 0o755);
  await copyFile(options.backendBundle, join(backendDir, BACKEND_ASSETS.script));
  if (options.codeCache) {
    await copyFile(options.codeCache, join(backendDir, BACKEND_ASSETS.cache));
  }
  await writeFile(join(backendDir, APP_BACKEND_SCRIPT), appBackendLoaderSource());
  await copyFile(options.launcherBundle, join(appDir, MAC_APP_PATHS.launcher));
  await writeFile(join(appDir, MAC_APP_PATHS.executable), macLauncherScript());
  await chmod(join(appDir, MAC_APP_PATHS.executable), 0o755);
  await writeFile(join(appDir, MAC_APP_PATHS.infoPlist), infoPlist(options.version));
  await writeFile(join(appDir, MAC_APP_PATHS.icon), appIcns());
}
