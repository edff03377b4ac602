import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, expectTypeOf, test } from 'vitest';
import { isToolError, ToolError } from './errors.ts';
import type { ToolInput, ToolResult } from './registry.ts';
import { createToolbox } from './toolbox.ts';
import type { RawJsonNumber } from './tools/exact-json.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agent-std-toolbox-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('access by declaration', () => {
  test('tools lists exactly the declared namespaces, in order', () => {
    const toolbox = createToolbox({ uses: ['std.math', 'std.hash'] });
    expect(toolbox.tools.map((tool) => tool.name)).toEqual([
      'math_calc',
      'math_random',
      'hash_md5',
      'hash_sha256',
      'base64_encode',
      'base64_decode',
    ]);
    expect(createToolbox({ uses: [] }).tools).toEqual([]);
  });

  test('an undeclared tool fails with TOOL_NOT_DECLARED and never runs', async () => {
    const toolbox = createToolbox({ uses: ['std.math'], policy: { fs: { root } } });
    const call = toolbox.call as (name: string, input: unknown) => Promise<unknown>;
    await expect(call('file_write', { path: 'x.txt', content: 'forged' })).rejects.toMatchObject({
      code: 'TOOL_NOT_DECLARED',
      tool: 'file_write',
      message: expect.stringContaining('std.fs'),
    });
    const forged = await toolbox.callForModel('file_write', '{"path":"y.txt","content":"forged"}');
    expect(forged).toMatchObject({ ok: false, error: { code: 'TOOL_NOT_DECLARED' } });
    expect(forged.content).toMatch(/^Error \[TOOL_NOT_DECLARED\] file_write: /);
    expect(await readdir(root)).toEqual([]);
  });

  test('an undeclared call is refused before its arguments are even looked at', async () => {
    const toolbox = createToolbox({ uses: ['std.math'] });
    const reply = await toolbox.callForModel('shell_exec', '{not json');
    expect(reply).toMatchObject({ ok: false, error: { code: 'TOOL_NOT_DECLARED' } });
  });

  test('unknown and invented names fail with TOOL_UNKNOWN, prototype names included', async () => {
    const toolbox = createToolbox({ uses: ['std.math'] });
    for (const name of ['delete_everything', 'toString', '__proto__', 'constructor', '']) {
      const reply = await toolbox.callForModel(name, {});
      expect(reply).toMatchObject({ ok: false, error: { code: 'TOOL_UNKNOWN' } });
    }
    const call = toolbox.call as (name: unknown, input: unknown) => Promise<unknown>;
    await expect(call(42, {})).rejects.toMatchObject({ code: 'TOOL_UNKNOWN' });
  });

  test('an unknown namespace in uses is refused when the toolbox is built', () => {
    const build = createToolbox as (options: { uses: string[] }) => unknown;
    expect(() => build({ uses: ['std.fs', 'std.network'] })).toThrow(
      expect.objectContaining({
        code: 'TOOL_UNKNOWN',
        message: expect.stringContaining('std.network'),
      }),
    );
    expect(() => build({ uses: ['fs'] })).toThrow(
      expect.objectContaining({ code: 'TOOL_UNKNOWN' }),
    );
  });
});

describe('argument validation', () => {
  const toolbox = createToolbox({ uses: ['std.text', 'std.http', 'std.time'] });
  const call = toolbox.call as (name: string, input: unknown) => Promise<unknown>;

  test('extra arguments are refused, naming them and the allowed ones', async () => {
    await expect(call('text_upper', { text: 'a', locale: 'tr' })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'locale',
      message: 'unexpected argument "locale" (allowed: text)',
    });
  });

  test('missing and mistyped arguments name the field', async () => {
    await expect(call('text_split', {})).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'text',
      message: expect.stringContaining('missing required argument "text"'),
    });
    await expect(call('text_split', { text: 'a', max_splits: '2' })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'max_splits',
    });
    await expect(call('text_split', { text: 'a', max_splits: 1.5 })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'max_splits',
    });
    await expect(call('http_get', { url: 'http://x/', headers: { A: 1 } })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'headers.A',
    });
  });

  test('arguments that are not an object are refused', async () => {
    for (const input of [null, [], 'text', 3, undefined]) {
      await expect(call('text_upper', input)).rejects.toMatchObject({
        code: 'TOOL_BAD_INPUT',
        message: expect.stringContaining('must be an object with "text"'),
      });
    }
  });
});

describe('callForModel', () => {
  const toolbox = createToolbox({ uses: ['std.time', 'std.math', 'std.text'] });

  test('parses JSON arguments; strings come back as is, records as JSON', async () => {
    expect(await toolbox.callForModel('text_upper', '{"text":"hi"}')).toEqual({
      ok: true,
      content: 'HI',
      result: 'HI',
    });
    expect(await toolbox.callForModel('math_calc', '{"expression":"6*7"}')).toEqual({
      ok: true,
      content: '{"result":42,"expression":"6*7","exact":true}',
      result: { result: 42, expression: '6*7', exact: true },
    });
    expect(await toolbox.callForModel('math_calc', { expression: '1+1' })).toMatchObject({
      ok: true,
      result: { result: 2 },
    });
  });

  test('empty arguments mean "no arguments"; malformed JSON is a readable error', async () => {
    expect(await toolbox.callForModel('time_timestamp', '')).toMatchObject({ ok: true });
    const reply = await toolbox.callForModel('math_calc', '{"expression": "1+1"');
    expect(reply.ok).toBe(false);
    expect(reply.content).toMatch(
      /^Error \[TOOL_BAD_INPUT\] math_calc: the arguments are not valid JSON/,
    );
  });

  test('tool failures become messages, never exceptions', async () => {
    const reply = await toolbox.callForModel('math_calc', { expression: '1/0' });
    expect(reply).toMatchObject({ ok: false });
    expect(reply.content).toBe(
      'Error [TOOL_BAD_INPUT] math_calc: expression: division by zero at column 2',
    );
  });

  test('an aborted call is reported as aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(
      await toolbox.callForModel('text_upper', { text: 'x' }, { signal: controller.signal }),
    ).toMatchObject({ ok: false, error: { code: 'TOOL_ABORTED' } });
  });
});

