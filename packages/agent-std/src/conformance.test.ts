/**
 * Conformance with the tools' contract — the table "The 33 tools" in README.md: names,
 * namespaces, parameters (required or optional, types, defaults) and return records, transcribed
 * below once, so a schema change that breaks the contract fails here. The list of namespaces and
 * tools is derived from the registry and checked against it, and every handler is checked to take
 * exactly the parameters its schema declares. Finally every tool is called once for real and its
 * result validated against its output schema.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { STD_TOOLS, type StdToolName, TOOLS_BY_NAMESPACE } from './registry.ts';
import { NAMESPACES } from './tool.ts';
import { createToolbox } from './toolbox.ts';

type Param = { type: 'string' | 'integer' | 'object'; required: boolean; default?: unknown };
type Field = 'boolean' | 'string' | 'integer' | 'number' | 'string[]';
interface ContractTool {
  namespace: string;
  params: Record<string, Param>;
  record?: Record<string, Field>;
}

const R = (type: Param['type'] = 'string'): Param => ({ type, required: true });
const O = (defaultValue: unknown, type: Param['type'] = 'string'): Param => ({
  type,
  required: false,
  default: defaultValue,
});
const FORMAT = '%Y-%m-%d %H:%M:%S';
const statusBody: Record<string, Field> = { status: 'integer', body: 'string' };

/** The contract of every tool, transcribed. */
const CONTRACT: Record<StdToolName, ContractTool> = {
  file_read: { namespace: 'std.fs', params: { path: R(), encoding: O('utf-8') } },
  file_write: { namespace: 'std.fs', params: { path: R(), content: R(), encoding: O('utf-8') } },
  file_append: { namespace: 'std.fs', params: { path: R(), content: R(), encoding: O('utf-8') } },
  file_exists: {
    namespace: 'std.fs',
    params: { path: R() },
    record: { exists: 'boolean', path: 'string' },
  },
  file_list: {
    namespace: 'std.fs',
    params: { directory: R(), pattern: O('*') },
    record: { files: 'string[]', count: 'integer' },
  },
  file_delete: { namespace: 'std.fs', params: { path: R() } },
  http_get: {
    namespace: 'std.http',
    params: { url: R(), headers: O({}, 'object'), timeout: O(30, 'integer') },
  },
  http_post: {
    namespace: 'std.http',
    params: {
      url: R(),
      data: R(),
      headers: O({}, 'object'),
      content_type: O('application/json'),
      timeout: O(30, 'integer'),
    },
    record: statusBody,
  },
  http_put: {
    namespace: 'std.http',
    params: { url: R(), data: R(), headers: O({}, 'object'), timeout: O(30, 'integer') },
    record: statusBody,
  },
  http_delete: {
    namespace: 'std.http',
    params: { url: R(), headers: O({}, 'object'), timeout: O(30, 'integer') },
    record: statusBody,
  },
  time_now: { namespace: 'std.time', params: { format: O(FORMAT) } },
  time_diff: {
    namespace: 'std.time',
    params: { start: R(), end: R(), unit: O('seconds') },
    record: { value: 'number', unit: 'string', days: 'integer', seconds: 'number' },
  },
  time_format: { namespace: 'std.time', params: { iso_string: R(), format: O(FORMAT) } },
  time_sleep: {
    namespace: 'std.time',
    params: { seconds: R('integer') },
    record: { sleep: 'integer' },
  },
  time_timestamp: { namespace: 'std.time', params: {}, record: { timestamp: 'integer' } },
  json_parse: { namespace: 'std.json', params: { text: R() } },
  json_get: { namespace: 'std.json', params: { text: R(), path: R() } },
  json_stringify: { namespace: 'std.json', params: { data: R(), indent: O(2, 'integer') } },
  text_split: {
    namespace: 'std.text',
    params: { text: R(), delimiter: O('\n'), max_splits: O(-1, 'integer') },
    record: { parts: 'string[]', count: 'integer' },
  },
  text_replace: {
    namespace: 'std.text',
    params: { text: R(), old: R(), new: R(), count: O(-1, 'integer') },
  },
  text_upper: { namespace: 'std.text', params: { text: R() } },
  text_lower: { namespace: 'std.text', params: { text: R() } },
  hash_md5: { namespace: 'std.hash', params: { text: R() } },
  hash_sha256: { namespace: 'std.hash', params: { text: R() } },
  base64_encode: { namespace: 'std.hash', params: { text: R() } },
  base64_decode: { namespace: 'std.hash', params: { text: R() } },
  math_calc: {
    namespace: 'std.math',
    params: { expression: R() },
    record: { result: 'number', expression: 'string' },
  },
  math_random: { namespace: 'std.math', params: { min_val: R('integer'), max_val: R('integer') } },
  regex_match: {
    namespace: 'std.regex',
    params: { pattern: R(), text: R(), flags: O('') },
    record: { matches: 'string[]', count: 'integer' },
  },
  regex_replace: {
    namespace: 'std.regex',
    params: { pattern: R(), replacement: R(), text: R(), flags: O('') },
  },
  shell_exec: {
    namespace: 'std.shell',
    params: { command: R(), timeout: O(30, 'integer') },
    record: { stdout: 'string', stderr: 'string', returncode: 'integer', success: 'boolean' },
  },
  shell_which: {
    namespace: 'std.shell',
    params: { command: R() },
    record: { command: 'string', path: 'string', found: 'boolean' },
  },
  ask_human: { namespace: 'std.ask_human', params: { prompt: R(), default: O('') } },
};

