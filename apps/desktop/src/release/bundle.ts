// esbuild bundles for the single executables. Node 24 runs a SEA's script as CommonJS, so the
// bundles are CommonJS; the backend's modules read `import.meta.url` to find their files, which
// here points into the backend folder of the release (release/backend/lib/…).
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { tokenizer, tokTypes } from 'acorn';
import { build, type Plugin } from 'esbuild';

/** Native packages loaded at run time from release/backend/node_modules, never bundled. */
const NATIVE_PACKAGES = ['koffi', 'naudiodon', 'vosk', 'sherpa-onnx-node'] as const;

/** Package folders the backend reads files from at run time: copied to release/backend/vendor. */
export const VENDORED_FOLDERS = [{ packageName: '@fastify/swagger-ui', folder: 'static' }] as const;

const MODULE_URL = '__classAssistantModuleUrl';

/**
 * Optional modules that packages load inside try/catch (ws: bufferutil, utf-8-validate) or only
 * for a format they are asked for (@audio/decode names a Monkey's Audio decoder it does not
 * depend on). In a SEA such a require of a non-built-in module prints a warning even when
 * caught, and one that is not installed cannot be bundled, so they are replaced by a module that
 * throws.
 */
const ABSENT_OPTIONAL = /^(bufferutil|utf-8-validate|@audio\/decode-ape)$/;

/**
 * pino asks for its callers' file names (util.getCallSites) on every `pino()` call, only to find
 * the modules of transports: worker threads that load files from disk, which a single executable
 * cannot offer and the backend never configures. In a bundle of a few MB that question costs
 * about 4 ms at each start (V8 works out line and column positions in the whole script), so the
 * bundle's lookup answers with no callers.
 */
const PINO_CALLER = /[\\/]pino[\\/]lib[\\/]caller\.js$/;

/**
 * The audio decoders (`@audio/decode-*` over wasm-audio-decoders) carry their WebAssembly as a
 * `String.raw` template of arbitrary characters. {@link asciiOnly} cannot escape a template, so
 * such a template is loaded as the plain string literal of the same value instead.
 */
const RAW_TEMPLATE = 'String.raw`';

/**
 * The Opus encoder (opusscript: libopus built with emscripten) reads its WebAssembly from a file
 * next to its script, and names an asm.js build it never loads by default. The bundle carries
 * the WebAssembly itself (given to the emscripten module as `wasmBinary`, so no file is read)
 * and leaves the asm.js build out.
 */
const OPUSSCRIPT_INDEX = /[\\/]node_modules[\\/](?:.*[\\/])?opusscript[\\/]index\.js$/;
const OPUSSCRIPT_WASM = 'require("./build/opusscript_native_wasm.js")()';
const OPUSSCRIPT_ASMJS = 'require("./build/opusscript_native_nasm.js")()';

/** opusscript's index.js with its WebAssembly embedded and its asm.js build left out. */
export function embeddedOpusscript(source: string): string {
  if (!source.includes(OPUSSCRIPT_WASM) || !source.includes(OPUSSCRIPT_ASMJS)) {
    throw new Error(
      'opusscript/index.js no longer loads its builds as the release bundle expects: update bundle.ts',
    );
  }
  return source
    .replace(
      OPUSSCRIPT_WASM,
      'require("./build/opusscript_native_wasm.js")({ wasmBinary: require("./build/opusscript_native_wasm.wasm") })',
    )
    .replace(
      OPUSSCRIPT_ASMJS,
      '(() => { throw new Error("opusscript: only its WebAssembly build is part of this build"); })()',
    );
}
const PACKAGE_SCRIPT = /[\\/]node_modules[\\/].*\.[cm]?js$/;
const NON_ASCII_TEST = /[^\0-\x7f]/;

/**
 * `source` with every `String.raw` template that holds a non-ASCII character and no
 * substitution written as a string literal of the same value (its raw text, line ends as the
 * language reads them); `undefined` when there is none.
 *
 * @example
 * rawTemplatesAsStrings('x = String.raw`a\\nç`') // 'x = "a\\\\nç"'
 */