describe('policy and errors', () => {
  test('invalid policy values are refused naming the field', () => {
    const cases: Array<[Parameters<typeof createToolbox>[0]['policy'], string]> = [
      [{ fs: { maxReadBytes: -1 } }, 'policy.fs.maxReadBytes'],
      [{ http: { maxTimeoutSeconds: 1.5 } }, 'policy.http.maxTimeoutSeconds'],
      [{ http: { allowPrivateNetwork: ['intranet'] } }, 'policy.http.allowPrivateNetwork'],
      [{ shell: { env: { 'BAD KEY': 'x' } } }, 'policy.shell.env'],
      [{ time: { timezone: 'Nowhere/City' } }, 'policy.time.timezone'],
      [{ fs: { allowHardLinks: 'yes' as never } }, 'policy.fs.allowHardLinks'],
      [{ shell: { unsandboxed: 1 as never } }, 'policy.shell.unsandboxed'],
      [{ shell: { allowNetwork: 'no' as never } }, 'policy.shell.allowNetwork'],
      [{ shell: { readOnlyPaths: ['tools/bin'] } }, 'policy.shell.readOnlyPaths'],
    ];
    for (const [policy, field] of cases) {
      expect(() => createToolbox({ uses: [], ...(policy ? { policy } : {}) })).toThrow(
        expect.objectContaining({ code: 'TOOL_BAD_POLICY', field }),
      );
    }
  });

  test('defaults are safe: cwd root, shell off, no private network, 30 s tool timeouts', () => {
    const { policy } = createToolbox({ uses: [] });
    expect(policy.fs.root).toBe(process.cwd());
    expect(policy.shell.enabled).toBe(false);
    expect(policy.shell.unsandboxed).toBe(false);
    expect(policy.shell.allowNetwork).toBe(false);
    expect(policy.fs.allowHardLinks).toBe(false);
    expect(policy.http.allowPrivateNetwork).toBe(false);
    expect(Object.isFrozen(policy.http)).toBe(true);
  });

  test('isToolError recognises tool errors by marker, not by shape or class identity', () => {
    const error = new ToolError('TOOL_FAILED', 'x');
    expect(isToolError(error)).toBe(true);
    expect(isToolError(Object.assign(new Error('x'), { code: 'TOOL_FAILED' }))).toBe(false);
    expect(isToolError({ code: 'TOOL_FAILED', message: 'x' })).toBe(false);
    const fromAnotherCopy = {
      code: 'TOOL_FAILED',
      [Symbol.for('@class-assistant/agent-std/ToolError')]: true,
    };
    expect(isToolError(fromAnotherCopy)).toBe(true);
    expect(isToolError(null)).toBe(false);
  });
});

describe('types', () => {
  test('inputs and results are inferred from the schemas', async () => {
    const toolbox = createToolbox({ uses: ['std.math', 'std.fs'] });
    expectTypeOf(toolbox.call('math_calc', { expression: '1' })).resolves.toEqualTypeOf<{
      result: number | RawJsonNumber;
      expression: string;
      exact: boolean;
    }>();
    expectTypeOf<ToolInput<'file_read'>>().toEqualTypeOf<{
      path: string;
      encoding?: string | undefined;
    }>();
    expectTypeOf<ToolResult<'file_list'>>().toEqualTypeOf<{
      files: string[];
      count: number;
      truncated?: boolean | undefined;
    }>();
    expectTypeOf<ToolInput<'time_diff'>['unit']>().toEqualTypeOf<
      'seconds' | 'minutes' | 'hours' | 'days' | undefined
    >();
    expectTypeOf<ToolResult<'file_read'>>().toBeString();
    expectTypeOf(toolbox.uses).toEqualTypeOf<readonly ('std.math' | 'std.fs')[]>();
    expectTypeOf(toolbox.call)
      .parameter(0)
      .toEqualTypeOf<
        | 'math_calc'
        | 'math_random'
        | 'file_read'
        | 'file_write'
        | 'file_append'
        | 'file_exists'
        | 'file_list'
        | 'file_delete'
      >();

    const typeErrors = () => {
      // @ts-expect-error shell_exec is not declared in uses
      void toolbox.call('shell_exec', { command: 'ls' });
      // @ts-expect-error expression must be a string
      void toolbox.call('math_calc', { expression: 1 });
      // @ts-expect-error path is required
      void toolbox.call('file_read', {});
    };
    void typeErrors;
    expect((await toolbox.call('math_calc', { expression: '2*3' })).result).toBe(6);
  });
});
