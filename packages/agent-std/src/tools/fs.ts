import { randomBytes } from 'node:crypto';
import { type BigIntStats, constants, type Dirent } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readdir, rmdir, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { ToolError } from '../errors.ts';
import type { ResolvedToolPolicy } from '../policy.ts';
import { defineTool } from '../tool.ts';
import { countCharacters, decoderFor, encoderFor } from './encoding.ts';
import { confinePath, errorCode, syncFolder, writeFileAtomic } from './fs-guard.ts';
import { compileGlob, GlobSyntaxError } from './glob.ts';
import { throwFsError, throwIfAborted } from './shared.ts';

const pathField = () =>
  z
    .string()
    .describe(
      'Path of the file, relative to the allowed folder (absolute paths must lie inside it).',
    );
const encodingField = () =>
  z
    .string()
    .default('utf-8')
    .describe(
      'Text encoding: utf-8 (default), utf-16le, latin-1 or ascii; reading also gbk, big5, …',
    );

/** Refuses a writing tool when the policy makes the files read-only. */
function refuseWhenReadOnly(policy: ResolvedToolPolicy, tool: string): void {
  if (policy.fs.readOnly) {
    throw new ToolError(
      'TOOL_POLICY_DENIED',
      `the files are read-only here (policy.fs.readOnly); ${tool} cannot change them`,
      { tool },
    );
  }
}

/** Most entries `file_list` visits while searching a folder tree with `**` or `/`. */
const MAX_VISITED_ENTRIES = 100_000;

export const fileRead = defineTool({
  name: 'file_read',
  namespace: 'std.fs',
  title: 'Read a file',
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  description:
    'Read a text file and return its whole content. Paths are relative to the allowed folder.',
  schemas: () => ({
    input: z.object({ path: pathField(), encoding: encodingField() }).strict(),
    output: z.string().describe('The file content.'),
  }),
  async execute({ path, encoding }, { policy }) {
    const tool = 'file_read';
    const decode = decoderFor(encoding, tool);
    const target = await confinePath(policy.fs.root, path, { tool, field: 'path' });
    if (!target.exists) {
      throw new ToolError('TOOL_NOT_FOUND', `file "${path}" does not exist`, {
        tool,
        field: 'path',
      });
    }
    let bytes: Buffer;
    try {
      // O_NONBLOCK: opening a FIFO must not hang; O_NOFOLLOW: the checked file is what is read.
      const handle = await open(
        target.path,
        constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      );
      try {
        const info = await handle.stat();
        if (info.isDirectory()) {
          throw new ToolError('TOOL_FAILED', `"${path}" is a folder; use file_list`, {
            tool,
            field: 'path',
          });
        }
        if (!info.isFile()) {
          throw new ToolError('TOOL_POLICY_DENIED', `"${path}" is not a regular file`, {
            tool,
            field: 'path',
          });
        }
        await checkOpenedFile(handle, target.path, policy, { tool, path });
        const limit = policy.fs.maxReadBytes;
        if (info.size > limit) {
          throw new ToolError(
            'TOOL_LIMIT_EXCEEDED',
            `"${path}" is ${info.size} bytes, more than the ${limit}-byte read limit (policy.fs.maxReadBytes)`,
            { tool, field: 'path', details: { size: info.size, limit } },
          );
        }
        // Read at most limit + 1 bytes: a file growing meanwhile is caught, not read unbounded.
        const buffer = Buffer.alloc(Math.min(limit + 1, Math.max(info.size, 0) + 64 * 1024));
        let length = 0;
        for (;;) {
          if (length === buffer.length) break;
          const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
          if (bytesRead === 0) break;
          length += bytesRead;
        }
        if (length > limit) {
          throw new ToolError(
            'TOOL_LIMIT_EXCEEDED',
            `"${path}" is more than the ${limit}-byte read limit (policy.fs.maxReadBytes)`,
            { tool, field: 'path', details: { limit } },
          );
        }
        // The name may have been swapped while the file was read: what was read is discarded.
        await confirmOpenedFile(handle, target.path, policy, { tool, path });
        bytes = buffer.subarray(0, length);
      } finally {
        await handle.close();
      }
    } catch (error) {
      throwFsError(error, tool, path);
    }
    return decode(bytes);
  },
});