export function rawTemplatesAsStrings(source: string): string | undefined {
  let at = source.indexOf(RAW_TEMPLATE);
  if (at === -1) return undefined;
  let result = '';
  let copied = 0;
  while (at !== -1) {
    const start = at + RAW_TEMPLATE.length;
    let end = start;
    let substitution = false;
    while (end < source.length && source[end] !== '`') {
      if (source[end] === '\\') end += 1;
      else if (source[end] === '$' && source[end + 1] === '{') substitution = true;
      end += 1;
    }
    const raw = source.slice(start, end);
    if (end < source.length && !substitution && NON_ASCII_TEST.test(raw)) {
      result += `${source.slice(copied, at)}${JSON.stringify(raw.replace(/\r\n?/g, '\n'))}`;
      copied = end + 1;
    }
    at = source.indexOf(RAW_TEMPLATE, end + 1);
  }
  return copied === 0 ? undefined : result + source.slice(copied);
}

export function releasePlugin(): Plugin {
  return {
    name: 'class-assistant-release',
    setup(builder) {
      builder.onResolve({ filter: ABSENT_OPTIONAL }, (args) => ({
        path: args.path,
        namespace: 'absent',
      }));
      builder.onLoad({ filter: /.*/, namespace: 'absent' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`${args.path} is not part of this build`)});`,
        loader: 'js',
      }));
      builder.onLoad({ filter: PINO_CALLER }, () => ({
        contents: 'module.exports = function getCallers() { return []; };',
        loader: 'js',
      }));
      // Files a package reads next to itself (@fastify/swagger-ui/static): point its __dirname
      // into release/backend/vendor/<package>/, where the build copies them.
      for (const { packageName } of VENDORED_FOLDERS) {
        const pattern = new RegExp(
          `[\\\\/]node_modules[\\\\/]${packageName.replace('/', '[\\\\/]')}[\\\\/].*\\.js$`,
        );
        builder.onLoad({ filter: pattern }, async (args) => {
          const source = await readFile(args.path, 'utf8');
          const normalized = args.path.replaceAll('\\', '/');
          const packageRoot = normalized.slice(
            0,
            normalized.lastIndexOf(packageName) + packageName.length,
          );
          const inside = relative(packageRoot, dirname(normalized)).replaceAll('\\', '/');
          const folder = JSON.stringify([
            'vendor',
            ...packageName.split('/'),
            ...(inside ? inside.split('/') : []),
          ]);
          return {
            contents: `var __dirname = require("node:path").join(require("node:path").dirname(process.execPath), ...${folder});\n${source}`,
            loader: 'js',
          };
        });
      }
      builder.onLoad({ filter: OPUSSCRIPT_INDEX }, async (args) => ({
        contents: embeddedOpusscript(await readFile(args.path, 'utf8')),
        loader: 'js',
        resolveDir: dirname(args.path),
      }));
      // Last, so that the rewrites above come first for their files.
      builder.onLoad({ filter: PACKAGE_SCRIPT }, async (args) => {
        const contents = rawTemplatesAsStrings(await readFile(args.path, 'utf8'));
        return contents === undefined ? undefined : { contents, loader: 'js' };
      });
    },
  };
}

const NON_ASCII = /[^\0-\x7f]/g;

/**
 * The bundle with every non-ASCII character written as a `\u` escape. esbuild escapes them in
 * strings and names, not in regular expression literals (pinyin-pro's tone marks) nor in
 * template literals (a tag can read their raw text), and one such character makes V8 hold the
 * whole 3 MB script as a two-byte string: twice the memory, and slower to decode at each start.
 * In a regular expression, as in a string, `\u0101` means `ā` (characters beyond the BMP become
 * a surrogate pair, which is what they are without the `u` flag and what a pair of escapes means
 * with it). Two cases cannot be rewritten so, and stop the build: a template literal (acorn's
 * tokenizer finds them) and a character after a backslash.
 */
export function asciiOnly(source: string, name: string): string {
  if (source.search(NON_ASCII) === -1) return source;
  const refuse = (offset: number, what: string) => {
    throw new Error(
      `${name}: a non-ASCII character ${what} at offset ${offset} cannot be written as a \\u escape`,
    );
  };
  for (const token of tokenizer(source, { ecmaVersion: 'latest', sourceType: 'script' })) {
    if (token.type !== tokTypes.template && token.type !== tokTypes.invalidTemplate) continue;
    const found = source.slice(token.start, token.end).search(NON_ASCII);
    if (found !== -1) refuse(token.start + found, 'in a template literal');
  }
  return source.replace(NON_ASCII, (character, offset: number) => {
    let backslashes = 0;
    while (source[offset - 1 - backslashes] === '\\') backslashes += 1;
    if (backslashes % 2 === 1) refuse(offset, 'after a backslash');
    return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/**
 * The backend bundles: the SEA script, the upload parser's worker and the audio keeper's worker
 * (files next to it).
 */
export async function bundleBackend(options: {
  /** The server's src/main.ts (what its bin runs). */
  serverMain: string;
  /** The server's src/material-worker.ts. */
  serverWorker: string;
  /** The server's src/audio-keeper-worker.ts. */
  audioWorker: string;
  /** The prelude that sets the packaged defaults (settings, data, UI, native modules). */
  prelude: string;
  /** Output folder: backend.cjs (for the SEA), lib/material-worker.js and lib/audio-keeper-worker.js (shipped). */
  outDir: string;
  /** The app version the backend reports (`app_version` in /api/health) when started by hand. */
  appVersion: string;
  minify?: boolean;
}): Promise<{ script: string; worker: string; audioWorker: string }> {
  const script = join(options.outDir, 'backend.cjs');
  const worker = join(options.outDir, 'lib', 'material-worker.js');
  const audioWorker = join(options.outDir, 'lib', 'audio-keeper-worker.js');
  const common = {
    bundle: true,
    platform: 'node' as const,
    target: 'node24',
    format: 'cjs' as const,
    minify: options.minify ?? true,
    keepNames: true,
    legalComments: 'none' as const,
    logLevel: 'warning' as const,
    external: [...NATIVE_PACKAGES, '*.node'],
    // The Opus encoder's WebAssembly, embedded (see embeddedOpusscript).
    loader: { '.wasm': 'binary' as const },
    plugins: [releasePlugin()],
    define: {
      'import.meta.url': MODULE_URL,
      // The server's BUNDLED_APP_VERSION (it never reads the desktop package itself).
      __CLASS_ASSISTANT_APP_VERSION__: JSON.stringify(options.appVersion),
    },
  };
  // The server package declares "sideEffects": false (true of its library modules); its main
  // module is run for its effect, so the entry's imports must be kept.
  const entries = new Set([options.prelude, options.serverMain]);
  const keepEntries: Plugin = {
    name: 'keep-entries',
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, (args) =>
        entries.has(args.path) ? { path: args.path, sideEffects: true } : undefined,
      );
    },
  };
  await build({
    ...common,
    plugins: [keepEntries, ...common.plugins],
    stdin: {
      contents: `import ${JSON.stringify(options.prelude)};\nimport ${JSON.stringify(options.serverMain)};\n`,
      resolveDir: options.outDir,
      sourcefile: 'backend-entry.js',
      loader: 'js',
    },
    outfile: script,
    // The backend's modules sit in release/backend/lib (assets are ../assets, the worker ./); the
    // backend folder is the executable's, or the one the macOS app's loader names.
    banner: {
      js: `var ${MODULE_URL} = require("node:url").pathToFileURL(require("node:path").join(process.env.CLASS_ASSISTANT_BACKEND_DIR || require("node:path").dirname(process.execPath), "lib", "backend.js")).href;`,
    },
  });
  await writeFile(script, asciiOnly(await readFile(script, 'utf8'), script));
  await build({
    ...common,
    entryPoints: [options.serverWorker],
    outfile: worker,
    banner: { js: `var ${MODULE_URL} = require("node:url").pathToFileURL(__filename).href;` },
  });
  await build({
    ...common,
    entryPoints: [options.audioWorker],
    outfile: audioWorker,
    banner: { js: `var ${MODULE_URL} = require("node:url").pathToFileURL(__filename).href;` },
  });
  return { script, worker, audioWorker };
}

/** The launcher bundle (the SEA at the release root). */
export async function bundleLauncher(options: {
  entry: string;
  outFile: string;
  minify?: boolean;
}): Promise<string> {
  await build({
    entryPoints: [options.entry],
    outfile: options.outFile,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    minify: options.minify ?? true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  return options.outFile;
}