/** Fields a record has beyond the contract's: documented additions, optional or always there. */
const ADDED_FIELDS: Partial<Record<StdToolName, Record<string, 'optional' | 'always'>>> = {
  file_list: { truncated: 'optional' },
  regex_match: { truncated: 'optional' },
  math_calc: { exact: 'always' },
};

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  default?: unknown;
  additionalProperties?: unknown;
}

/** The parameter names a handler reads: destructured `{ a, b }`, or `input.x` uses. */
function handlerParameters(source: string): string[] {
  const header = /^(?:async\s+)?(?:execute)?\s*\(\s*(\{[^}]*\}|[A-Za-z_$][\w$]*)/.exec(source);
  if (!header?.[1]) throw new Error(`cannot read the parameters of: ${source.slice(0, 80)}`);
  const first = header[1];
  if (first.startsWith('{')) {
    return first
      .slice(1, -1)
      .split(',')
      .map((part) => part.split(':')[0]?.trim() ?? '')
      .filter(Boolean);
  }
  if (first.startsWith('_')) return [];
  return [
    ...new Set(
      [...source.matchAll(new RegExp(`\\b${first}\\.(\\w+)`, 'g'))].map((m) => m[1] as string),
    ),
  ];
}

describe('conformance with the contract', () => {
  const names = Object.keys(STD_TOOLS) as StdToolName[];

  test("10 namespaces, 33 tools, each namespace resolving to the contract's tools", () => {
    expect(NAMESPACES).toHaveLength(10);
    expect(names).toHaveLength(33);
    expect(names.sort()).toEqual((Object.keys(CONTRACT) as StdToolName[]).sort());
    const counts = Object.fromEntries(NAMESPACES.map((ns) => [ns, TOOLS_BY_NAMESPACE[ns].length]));
    expect(counts).toEqual({
      'std.fs': 6,
      'std.http': 4,
      'std.time': 5,
      'std.json': 3,
      'std.text': 4,
      'std.hash': 4,
      'std.math': 2,
      'std.regex': 2,
      'std.shell': 2,
      'std.ask_human': 1,
    });
    for (const namespace of NAMESPACES) {
      const toolbox = createToolbox({ uses: [namespace] });
      expect(toolbox.tools.map((tool) => tool.name)).toEqual(TOOLS_BY_NAMESPACE[namespace]);
      for (const tool of toolbox.tools) expect(CONTRACT[tool.name].namespace).toBe(namespace);
    }
  });

  test.each(Object.keys(CONTRACT) as StdToolName[])(
    '%s: parameters, defaults and handler match',
    (name) => {
      const tool = STD_TOOLS[name];
      const contract = CONTRACT[name];
      expect(tool.name).toBe(name);
      expect(tool.description.length).toBeGreaterThan(20);
      const schema = z.toJSONSchema(tool.inputSchema, { io: 'input' }) as JsonSchema;
      expect(schema.additionalProperties).toBe(false);
      expect(Object.keys(schema.properties ?? {}).sort()).toEqual(
        Object.keys(contract.params).sort(),
      );
      expect((schema.required ?? []).sort()).toEqual(
        Object.entries(contract.params)
          .filter(([, param]) => param.required)
          .map(([key]) => key)
          .sort(),
      );
      for (const [key, param] of Object.entries(contract.params)) {
        const property = schema.properties?.[key] as JsonSchema;
        expect(property.type, `${name}.${key} type`).toBe(param.type);
        if (!param.required)
          expect(property.default, `${name}.${key} default`).toEqual(param.default);
      }
      expect(handlerParameters(tool.execute.toString()).sort()).toEqual(
        Object.keys(contract.params).sort(),
      );
    },
  );

  test.each(Object.keys(CONTRACT) as StdToolName[])(
    '%s: return shape matches the contract',
    (name) => {
      const contract = CONTRACT[name];
      const output = z.toJSONSchema(STD_TOOLS[name].outputSchema, { io: 'output' }) as JsonSchema;
      if (!contract.record) {
        if (name === 'json_get')
          expect(output.type).toBeUndefined(); // any JSON value
        else if (name === 'math_random') expect(output.type).toBe('integer');
        else expect(output.type).toBe('string');
        return;
      }
      expect(output.type).toBe('object');
      const properties = output.properties ?? {};
      const added = Object.entries(ADDED_FIELDS[name] ?? {});
      expect(Object.keys(properties).sort()).toEqual(
        [...Object.keys(contract.record), ...added.map(([field]) => field)].sort(),
      );
      expect((output.required ?? []).sort()).toEqual(
        [
          ...Object.keys(contract.record),
          ...added.filter(([, presence]) => presence === 'always').map(([field]) => field),
        ].sort(),
      );
      for (const [field, type] of Object.entries(contract.record)) {
        const property = properties[field] as JsonSchema;
        if (type === 'string[]') {
          expect(property.type).toBe('array');
          expect(property.items?.type).toBe('string');
        } else expect(property.type, `${name}.${field}`).toBe(type);
      }
    },
  );

  test('every tool runs once for real and its result matches its output schema', async () => {
    const root = await mkdtemp(join(tmpdir(), 'agent-std-conformance-'));
    const server = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(`${request.method} ok`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      await writeFile(join(root, 'a.txt'), 'hello');
      const toolbox = createToolbox({
        uses: [...NAMESPACES],
        policy: {
          fs: { root },
          http: { allowPrivateNetwork: ['127.0.0.1'] },
          shell: { enabled: true },
          askHuman: { handler: () => 'yes' },
        },
      });
      const inputs: Record<StdToolName, unknown> = {
        file_read: { path: 'a.txt' },
        file_write: { path: 'b.txt', content: 'x' },
        file_append: { path: 'b.txt', content: 'y' },
        file_exists: { path: 'b.txt' },
        file_list: { directory: '.' },
        file_delete: { path: 'b.txt' },
        http_get: { url },
        http_post: { url, data: '{}' },
        http_put: { url, data: '{}' },
        http_delete: { url },
        time_now: {},
        time_diff: { start: '2024-01-01', end: '2024-01-02' },
        time_format: { iso_string: '2024-01-01T10:00:00Z' },
        time_sleep: { seconds: 0 },
        time_timestamp: {},
        json_parse: { text: '{"a":1}' },
        json_get: { text: '{"a":[1]}', path: 'a.0' },
        json_stringify: { data: '[1]' },
        text_split: { text: 'a\nb' },
        text_replace: { text: 'aa', old: 'a', new: 'b' },
        text_upper: { text: 'a' },
        text_lower: { text: 'A' },
        hash_md5: { text: 'a' },
        hash_sha256: { text: 'a' },
        base64_encode: { text: 'a' },
        base64_decode: { text: 'YQ==' },
        math_calc: { expression: '1+1' },
        math_random: { min_val: 1, max_val: 2 },
        regex_match: { pattern: 'a', text: 'aa' },
        regex_replace: { pattern: 'a', replacement: 'b', text: 'aa' },
        shell_exec: { command: 'echo hi' },
        shell_which: { command: 'sh' },
        ask_human: { prompt: 'ok?' },
      };
      for (const name of Object.keys(inputs) as StdToolName[]) {
        const reply = await toolbox.callForModel(name, inputs[name]);
        expect(reply, name).toMatchObject({ ok: true });
        if (reply.ok) {
          expect(STD_TOOLS[name].outputSchema.safeParse(reply.result).success, name).toBe(true);
        }
      }
    } finally {
      server.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
