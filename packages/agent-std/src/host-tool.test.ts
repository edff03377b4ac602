import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { isToolError, ToolError } from './errors.ts';
import { defineHostTool } from './host-tool.ts';
import type { ToolContext } from './tool.ts';
import { createToolbox } from './toolbox.ts';

const slides = ['Heaps', 'Binary search trees', 'Hash tables'];

const slideText = defineHostTool({
  name: 'slide_text',
  title: 'Read a slide',
  description: 'The text of one slide, by number.',
  inputSchema: z.object({
    number: z.number().int().min(1).describe('Slide number, from 1.'),
    upper: z.boolean().default(false),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  execute: async ({ number, upper }) => {
    const text = slides[number - 1];
    if (text === undefined) {
      throw new ToolError('TOOL_NOT_FOUND', `there is no slide ${number}`, { field: 'number' });
    }
    return upper ? text.toUpperCase() : text;
  },
});

const slideCount = defineHostTool({
  name: 'slide_count',
  description: 'How many slides there are.',
  inputSchema: z.object({}),
  outputSchema: z.object({ count: z.number() }),
  execute: () => ({ count: slides.length }),
});

const root = mkdtempSync(join(tmpdir(), 'agent-std-host-'));
writeFileSync(join(root, 'notes.txt'), 'my notes');
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('defineHostTool', () => {
  test('fills title and annotations from what is given, with MCP’s defaults for the rest', () => {
    expect(slideText).toMatchObject({
      name: 'slide_text',
      namespace: 'host',
      title: 'Read a slide',
      annotations: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    });
    expect(slideCount).toMatchObject({
      title: 'Slide count',
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true,
      },
    });
    expect(Object.isFrozen(slideText)).toBe(true);
  });

  test('refuses unusable definitions with TOOL_BAD_DEFINITION naming the field', () => {
    const attempt = (options: Record<string, unknown>) => {
      try {
        defineHostTool({
          name: 'ok_name',
          description: 'Does things.',
          inputSchema: z.object({}),
          execute: async () => 'done',
          ...options,
        } as Parameters<typeof defineHostTool>[0]);
      } catch (error) {
        return isToolError(error)
          ? { code: error.code, field: error.field, message: error.message }
          : error;
      }
      return undefined;
    };
    expect(attempt({ name: 'has space' })).toMatchObject({
      code: 'TOOL_BAD_DEFINITION',
      field: 'name',
    });
    expect(attempt({ name: 'x'.repeat(65) })).toMatchObject({ field: 'name' });
    expect(attempt({ name: 'file_read' })).toEqual({
      code: 'TOOL_BAD_DEFINITION',
      field: 'name',
      message: 'host tool file_read: "file_read" is the name of a standard tool; choose another',
    });
    expect(attempt({ description: ' ' })).toMatchObject({ field: 'description' });
    expect(attempt({ execute: 'nope' })).toMatchObject({ field: 'execute' });
    expect(attempt({ inputSchema: z.string() })).toMatchObject({ field: 'inputSchema' });
    expect(attempt({ inputSchema: z.object({ when: z.date() }) })).toMatchObject({
      field: 'inputSchema',
      message: expect.stringContaining('no JSON Schema'),
    });
  });

  test('infers the argument type of execute from the schema, and types toolbox.call', async () => {
    defineHostTool({
      name: 'typed',
      description: 'Typed.',
      inputSchema: z.object({ count: z.number(), label: z.string().default('x') }),
      execute: async (input, context) => {
        expectTypeOf(input).toEqualTypeOf<{ count: number; label: string }>();
        expectTypeOf(context).toEqualTypeOf<ToolContext>();
        return input.count;
      },
    });
    const toolbox = createToolbox({ uses: ['std.math'], tools: [slideText, slideCount] });
    expectTypeOf(toolbox.call<'slide_text'>)
      .parameter(1)
      .toEqualTypeOf<{ number: number; upper?: boolean | undefined }>();
    expectTypeOf(toolbox.call<'slide_count'>).returns.resolves.toEqualTypeOf<{ count: number }>();
    expectTypeOf(toolbox.call<'math_calc'>)
      .parameter(1)
      .toEqualTypeOf<{ expression: string }>();
    expect(await toolbox.call('slide_text', { number: 2 })).toBe('Binary search trees');
    // @ts-expect-error: a host tool's arguments are typed like the standard tools'
    await expect(toolbox.call('slide_text', { page: 2 })).rejects.toThrow(ToolError);
    // @ts-expect-error: tools not granted are no names to call
    await expect(toolbox.call('file_read', { path: 'x' })).rejects.toThrow(
      /TOOL_NOT_DECLARED|std\.fs/,
    );
  });
});

describe('host tools in a toolbox', () => {
  const toolbox = createToolbox({
    uses: ['std.fs', 'std.text'],
    tools: [slideText, slideCount],
    policy: { fs: { root, readOnly: true } },
  });

  test('are listed after the namespaces’ tools; with read-only files the writing fs tools are not', () => {
    expect(toolbox.tools.map((tool) => tool.name)).toEqual([
      'file_read',
      'file_exists',
      'file_list',
      'text_split',
      'text_replace',
      'text_upper',
      'text_lower',
      'slide_text',
      'slide_count',
    ]);
  });

  test('are checked and reported like the standard tools', async () => {
    expect(await toolbox.callForModel('slide_text', '{"number": 1, "upper": true}')).toEqual({
      ok: true,
      content: 'HEAPS',
      result: 'HEAPS',
    });
    expect(await toolbox.callForModel('slide_count', '')).toMatchObject({
      ok: true,
      content: '{"count":3}',
    });
    expect((await toolbox.callForModel('slide_text', '{"number": 0}')).content).toBe(
      'Error [TOOL_BAD_INPUT] slide_text: number: Too small: expected number to be >=1',
    );
    expect((await toolbox.callForModel('slide_text', '{"number": 1, "page": 2}')).content).toBe(
      'Error [TOOL_BAD_INPUT] slide_text: unexpected argument "page" (allowed: number, upper)',
    );
    expect((await toolbox.callForModel('slide_text', '{}')).content).toBe(
      'Error [TOOL_BAD_INPUT] slide_text: missing required argument "number" (number)',
    );
    // The tool's own error, with the tool named although it did not name itself.
    const missing = await toolbox.callForModel('slide_text', { number: 9 });
    expect(missing.content).toBe('Error [TOOL_NOT_FOUND] slide_text: there is no slide 9');
    expect(!missing.ok && missing.error).toMatchObject({ tool: 'slide_text', field: 'number' });
    // Standard tools of undeclared namespaces stay refused.
    expect((await toolbox.callForModel('math_calc', '{"expression":"1"}')).content).toMatch(
      /^Error \[TOOL_NOT_DECLARED\] math_calc/,
    );
  });

  test('a read-only policy refuses the writing fs tools and writes nothing', async () => {
    expect(await toolbox.call('file_read', { path: 'notes.txt' })).toBe('my notes');
    const write = await toolbox.callForModel('file_write', '{"path":"notes.txt","content":"x"}');
    expect(write.content).toBe(
      'Error [TOOL_POLICY_DENIED] file_write: the files are read-only here (policy.fs.readOnly); file_write cannot change them',
    );
    for (const [name, args] of [
      ['file_append', { path: 'notes.txt', content: 'x' }],
      ['file_delete', { path: 'notes.txt' }],
    ] as const) {
      expect((await toolbox.callForModel(name, args)).ok).toBe(false);
    }
    expect(await toolbox.call('file_read', { path: 'notes.txt' })).toBe('my notes');
  });

  test('anything else a host tool throws is TOOL_FAILED; one ignoring its signal is abandoned', async () => {
    const broken = defineHostTool({
      name: 'broken',
      description: 'Fails.',
      inputSchema: z.object({}),
      execute: async () => {
        throw new Error('disk on fire');
      },
    });
    const stuck = defineHostTool({
      name: 'stuck',
      description: 'Never ends.',
      inputSchema: z.object({}),
      execute: () => new Promise<string>(() => {}),
    });
    const box = createToolbox({ uses: [], tools: [broken, stuck] });
    expect((await box.callForModel('broken', {})).content).toBe(
      'Error [TOOL_FAILED] broken: broken failed: disk on fire',
    );
    const controller = new AbortController();
    const pending = box.callForModel('stuck', {}, { signal: controller.signal });
    controller.abort();
    expect((await pending).content).toBe('Error [TOOL_ABORTED] stuck: the call was aborted');
  });

  test('a toolbox refuses duplicate names and things that are not host tools', () => {
    const codeOf = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return isToolError(error) ? [error.code, error.message] : error;
      }
    };
    expect(codeOf(() => createToolbox({ uses: [], tools: [slideText, slideText] }))).toEqual([
      'TOOL_BAD_DEFINITION',
      'two tools are named "slide_text"',
    ]);
    expect(
      codeOf(() =>
        createToolbox({
          uses: [],
          tools: [{ ...slideText, namespace: 'std.fs', name: 'file_read' }] as never,
        }),
      ),
    ).toEqual(['TOOL_BAD_DEFINITION', 'tools[0] is not a host tool; make it with defineHostTool']);
  });
});
