// What the release bundle changes in the packages it bundles, checked by bundling a small program
// with the release's esbuild plugin and running it with this Node.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asciiOnly,
  embeddedOpusscript,
  rawTemplatesAsStrings,
  releasePlugin,
} from '../src/release/bundle.ts';

const SERVER_DIR = join(import.meta.dirname, '..', '..', '..', 'packages', 'server');

// Counts the call-site lookups, then logs through pino as the backend's process logger does.
const PROGRAM = `
const util = require('node:util');
const lookup = util.getCallSites;
let lookups = 0;
util.getCallSites = (...args) => { lookups += 1; return lookup(...args); };
const pino = require('pino');
const { Writable } = require('node:stream');
const lines = [];
const stream = new Writable({ write(chunk, _encoding, done) { lines.push(JSON.parse(chunk)); done(); } });
const logger = pino({ level: 'info', base: { pid: process.pid } }, pino.multistream([{ level: 'info', stream }]));
logger.info({ class: 'algorithms' }, 'backend starting');
setImmediate(() => process.stdout.write(JSON.stringify({ lookups, lines })));
`;

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'desktop-bundle-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

async function bundleAndRun(withReleasePlugin: boolean) {
  const outfile = join(work, `program-${withReleasePlugin}.cjs`);
  await build({
    stdin: { contents: PROGRAM, resolveDir: SERVER_DIR, sourcefile: 'program.js', loader: 'js' },
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    outfile,
    logLevel: 'warning',
    plugins: withReleasePlugin ? [releasePlugin()] : [],
  });
  const { stdout } = await promisify(execFile)(process.execPath, [outfile]);
  return JSON.parse(stdout) as { lookups: number; lines: Array<{ msg: string; class: string }> };
}

describe('the release bundle', () => {
  it("skips pino's caller lookup (only for transports) and still logs", async () => {
    const plain = await bundleAndRun(false);
    expect(plain.lookups).toBeGreaterThan(0);
    const release = await bundleAndRun(true);
    expect(release.lookups).toBe(0);
    expect(release.lines).toMatchObject([{ msg: 'backend starting', class: 'algorithms' }]);
  });
});

describe('String.raw templates of packages (the audio decoders carry WebAssembly so)', () => {
  // Characters as wasm-audio-decoders' "dynEncode" strings hold them: beyond ASCII, backslashes
  // that are kept as written, a CRLF line end and an escaped backtick.
  const RAW = 'dynEncode01\u00c2\u0089(\\n\\`\u00ff\r\n\u8bfe';
  const PACKAGE = `module.exports = { data: String.raw\`${RAW}\`, other: String.raw\`plain\\t\` };`;

  it('are bundled as strings of the same value, so the bundle can be one-byte text', async () => {
    const folder = join(work, 'raw', 'node_modules', 'raw-template-package');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'index.js'), PACKAGE);
    const outfile = join(work, 'raw', 'program.cjs');
    await build({
      stdin: {
        contents: `const p = require('raw-template-package'); process.stdout.write(JSON.stringify(p));`,
        resolveDir: join(work, 'raw'),
        sourcefile: 'program.js',
        loader: 'js',
      },
      bundle: true,
      platform: 'node',
      target: 'node24',
      format: 'cjs',
      outfile,
      logLevel: 'warning',
      plugins: [releasePlugin()],
    });
    const bundled = await readFile(outfile, 'utf8');
    await writeFile(outfile, asciiOnly(bundled, 'program.cjs'));
    const { stdout } = await promisify(execFile)(process.execPath, [outfile]);
    const expected = { data: RAW.replace('\r\n', '\n'), other: 'plain\\t' };
    expect(JSON.parse(stdout)).toEqual(expected);
    // Without the rewrite the bundle cannot be made one-byte text.
    expect(() => asciiOnly(PACKAGE, 'package.js')).toThrow(/template literal/);
  });

  it('leaves ASCII templates and templates with substitutions alone', () => {
    expect(rawTemplatesAsStrings('a = String.raw`x\\n`')).toBeUndefined();
    expect(rawTemplatesAsStrings('a = String.raw`\u00e7${b}`')).toBeUndefined();
    expect(rawTemplatesAsStrings('a = 1')).toBeUndefined();
  });
});

