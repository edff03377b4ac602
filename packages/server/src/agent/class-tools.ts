// The class tools: the student's lectures as agent-std host tools — the in-app class agent
// calls them, and the MCP server offers them to other agents. All of them only read, and only
// the data folder (annotations: readOnlyHint, openWorldHint false).
import { defineHostTool } from '@class-assistant/agent-std';
import { z } from 'zod';
import type { Lectures } from './lectures.ts';

const ClassIdSchema = z
  .string()
  .describe(
    'A class id such as 20261123-101500-k3f9 (from class_list or class_search). Leave it out for the current class: the one being monitored, or else the last one.',
  );

const LOOKUP = { readOnlyHint: true, openWorldHint: false } as const;

const HitSchema = z.object({
  class_id: z.string().nullable(),
  course_name: z.string(),
  date: z.string().describe('Local start of the class, YYYY-MM-DD HH:MM.'),
  current: z.boolean().describe('The class being monitored, or else the last one.'),
  kind: z.enum(['line', 'material', 'notes']),
  line_id: z.number().int().optional().describe('The transcript line (for class_lines).'),
  time: z.string().optional().describe('When the line was said, HH:MM:SS.'),
  page: z.number().int().optional().describe('The material page or slide.'),
  text: z.string(),
});

const TIME = /^([01]?\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/;

/**
 * The class tools over the student's lectures: `class_list`, `class_search`, `class_lines`,
 * `material_page` and `notes_read`.
 *
 * @example
 * const toolbox = createToolbox({ uses: [], tools: createClassTools(lectures) });
 * await toolbox.call('material_page', { page: 12 });
 */
export function createClassTools(lectures: Lectures) {
  return [
    defineHostTool({
      name: 'class_list',
      title: 'List the classes (课堂列表)',
      description:
        "The student's recorded classes, newest first: id, course, date, number of lines, whether notes exist and which one is running. Use the ids with the other class tools.",
      inputSchema: z.object({
        course: z.string().optional().describe('Only classes of this course (exact name).'),
        limit: z.number().int().min(1).max(50).default(20).describe('Most classes to list.'),
      }),
      outputSchema: z.object({
        total: z.number().int(),
        classes: z.array(
          z.object({
            class_id: z.string(),
            course_name: z.string(),
            material_name: z.string(),
            date: z.string(),
            ended: z.boolean(),
            live: z.boolean(),
            line_count: z.number().int(),
            has_notes: z.boolean(),
          }),
        ),
      }),
      annotations: LOOKUP,
      execute: ({ course, limit }) =>
        lectures.list({ limit, ...(course === undefined ? {} : { course }) }),
    }),

    defineHostTool({
      name: 'class_search',
      title: 'Search the lectures (搜索课堂)',
      description:
        'Full-text search of what the teacher said (transcript lines with their time and line id), the class material (with its page) and the notes — in the current class and in every earlier class. Chinese works best with short words of 2 to 4 characters; several words separated by spaces must all match. Returns up to `limit` hits from the current class (lines in time order) and up to `limit` from other classes (best first). With class_id, searches that class only.',
      inputSchema: z.object({
        query: z.string().min(1).max(200).describe('Words to find, e.g. "堆" or "binary heap".'),
        class_id: ClassIdSchema.optional().describe('Search this class only.'),
        course: z.string().optional().describe('Only classes of this course (exact name).'),
        limit: z.number().int().min(1).max(30).default(10).describe('Most hits per group.'),
      }),
      outputSchema: z.object({
        hits: z.array(HitSchema),
        current_matches: z
          .number()
          .int()
          .describe('How many matches the current (or chosen) class has in all.'),
        note: z.string().optional(),
      }),
      annotations: LOOKUP,
      execute: ({ query, class_id, course, limit }) =>
        lectures.search(query, {
          limit,
          ...(class_id === undefined ? {} : { classId: class_id }),
          ...(course === undefined ? {} : { course }),
        }),
    }),

    defineHostTool({
      name: 'class_lines',
      title: 'Read the transcript (读字幕)',
      description:
        'Transcript lines of a class, with their times: those between `from` and `to` (HH:MM or HH:MM:SS, wall-clock times as in the transcript), or around one line id (from class_search), or else the last ones. The transcript comes from speech recognition and may contain misheard words.',
      inputSchema: z.object({
        class_id: ClassIdSchema.optional(),
        from: z.string().regex(TIME).optional().describe('Start time, e.g. "10:05".'),
        to: z.string().regex(TIME).optional().describe('End time, e.g. "10:15:30".'),
        around_line_id: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe('Lines around this line id (half before, half after).'),
        limit: z.number().int().min(1).max(200).default(40).describe('Most lines to return.'),
      }),
      outputSchema: z.object({
        class_id: z.string().nullable(),
        course_name: z.string(),
        date: z.string(),
        live: z.boolean(),
        total_lines: z.number().int(),
        more_before: z.number().int().describe('Lines of the class before the first one shown.'),
        more_after: z.number().int().describe('Lines of the class after the last one shown.'),
        lines: z.array(z.object({ id: z.number().int(), time: z.string(), text: z.string() })),
      }),
      annotations: LOOKUP,
      execute: ({ class_id, from, to, around_line_id, limit }) =>
        lectures.lines({
          limit,
          ...(class_id === undefined ? {} : { classId: class_id }),
          ...(from === undefined ? {} : { from }),
          ...(to === undefined ? {} : { to }),
          ...(around_line_id === undefined ? {} : { aroundLineId: around_line_id }),
        }),
    }),

    defineHostTool({
      name: 'material_page',
      title: 'Read a material page (查阅资料页)',
      description:
        'The text of one page or slide of the class material (the uploaded slides, PDF or document). By default the material of the current class; `material` names another: a class id (that class’s material) or an uploaded file’s name or part of it. Without `page` (and `material`): the page the teacher is on now in the running class, as followed live from what is said — an error when no class with material runs or nothing matched a page yet. An error lists the materials there are.',
      inputSchema: z.object({
        page: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe('Page or slide number, from 1; default: the page the teacher is on now.'),
        material: z
          .string()
          .min(1)
          .optional()
          .describe('A class id, or (part of) a material file name; default: the current class’s.'),
      }),
      outputSchema: z.object({
        material: z.string(),
        class_id: z.string().optional(),
        page: z.number().int(),
        pages: z.number().int().describe('How many pages the material has.'),
        text: z.string(),
        truncated: z.boolean(),
      }),
      annotations: LOOKUP,
      execute: ({ page, material }) =>
        lectures.materialPage({
          ...(page === undefined ? {} : { page }),
          ...(material === undefined ? {} : { material }),
        }),
    }),

    defineHostTool({
      name: 'notes_read',
      title: 'Read the notes (读笔记)',
      description:
        'The notes written after a class (Markdown): of the current class by default, of another class by class_id, or a notes file of data/summaries by its file name.',
      inputSchema: z.object({
        class_id: ClassIdSchema.optional(),
        filename: z
          .string()
          .optional()
          .describe('A notes file name such as 数据结构_20261123_101500.md.'),
      }),
      outputSchema: z.object({
        class_id: z.string().optional(),
        filename: z.string().optional(),
        course_name: z.string(),
        date: z.string(),
        notes: z.string(),
        truncated: z.boolean(),
      }),
      annotations: LOOKUP,
      execute: ({ class_id, filename }) =>
        lectures.notes({
          ...(class_id === undefined ? {} : { classId: class_id }),
          ...(filename === undefined ? {} : { filename }),
        }),
    }),
  ];
}

/** The class tools, as {@link createClassTools} makes them. */
export type ClassTools = ReturnType<typeof createClassTools>;

export { CLASS_TOOL_NAMES } from './agent-constants.ts';
