// The release's binary check: every file of a release that holds machine code — found by its
// name (.node, .dll, .so, .dylib, .exe) or by its first bytes (an ELF, PE or Mach-O header) — must
// be in the target's format for the target's CPU, and the two executables must be there (on
// Windows: the launcher a GUI program, so no console window opens; the backend a console one).
// It reads an unpacked release folder or the zip itself.
import { open, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import yauzl from 'yauzl';
import {
  BINARY_HEADER_BYTES,
  type BinaryKind,
  describeBinaryKind,
  readBinaryKind,
} from './binary-format.ts';
import { MAC_APP_BUNDLE, MAC_APP_PATHS } from './mac-app.ts';
import { executableNames, type ReleaseTarget, TARGETS } from './targets.ts';

/** A file of a release: its path inside the release (`/`-separated) and a reader of its start. */
export interface ReleaseFile {
  path: string;
  /** Up to `bytes` of the file's first bytes. */
  readHead(bytes: number): Promise<Uint8Array>;
}

/** One binary of a release and what it is. */
export interface ReleaseBinary {
  path: string;
  kind: BinaryKind | undefined;
  /** What is wrong with it for the target; undefined when it is right. */
  problem?: string;
}

/** A release with a binary of the wrong kind, or without an executable it needs. */
export class ReleaseBinaryError extends Error {
  readonly code = 'RELEASE_WRONG_BINARY';
  /** Every binary found, the wrong ones with their problem. */
  readonly binaries: ReleaseBinary[];
  constructor(message: string, binaries: ReleaseBinary[]) {
    super(message);
    this.name = 'ReleaseBinaryError';
    this.binaries = binaries;
  }
}

/** True for a {@link ReleaseBinaryError} (also from another copy of this module). */
export function isReleaseBinaryError(error: unknown): error is ReleaseBinaryError {
  return (error as { code?: unknown } | null)?.code === 'RELEASE_WRONG_BINARY';
}

/** The release's executables (launcher first) and the Windows subsystem each must have. */
function releaseExecutables(
  target: ReleaseTarget,
): Array<{ path: string; subsystem?: 'gui' | 'console' }> {
  const names = executableNames(target);
  const windows = TARGETS[target].platform === 'win32';
  // The macOS app's launcher and backend are scripts run by Node's own binary.
  if (TARGETS[target].packaging === 'app')
    return [{ path: `${MAC_APP_BUNDLE}/${MAC_APP_PATHS.node}` }];
  return [
    // Double-clicked by students: no console window.
    { path: names.launcher, ...(windows ? { subsystem: 'gui' as const } : {}) },
    // Started hidden by the launcher; run by hand, it prints to its console.
    { path: `backend/${names.backend}`, ...(windows ? { subsystem: 'console' as const } : {}) },
  ];
}

/** True for a file name that says it holds machine code. */
function isNativeFileName(path: string): boolean {
  return /\.(node|dll|exe|dylib|so(\.\d+)*)$/i.test(path);
}

/** Every file under `root`, as {@link ReleaseFile}s. */
export async function* filesInFolder(root: string): AsyncGenerator<ReleaseFile> {
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    yield {
      path: relative(root, full).replaceAll('\\', '/'),
      async readHead(bytes) {
        const file = await open(full, 'r');
        try {
          const buffer = new Uint8Array(bytes);
          const { bytesRead } = await file.read(buffer, 0, bytes, 0);
          return buffer.subarray(0, bytesRead);
        } finally {
          await file.close();
        }
      },
    };
  }
}

/** Every file of a release zip, paths without the zip's top folder (`ClassAssistant-1.2.0/`). */
export async function* filesInZip(zipPath: string): AsyncGenerator<ReleaseFile> {
  const zip = await yauzl.openPromise(zipPath, { lazyEntries: true, autoClose: false });
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName.endsWith('/')) continue;
      yield {
        path: entry.fileName.slice(entry.fileName.indexOf('/') + 1),
        async readHead(bytes) {
          const chunks: Buffer[] = [];
          let length = 0;
          const stream = await zip.openReadStreamPromise(entry);
          // Leaving the loop early destroys the stream: the rest is never inflated.
          for await (const chunk of stream as AsyncIterable<Buffer>) {
            chunks.push(chunk);
            length += chunk.length;
            if (length >= bytes) break;
          }
          return new Uint8Array(Buffer.concat(chunks).subarray(0, bytes));
        },
      };
    }
  } finally {
    zip.close();
  }
}

/** What is wrong with `kind` at `path` for `target`, or undefined when nothing is. */
function problemOf(
  target: ReleaseTarget,
  path: string,
  kind: BinaryKind | undefined,
  subsystem: 'gui' | 'console' | undefined,
): string | undefined {
  const info = TARGETS[target];
  const expected = describeBinaryKind({
    format: info.binaryFormat,
    architectures: [info.arch],
    ...(subsystem ? { subsystem } : {}),
  });
  const wrong = `${path} is ${kind ? describeBinaryKind(kind) : 'no binary (no ELF, PE or Mach-O header)'}; ${target} needs ${expected}`;
  if (!kind || kind.format !== info.binaryFormat) return wrong;
  // A macOS universal binary holds several CPUs' code: it must hold the target's.
  const universal = kind.format === 'mach-o' && kind.architectures.length > 1;
  if (universal ? !kind.architectures.includes(info.arch) : kind.architectures[0] !== info.arch) {
    return wrong;
  }
  if (subsystem && kind.subsystem !== subsystem) return wrong;
  return undefined;
}

/**
 * Finds every binary among `files` and checks it against `target`; throws a
 * {@link ReleaseBinaryError} naming each wrong file (and each missing executable), else returns
 * the binaries with what they are.
 *
 * @example
 * const binaries = await checkReleaseBinaries(filesInFolder('release'), 'win-x64');
 */
export async function checkReleaseBinaries(
  files: AsyncIterable<ReleaseFile>,
  target: ReleaseTarget,
): Promise<ReleaseBinary[]> {
  const executables = releaseExecutables(target);
  const binaries: ReleaseBinary[] = [];
  for await (const file of files) {
    const named = isNativeFileName(file.path);
    const executable = executables.find((entry) => entry.path === file.path);
    const kind = readBinaryKind(await file.readHead(BINARY_HEADER_BYTES));
    // Anything else only counts when its first bytes are a binary's header.
    if (!named && !executable && !kind) continue;
    const problem = problemOf(target, file.path, kind, executable?.subsystem);
    binaries.push({ path: file.path, kind, ...(problem ? { problem } : {}) });
  }
  // Code-point order: the same list on every machine, whatever its locale.
  binaries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const problems = binaries.flatMap((binary) => (binary.problem ? [binary.problem] : []));
  for (const { path } of executables) {
    if (!binaries.some((binary) => binary.path === path)) problems.push(`${path} is missing`);
  }
  if (problems.length > 0) {
    throw new ReleaseBinaryError(
      `the ${target} release has ${problems.length === 1 ? 'a wrong binary' : `${problems.length} wrong binaries`}:\n  ${problems.join('\n  ')}`,
      binaries,
    );
  }
  return binaries;
}