describe('asciiOnly (the backend bundle as one-byte text)', () => {
  it('writes non-ASCII characters as escapes that mean the same in strings and regular expressions', () => {
    const source = `module.exports = {
  tones: 'nǚ lǜ'.replace(/(ǖ|ǘ|ǚ|ǜ)/g, 'ü'),
  marks: /(n̄|ń|ň|ǹ)/.test('ň'),
  unicode: /^[课堂]{2}😀$/u.test('课堂😀'),
  legacy: /^😀$/.test('😀'),
  text: '课堂助手 😀',
};`;
    const escaped = asciiOnly(source, 'bundle.cjs');
    expect(/^[\0-\x7f]*$/.test(escaped)).toBe(true);
    const run = (code: string) => {
      const module = { exports: {} };
      new Function('module', code)(module);
      return module.exports;
    };
    expect(run(escaped)).toEqual(run(source));
    expect(run(escaped)).toEqual({
      tones: 'nü lü',
      marks: true,
      unicode: true,
      legacy: true,
      text: '课堂助手 😀',
    });
  });

  it('stops where an escape would change the meaning: a template literal, a backslash', () => {
    expect(() => asciiOnly('const raw = String.raw`课堂${1}`;', 'backend.cjs')).toThrow(
      'backend.cjs: a non-ASCII character in a template literal at offset 23 cannot be written as a \\u escape',
    );
    expect(() => asciiOnly('const pattern = /\\ā/;', 'backend.cjs')).toThrow(
      'backend.cjs: a non-ASCII character after a backslash at offset 18',
    );
    expect(asciiOnly('const pattern = /\\\\ā/;', 'backend.cjs')).toBe(
      'const pattern = /\\\\\\u0101/;',
    );
    expect(asciiOnly('const plain = `ascii ${"课"}`;', 'backend.cjs')).toBe(
      'const plain = `ascii ${"\\u8bfe"}`;',
    );
  });
});

describe('the Opus encoder of the audio keeper (WebAssembly in a file of its own)', () => {
  // Encodes a second of a tone through the server's encoder, as the audio keeper's worker does.
  const ENCODE = `
const { createOpusEncoder } = require(${JSON.stringify(join(SERVER_DIR, 'src', 'recording', 'opus-encoder.ts'))});
const encoder = createOpusEncoder();
const samples = new Int16Array(16000).map((_, i) => Math.round(5000 * Math.sin(i / 8)));
const packets = [...encoder.encode(samples), ...encoder.end()];
process.stdout.write(JSON.stringify({ packets: packets.length, bytes: packets.reduce((sum, p) => sum + p.length, 0) }));
`;

  async function bundleEncoder(withReleasePlugin: boolean) {
    // Away from node_modules: the bundle must not find the package's files next to it.
    const folder = join(work, `opus-${withReleasePlugin}`);
    await mkdir(folder, { recursive: true });
    const outfile = join(folder, 'encoder.cjs');
    await build({
      stdin: { contents: ENCODE, resolveDir: SERVER_DIR, sourcefile: 'encoder.js', loader: 'js' },
      bundle: true,
      platform: 'node',
      target: 'node24',
      format: 'cjs',
      outfile,
      logLevel: 'silent',
      loader: { '.wasm': 'binary' },
      plugins: withReleasePlugin ? [releasePlugin()] : [],
    });
    return outfile;
  }

  it('carries its WebAssembly inside the bundle, and leaves the asm.js build out', async () => {
    const outfile = await bundleEncoder(true);
    const { stdout } = await promisify(execFile)(process.execPath, [outfile]);
    // 50 packets of 20 ms, about 24 kbit/s.
    const result = JSON.parse(stdout) as { packets: number; bytes: number };
    expect(result.packets).toBe(50);
    expect(result.bytes).toBeGreaterThan(1000);
    expect(result.bytes).toBeLessThan(6000);
    const bundled = await readFile(outfile, 'utf8');
    expect(bundled).not.toContain('opusscript_native_nasm.js');
    // Without the plugin the bundle looks for the WebAssembly next to itself, in vain.
    const plain = await bundleEncoder(false);
    await expect(promisify(execFile)(process.execPath, [plain])).rejects.toThrow(
      /opusscript_native_wasm\.wasm/,
    );
  });

  it('stops the build when opusscript loads its builds otherwise', () => {
    expect(() => embeddedOpusscript('module.exports = require("./other.js")();')).toThrow(
      /update bundle\.ts/,
    );
  });
});