/**
 * Checks an opened file against the name it was opened by, and refuses it (`TOOL_POLICY_DENIED`)
 * unless `physicalPath` still names that very file (same device and inode, by `lstat`) and,
 * without `policy.fs.allowHardLinks`, the file has a single link — both seen through the handle
 * and through the name. A file with several hard links is refused because each of its names is
 * the same file and nothing tells where the others are: one may lie outside the allowed folder.
 * The name is checked too because another process can link a file from outside the folder at
 * the name, let the tool open it and remove the name again before the link count is read; the
 * count then says 1 while the handle reads the outside file. Called after opening and again after
 * reading, so a read that raced such a swap is discarded, and before any byte is written.
 */
async function checkOpenedFile(
  handle: FileHandle,
  physicalPath: string,
  policy: ResolvedToolPolicy,
  where: { tool: string; path: string },
): Promise<void> {
  const { tool, path } = where;
  const opened = await handle.stat({ bigint: true });
  refuseHardLinked(opened, policy, where);
  let named: BigIntStats | undefined;
  try {
    named = await lstat(physicalPath, { bigint: true });
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
  }
  if (named === undefined || named.dev !== opened.dev || named.ino !== opened.ino) {
    throw new ToolError(
      'TOOL_POLICY_DENIED',
      `"${path}" was removed or replaced by another file while it was open (another process is changing it); nothing was read or written through it`,
      { tool, field: 'path' },
    );
  }
  refuseHardLinked(named, policy, where);
}

/** Rounds of {@link confirmOpenedFile}. */
const CONFIRM_ROUNDS = 3;

/**
 * {@link checkOpenedFile}, {@link CONFIRM_ROUNDS} times, each after every removal of a name in
 * the file's folder that had begun has finished. While a name is being removed, looking it up
 * can still find the file with its link count already lowered, so for a moment a hard link to a
 * file outside the folder looks like that file's only name; one check can fall in that moment,
 * and each further round needs another removal timed just as exactly. The lookup of a name that
 * does not exist waits for the folder's lock, which a removal holds to its end: that is the wait.
 */
async function confirmOpenedFile(
  handle: FileHandle,
  physicalPath: string,
  policy: ResolvedToolPolicy,
  where: { tool: string; path: string },
): Promise<void> {
  const probe = join(dirname(physicalPath), `.agent-std-${randomBytes(9).toString('hex')}`);
  for (let round = 0; round < CONFIRM_ROUNDS; round++) {
    if (round > 0) await lstat(`${probe}-${round}`).catch(() => undefined);
    await checkOpenedFile(handle, physicalPath, policy, where);
  }
}

function refuseHardLinked(
  info: BigIntStats,
  policy: ResolvedToolPolicy,
  where: { tool: string; path: string },
): void {
  if (info.isFile() && info.nlink > 1n && !policy.fs.allowHardLinks) {
    throw new ToolError(
      'TOOL_POLICY_DENIED',
      `"${where.path}" has ${info.nlink} hard links; another of its names may lie outside the allowed folder, so it is refused (policy.fs.allowHardLinks allows it)`,
      { tool: where.tool, field: 'path' },
    );
  }
}

function checkWriteSize(bytes: Uint8Array, limit: number, tool: string): void {
  if (bytes.byteLength > limit) {
    throw new ToolError(
      'TOOL_LIMIT_EXCEEDED',
      `content is ${bytes.byteLength} bytes, more than the ${limit}-byte write limit (policy.fs.maxWriteBytes)`,
      { tool, field: 'content', details: { size: bytes.byteLength, limit } },
    );
  }
}

export const fileWrite = defineTool({
  name: 'file_write',
  namespace: 'std.fs',
  title: 'Write a file',
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  description:
    'Write text to a file, replacing it if it exists. Missing folders are created. The write is atomic: readers never see half a file.',
  schemas: () => ({
    input: z
      .object({
        path: pathField(),
        content: z.string().describe('The complete new content of the file.'),
        encoding: encodingField(),
      })
      .strict(),
    output: z.string().describe('A success message with the number of characters written.'),
  }),
  async execute({ path, content, encoding }, { policy }) {
    const tool = 'file_write';
    refuseWhenReadOnly(policy, tool);
    const bytes = encoderFor(encoding, tool)(content);
    checkWriteSize(bytes, policy.fs.maxWriteBytes, tool);
    const target = await confinePath(policy.fs.root, path, { tool, field: 'path' });
    if (target.path === target.root) {
      throw new ToolError('TOOL_FAILED', `"${path}" is the allowed folder itself`, {
        tool,
        field: 'path',
      });
    }
    try {
      await writeFileAtomic(target.path, bytes);
    } catch (error) {
      throwFsError(error, tool, path);
    }
    return `Wrote ${countCharacters(content)} characters to ${path}`;
  },
});

