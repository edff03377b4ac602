import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ToolError } from '../errors.ts';

/** True when `child` is `parent` itself or lies below it (no `..`, no prefix siblings). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${sep}`));
}

/** Where a path given to an fs tool leads, after confinement checks. */
export interface ConfinedPath {
  /** Physical absolute path: symlinks of the existing part resolved, the missing tail appended. */
  path: string;
  /** The real path of the policy root. */
  root: string;
  /** Whether the whole path exists. */
  exists: boolean;
}

/** The `code` of a Node system error (`ENOENT`, …), if any. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

/** The real path of the policy's fs root, or `TOOL_BAD_POLICY` when it is missing or no folder. */
export async function realRoot(policyRoot: string, tool: string): Promise<string> {
  try {
    const root = await realpath(policyRoot);
    if (!(await stat(root)).isDirectory()) throw new Error('not a directory');
    return root;
  } catch (cause) {
    throw new ToolError(
      'TOOL_BAD_POLICY',
      `the allowed folder policy.fs.root (${policyRoot}) does not exist or is not a folder`,
      { tool, field: 'policy.fs.root', cause },
    );
  }
}

/**
 * Resolves a path given to an fs tool inside `policyRoot` or refuses it. Checks, in order:
 * NUL bytes and empty paths (`TOOL_BAD_INPUT`); the lexical path (`..`, absolute paths outside,
 * prefix siblings such as `/root-evil` for `/root`); then the physical path — the deepest part that
 * exists is resolved with `realpath`, so a symlink anywhere in the chain that leads out of the root
 * (also for files that do not exist yet, through their parent folders) is refused, as is a dangling
 * symlink. Refusals are `TOOL_POLICY_DENIED`. A concurrent process swapping a folder for a symlink
 * between this check and the operation is out of scope; the operations still open files with
 * `O_NOFOLLOW` so the final component cannot be swapped.
 */
export async function confinePath(
  policyRoot: string,
  input: string,
  where: { tool: string; field: string },
  options: { followFinalLink?: boolean } = {},
): Promise<ConfinedPath> {
  const { tool, field } = where;
  if (input.includes('\0')) {
    throw new ToolError('TOOL_BAD_INPUT', `${field} contains a NUL byte`, { tool, field });
  }
  if (input.trim() === '') {
    throw new ToolError('TOOL_BAD_INPUT', `${field} is empty`, { tool, field });
  }
  const root = await realRoot(policyRoot, tool);

  let target: string;
  if (isAbsolute(input)) {
    target = resolve(input);
    // An absolute path spelled with the configured root (which may itself go through a symlink,
    // e.g. /tmp on macOS) is rebased onto the real root.
    const configured = resolve(policyRoot);
    if (configured !== root && isInside(configured, target)) {
      target = join(root, relative(configured, target));
    }
  } else {
    target = resolve(root, input);
  }
  const denied = (reason: string) =>
    new ToolError('TOOL_POLICY_DENIED', `${field} "${input}" ${reason}`, { tool, field });
  if (!isInside(root, target)) throw denied('is outside the allowed folder');

  if (options.followFinalLink === false && target !== root) {
    // The entry itself (e.g. a symlink to delete) stays unresolved; its folder is confined.
    const folder = await physicalPath(root, dirname(target), denied);
    const path = join(folder.path, basename(target));
    let exists = false;
    if (folder.exists) {
      try {
        await lstat(path);
        exists = true;
      } catch (error) {
        const code = errorCode(error);
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      }
    }
    return { path, root, exists };
  }
  const physical = await physicalPath(root, target, denied);
  return { path: physical.path, root, exists: physical.exists };
}

async function physicalPath(
  root: string,
  target: string,
  denied: (reason: string) => ToolError,
): Promise<{ path: string; exists: boolean }> {
  const missing: string[] = [];
  let probe = target;
  while (probe !== root) {
    try {
      await lstat(probe);
      break;
    } catch (error) {
      const code = errorCode(error);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      missing.unshift(basename(probe));
      probe = dirname(probe);
    }
  }
  let real: string;
  try {
    real = await realpath(probe);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') throw denied('is a symbolic link to a missing target');
    if (code === 'ELOOP') throw denied('is a symbolic link loop');
    throw error;
  }
  if (!isInside(root, real)) {
    throw denied('leads outside the allowed folder through a symbolic link');
  }
  return { path: missing.length ? join(real, ...missing) : real, exists: !missing.length };
}

/**
 * Writes `data` to `target` atomically: a temp file in the same folder (created exclusively, so it
 * never follows a symlink), fsync, rename over the target, fsync of the folder. A reader sees the
 * old content or the new one, never half a file. The rename puts a new file under the name, so an
 * old file with other hard links is never written through: its other names keep the old content.
 * Keeps the permission bits (rwx, not set-user-ID, set-group-ID or sticky) of a replaced file; a
 * new file gets 0o666 less the umask, like any file a program creates.
 */
export async function writeFileAtomic(target: string, data: Uint8Array): Promise<void> {
  const folder = dirname(target);
  await mkdir(folder, { recursive: true });
  // The bits of the file being replaced; undefined for a new file.
  let mode: number | undefined;
  try {
    const existing = await lstat(target);
    if (existing.isDirectory()) {
      throw Object.assign(new Error(`EISDIR: ${target} is a directory`), { code: 'EISDIR' });
    }
    // Permission bits only: model-written content must not become a set-user-ID program.
    if (existing.isFile()) mode = existing.mode & 0o777;
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
  const temp = join(folder, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  // open() applies the umask, which is right for a new file; a replaced file's bits are set
  // explicitly, since the umask may have taken some of them away.
  const handle = await open(temp, 'wx', 0o666);
  try {
    await handle.writeFile(data);
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncFolder(folder);
}

/** fsyncs a folder so a rename or new entry in it survives a crash (best effort). */
export async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems refuse fsync on folders; the data itself is already synced.
  }
}
