// The class agent's view of the data folder as files: `class_files` lists the class content
// (read-view.ts decides what that is) and `class_file_read` reads one of those files. They take
// the place of agent-std's std.fs, which would reach every file of the folder.
import { defineHostTool, ToolError } from '@class-assistant/agent-std';
import { z } from 'zod';
import { classContentPath, listClassContent, readClassContent } from './read-view.ts';

const LOOKUP = { readOnlyHint: true, openWorldHint: false } as const;

/** Most characters `class_file_read` returns (a model reads all of it). */
const CLASS_FILE_CHARS = 30_000;
/** Most paths `class_files` returns. */
const MAX_LISTED = 500;

/**
 * `class_files` and `class_file_read` over the class content of `dataDir`.
 *
 * @example
 * const toolbox = createToolbox({ uses: [], tools: createClassFileTools(dataDir) });
 * await toolbox.call('class_file_read', { path: 'class_transcript.txt' });
 */
export function createClassFileTools(dataDir: string) {
  return [
    defineHostTool({
      name: 'class_files',
      title: 'List the class files (课堂文件)',
      description:
        'The class files of the data folder, as paths for class_file_read: the live transcript (class_transcript.txt), the current material (current_class_material.txt), uploaded material texts (cite/*.txt), notes (summaries/*.md) and each class folder (classes/<class-id>/transcript.txt, class.json, notes.md, material.txt), newest class first. Nothing else of the folder is readable.',
      inputSchema: z.object({
        prefix: z
          .string()
          .optional()
          .describe('Only paths starting with this, e.g. "cite/" or a class folder.'),
      }),
      outputSchema: z.object({
        files: z.array(z.string()),
        count: z.number().int(),
        truncated: z.boolean(),
      }),
      annotations: LOOKUP,
      execute: async ({ prefix }) => {
        const all = (await listClassContent(dataDir)).filter(
          (path) => prefix === undefined || path.startsWith(prefix.replaceAll('\\', '/')),
        );
        return {
          files: all.slice(0, MAX_LISTED),
          count: all.length,
          truncated: all.length > MAX_LISTED,
        };
      },
    }),

    defineHostTool({
      name: 'class_file_read',
      title: 'Read a class file (读取课堂文件)',
      description: `The text of one class file (a path from class_files), up to ${CLASS_FILE_CHARS} characters. Only class content can be read: transcripts, class.json, material texts and notes. Prefer class_lines, material_page and notes_read, which give lines, pages and notes in pieces.`,
      inputSchema: z.object({
        path: z
          .string()
          .min(1)
          .describe(
            'Path relative to the data folder, e.g. classes/20261123-101500-k3f9/notes.md.',
          ),
      }),
      outputSchema: z.object({
        path: z.string(),
        text: z.string(),
        truncated: z.boolean(),
      }),
      annotations: LOOKUP,
      execute: async ({ path }) => {
        const parts = classContentPath(path);
        if (!parts) {
          throw new ToolError(
            'TOOL_POLICY_DENIED',
            `"${path}" is not class content: only transcripts, class files, material texts and notes can be read (class_files lists them)`,
            { field: 'path' },
          );
        }
        const text = await readClassContent(dataDir, parts);
        if (text === undefined) {
          throw new ToolError(
            'TOOL_NOT_FOUND',
            `no class file "${path}" (class_files lists them)`,
            { field: 'path' },
          );
        }
        const truncated = text.length > CLASS_FILE_CHARS;
        return {
          path: parts.join('/'),
          text: truncated ? `${text.slice(0, CLASS_FILE_CHARS)}\n…` : text,
          truncated,
        };
      },
    }),
  ];
}
