import { constants as fsConstants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { isToolError, ToolError } from '../errors.ts';
import { errorCode } from './fs-guard.ts';

/** Fails with `TOOL_ABORTED` when `signal` has fired. */
export function throwIfAborted(signal: AbortSignal, tool: string): void {
  if (signal.aborted) throw new ToolError('TOOL_ABORTED', 'the call was aborted', { tool });
}

/** Turns a Node file-system error into a {@link ToolError} that names the path as given. */
export function throwFsError(
  error: unknown,
  tool: string,
  shownPath: string,
  field = 'path',
): never {
  if (isToolError(error)) throw error;
  const code = errorCode(error);
  const reasons: Record<string, [ToolError['code'], string]> = {
    ENOENT: ['TOOL_NOT_FOUND', 'does not exist'],
    ENOTDIR: ['TOOL_FAILED', 'has a file where a folder is expected'],
    EISDIR: ['TOOL_FAILED', 'is a folder'],
    ENOTEMPTY: ['TOOL_FAILED', 'is a folder that is not empty'],
    EEXIST: ['TOOL_FAILED', 'already exists'],
    EACCES: ['TOOL_FAILED', 'is not accessible (permission denied)'],
    EPERM: ['TOOL_FAILED', 'is not accessible (operation not permitted)'],
    ELOOP: ['TOOL_POLICY_DENIED', 'is a symbolic link'],
    ENOSPC: ['TOOL_FAILED', 'cannot be written: the disk is full'],
    EROFS: ['TOOL_FAILED', 'is on a read-only file system'],
  };
  const [toolCode, reason] = (code && reasons[code]) || [
    'TOOL_FAILED',
    `failed: ${error instanceof Error ? error.message : String(error)}`,
  ];
  throw new ToolError(toolCode, `"${shownPath}" ${reason}`, { tool, field, cause: error });
}

/** Resolves after `ms`, or rejects with `TOOL_ABORTED` when `signal` fires first. */
export function sleep(ms: number, signal: AbortSignal, tool: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new ToolError('TOOL_ABORTED', 'the call was aborted', { tool }));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ToolError('TOOL_ABORTED', 'the call was aborted', { tool }));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The first executable file named `name` in the folders of `searchPath` (a PATH value) that
 * `accept` lets through, like `which`; undefined when there is none.
 */
export async function findExecutable(
  name: string,
  searchPath: string,
  accept: (path: string) => boolean = () => true,
): Promise<string | undefined> {
  for (const folder of searchPath.split(delimiter)) {
    if (folder === '') continue;
    const candidate = join(folder, name);
    if (!accept(candidate)) continue;
    try {
      if (!(await stat(candidate)).isFile()) continue;
      await access(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