export const fileAppend = defineTool({
  name: 'file_append',
  namespace: 'std.fs',
  title: 'Append to a file',
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  description:
    'Append text to the end of a file, creating the file (and missing folders) if it does not exist.',
  schemas: () => ({
    input: z
      .object({
        path: pathField(),
        content: z.string().describe('The text to add at the end of the file.'),
        encoding: encodingField(),
      })
      .strict(),
    output: z.string().describe('A success message with the number of characters appended.'),
  }),
  async execute({ path, content, encoding }, { policy }) {
    const tool = 'file_append';
    refuseWhenReadOnly(policy, tool);
    const bytes = encoderFor(encoding, tool)(content);
    const limit = policy.fs.maxWriteBytes;
    checkWriteSize(bytes, limit, tool);
    const target = await confinePath(policy.fs.root, path, { tool, field: 'path' });
    try {
      await mkdir(dirname(target.path), { recursive: true });
      const handle = await open(
        target.path,
        constants.O_WRONLY |
          constants.O_APPEND |
          constants.O_CREAT |
          constants.O_NOFOLLOW |
          constants.O_NONBLOCK,
        0o666,
      );
      try {
        const info = await handle.stat();
        if (!info.isFile()) {
          throw new ToolError('TOOL_POLICY_DENIED', `"${path}" is not a regular file`, {
            tool,
            field: 'path',
          });
        }
        await confirmOpenedFile(handle, target.path, policy, { tool, path });
        if (info.size + bytes.byteLength > limit) {
          throw new ToolError(
            'TOOL_LIMIT_EXCEEDED',
            `appending would make "${path}" ${info.size + bytes.byteLength} bytes, more than the ${limit}-byte limit (policy.fs.maxWriteBytes)`,
            { tool, field: 'content', details: { size: info.size + bytes.byteLength, limit } },
          );
        }
        await handle.write(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (!target.exists) await syncFolder(dirname(target.path));
    } catch (error) {
      throwFsError(error, tool, path);
    }
    return `Appended ${countCharacters(content)} characters to ${path}`;
  },
});

export const fileExists = defineTool({
  name: 'file_exists',
  namespace: 'std.fs',
  title: 'Check whether a file exists',
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  description: 'Check whether a file or folder exists inside the allowed folder.',
  schemas: () => ({
    input: z.object({ path: z.string().describe('Path of the file or folder to check.') }).strict(),
    output: z.object({
      exists: z.boolean().describe('Whether the file or folder exists.'),
      path: z.string().describe('The path as given.'),
    }),
  }),
  async execute({ path }, { policy }) {
    const target = await confinePath(policy.fs.root, path, { tool: 'file_exists', field: 'path' });
    return { exists: target.exists, path };
  },
});

export const fileList = defineTool({
  name: 'file_list',
  namespace: 'std.fs',
  title: 'List files',
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  description:
    'List the entries of a folder whose names match a glob pattern (default "*": everything except hidden entries). Folders are listed with a trailing "/". Use "**/*.txt" to search sub-folders.',
  schemas: () => ({
    input: z
      .object({
        directory: z
          .string()
          .describe('Folder to list, relative to the allowed folder ("." for the folder itself).'),
        pattern: z
          .string()
          .default('*')
          .describe('Glob pattern: * ? [abc] {a,b} and ** for any depth. Default "*".'),
      })
      .strict(),
    output: z.object({
      files: z
        .array(z.string())
        .describe('Matching paths, sorted, starting with the directory as given.'),
      count: z.number().int().describe('How many entries matched.'),
      truncated: z
        .boolean()
        .optional()
        .describe('Present and true when more entries matched than were returned.'),
    }),
  }),
  async execute({ directory, pattern }, { policy, signal }) {
    const tool = 'file_list';
    let matcher: ReturnType<typeof compileGlob>;
    try {
      if (pattern.length > 1000) throw new GlobSyntaxError('the pattern is over 1000 characters');
      matcher = compileGlob(pattern);
    } catch (error) {
      if (!(error instanceof GlobSyntaxError)) throw error;
      throw new ToolError('TOOL_BAD_INPUT', `pattern: ${error.message}`, {
        tool,
        field: 'pattern',
      });
    }
    const target = await confinePath(policy.fs.root, directory, { tool, field: 'directory' });
    if (!target.exists) {
      throw new ToolError('TOOL_NOT_FOUND', `folder "${directory}" does not exist`, {
        tool,
        field: 'directory',
      });
    }
    try {
      if (!(await lstat(target.path)).isDirectory()) {
        throw new ToolError('TOOL_FAILED', `"${directory}" is not a folder`, {
          tool,
          field: 'directory',
        });
      }
    } catch (error) {
      throwFsError(error, tool, directory, 'directory');
    }

    const matched: string[] = [];
    let visited = 0;
    // Breadth-first over real folders only: symlinked folders are listed but never entered.
    const queue: string[][] = [[]];
    while (queue.length > 0) {
      throwIfAborted(signal, tool);
      const segments = queue.shift() as string[];
      let entries: Dirent[];
      try {
        entries = await readdir(join(target.path, ...segments), { withFileTypes: true });
      } catch (error) {
        if (segments.length === 0) throwFsError(error, tool, directory, 'directory');
        continue; // a sub-folder that vanished or is unreadable is skipped
      }
      for (const entry of entries) {
        visited++;
        if (visited > MAX_VISITED_ENTRIES) {
          throw new ToolError(
            'TOOL_LIMIT_EXCEEDED',
            `the folder tree under "${directory}" has more than ${MAX_VISITED_ENTRIES} entries; use a narrower directory`,
            { tool, field: 'directory' },
          );
        }
        const path = [...segments, entry.name];
        const isFolder = entry.isDirectory();
        if (matcher.matches(path)) matched.push(path.join('/') + (isFolder ? '/' : ''));
        if (
          isFolder &&
          path.length < matcher.maxDepth &&
          (matcher.mentionsHidden || !entry.name.startsWith('.'))
        ) {
          queue.push(path);
        }
      }
    }
    matched.sort();
    // Every path starts with the directory as given (`.` gives `./a`, `./sub` gives `./sub/a`),
    // trailing slashes folded into one.
    const given = directory.replaceAll('\\', '/').replace(/\/+$/, '');
    const shown = (relativePath: string) => `${given}/${relativePath}`;
    const limit = policy.fs.maxListEntries;
    const files = matched.slice(0, limit).map(shown);
    return matched.length > limit
      ? { files, count: matched.length, truncated: true }
      : { files, count: matched.length };
  },
});

export const fileDelete = defineTool({
  name: 'file_delete',
  namespace: 'std.fs',
  title: 'Delete a file',
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  description:
    'Delete a file (or an empty folder). A symbolic link is removed itself, never its target.',
  schemas: () => ({
    input: z.object({ path: z.string().describe('Path of the file to delete.') }).strict(),
    output: z.string().describe('A success message.'),
  }),
  async execute({ path }, { policy }) {
    const tool = 'file_delete';
    refuseWhenReadOnly(policy, tool);
    const target = await confinePath(
      policy.fs.root,
      path,
      { tool, field: 'path' },
      { followFinalLink: false },
    );
    if (target.path === target.root) {
      throw new ToolError('TOOL_POLICY_DENIED', `"${path}" is the allowed folder itself`, {
        tool,
        field: 'path',
      });
    }
    if (!target.exists) {
      throw new ToolError('TOOL_NOT_FOUND', `"${path}" does not exist`, { tool, field: 'path' });
    }
    try {
      const info = await lstat(target.path);
      if (info.isDirectory()) await rmdir(target.path);
      else await unlink(target.path);
      await syncFolder(dirname(target.path));
    } catch (error) {
      throwFsError(error, tool, path);
    }
    return `Deleted ${path}`;
  },
});
