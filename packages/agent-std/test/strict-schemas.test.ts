// `toOpenAITools(toolbox, { strict: true })` against OpenAI's published strict-mode rules (the
// checker in helpers/openai-strict-rules.ts is written from the rules), and what a model sends
// under such schemas read back by `runOpenAIToolCalls`, over a real socket.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { isToolError } from '../src/errors.ts';
import { defineHostTool } from '../src/host-tool.ts';
import { runOpenAIToolCalls, toOpenAITools, toolStrictJsonSchema } from '../src/openai-tools.ts';
import { STD_TOOLS, type StdToolName } from '../src/registry.ts';
import { fromStrictArguments } from '../src/strict-schema.ts';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '../src/testing/index.ts';
import { NAMESPACES } from '../src/tool.ts';
import { cachedInputJsonSchema } from '../src/tool-schemas.ts';
import { createToolbox } from '../src/toolbox.ts';
import { strictFunctionViolations, strictModeViolations } from './helpers/openai-strict-rules.ts';

const everything = createToolbox({ uses: NAMESPACES });

/** A host tool using what zod offers beyond the std tools' schemas. */
const rich = defineHostTool({
  name: 'lecture_search',
  title: 'Search lectures',
  description: 'Search the lectures.',
  inputSchema: z.object({
    query: z.string().min(1).describe('What to look for.'),
    course: z.enum(['math', 'physics']).default('math'),
    limit: z.number().int().min(1).max(50).optional(),
    since: z.iso.datetime().optional(),
    contact: z.email().optional(),
    window: z.object({ from: z.string(), to: z.string().optional() }).optional(),
    tags: z.array(z.object({ name: z.string(), weight: z.number().default(1) })).default([]),
    weights: z.record(z.string(), z.number()).default({}),
    note: z.string().nullable().default(null),
    mode: z.union([z.literal('fast'), z.literal('deep')]).optional(),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  execute: async (input) => input,
});

describe('strict schemas of the 33 tools', () => {
  const strict = toOpenAITools(everything, { strict: true });

  test('every one follows the published strict-mode rules (33 of 33)', () => {
    expect(strict).toHaveLength(33);
    const failing = strict
      .map((definition) => ({
        name: definition.function.name,
        violations: strictFunctionViolations(definition),
      }))
      .filter((entry) => entry.violations.length > 0);
    expect(failing).toEqual([]);
  });

  test('the checker refuses what the non-strict schemas do (optional fields, default, …)', () => {
    const loose = toOpenAITools(everything);
    const rejected = loose.filter(
      (definition) =>
        strictModeViolations(definition.function.parameters).length > 0 ||
        definition.function.strict !== undefined,
    );
    // Every tool with an optional argument or a minLength breaks a rule when sent as it is.
    expect(rejected.map((definition) => definition.function.name).sort()).toEqual(
      Object.values(STD_TOOLS)
        .filter((tool) => {
          const schema = cachedInputJsonSchema(tool);
          const properties = Object.keys(schema.properties as object);
          const required = (schema.required as string[] | undefined) ?? [];
          return (
            properties.some((name) => !required.includes(name)) ||
            JSON.stringify(schema).includes('minLength')
          );
        })
        .map((tool) => tool.name)
        .sort(),
    );
    expect(rejected).toHaveLength(18);
    expect(strictModeViolations(loose.find(isNamed('http_get'))?.function.parameters)).toEqual(
      expect.arrayContaining([
        '(root).headers: not listed in required',
        '(root).headers: "default" is not supported',
        '(root).headers: "propertyNames" is not supported',
        '(root).headers: additionalProperties must be false',
      ]),
    );
  });

  test('optional arguments become required and nullable, records become key/value lists', () => {
    expect(toolStrictJsonSchema(STD_TOOLS.http_get)).toEqual({
      type: 'object',
      properties: {
        url: { type: 'string', description: 'Absolute http:// or https:// URL.' },
        headers: {
          description:
            'Extra request headers, e.g. {"Authorization": "Bearer …"}. Give the entries as a list of {"key", "value"} objects. Send null for the default ({}).',
          anyOf: [
            {
              type: 'array',
              items: {
                type: 'object',
                properties: { key: { type: 'string' }, value: { type: 'string' } },
                required: ['key', 'value'],
                additionalProperties: false,
              },
            },
            { type: 'null' },
          ],
        },
        timeout: {
          type: ['integer', 'null'],
          minimum: 1,
          maximum: 9007199254740991,
          description:
            'Seconds before the request is abandoned (default 30). Send null for the default (30).',
        },
      },
      required: ['url', 'headers', 'timeout'],
      additionalProperties: false,
    });
    expect(toolStrictJsonSchema(STD_TOOLS.time_diff).properties).toMatchObject({
      unit: {
        anyOf: [
          { type: 'string', enum: ['seconds', 'minutes', 'hours', 'days'] },
          { type: 'null' },
        ],
      },
    });
    // minLength is left out: the tool still checks it.
    expect(JSON.stringify(toolStrictJsonSchema(STD_TOOLS.shell_exec))).not.toContain('minLength');
  });

  test.each(Object.keys(STD_TOOLS) as StdToolName[])(
    '%s: null for every optional argument means its default',
    (name) => {
      const tool = STD_TOOLS[name];
      const strictSchema = toolStrictJsonSchema(tool);
      const sent = sampleFor(strictSchema);
      const parsed = tool.inputSchema.safeParse(
        fromStrictArguments(cachedInputJsonSchema(tool), sent, name),
      );
      expect(parsed.success).toBe(true);
      const defaults = tool.inputSchema.parse(
        Object.fromEntries(
          Object.entries(sent as Record<string, unknown>).filter(([, value]) => value !== null),
        ),
      );
      expect(parsed.data).toEqual(defaults);
    },
  );
});

describe('strict schemas of host tools', () => {
  test('a host tool with nested, optional, defaulted, record and union arguments follows the rules', () => {
    const [definition] = toOpenAITools([rich], { strict: true });
    expect(definition && strictFunctionViolations(definition)).toEqual([]);
    const { properties } = toolStrictJsonSchema(rich) as { properties: Record<string, unknown> };
    expect(properties.contact).toEqual({
      type: ['string', 'null'],
      format: 'email',
      description: 'Send null to leave it out.',
    });
    // A property that may be null keeps null as its own value.
    expect(properties.note).toEqual({
      type: ['string', 'null'],
      description: 'Send null for the default (null).',
    });
  });

  test('what a strict model sends for it is read back into the tool’s arguments', async () => {
    const toolbox = createToolbox({ uses: [], tools: [rich] });
    const reply = await toolbox.callForModel('lecture_search', {
      query: 'heaps',
      course: null,
      limit: null,
      since: null,
      contact: null,
      window: { from: 'a', to: null },
      tags: [{ name: 'x', weight: null }],
      weights: [
        { key: 'slides', value: 2 },
        { key: 'notes', value: 0.5 },
      ],
      note: null,
      mode: 'deep',
    });
    expect(reply.ok && reply.result).toEqual({
      query: 'heaps',
      course: 'math',
      window: { from: 'a' },
      tags: [{ name: 'x', weight: 1 }],
      weights: { slides: 2, notes: 0.5 },
      note: null,
      mode: 'deep',
    });
    const twice = await toolbox.callForModel('lecture_search', {
      query: 'x',
      weights: [
        { key: 'a', value: 1 },
        { key: 'a', value: 2 },
      ],
    });
    expect(twice).toMatchObject({
      ok: false,
      content: 'Error [TOOL_BAD_INPUT] lecture_search: weights: the key "a" is given twice',
    });
  });

  test('a schema strict mode cannot express fails with TOOL_BAD_DEFINITION naming the argument', () => {
    const anything = defineHostTool({
      name: 'store',
      description: 'Stores a value.',
      inputSchema: z.object({ key: z.string(), value: z.unknown() }),
      execute: async () => 'ok',
    });
    const pair = defineHostTool({
      name: 'pair',
      description: 'Takes a pair.',
      inputSchema: z.object({ pair: z.tuple([z.string(), z.number()]) }),
      execute: async () => 'ok',
    });
    for (const [tool, field] of [
      [anything, 'value'],
      [pair, 'pair'],
    ] as const) {
      let caught: unknown;
      try {
        toOpenAITools([tool], { strict: true });
      } catch (error) {
        caught = error;
      }
      expect(isToolError(caught) && caught).toMatchObject({
        code: 'TOOL_BAD_DEFINITION',
        tool: tool.name,
        field,
      });
    }
    // Without strict mode they are offered as they are.
    expect(toOpenAITools([anything, pair])).toHaveLength(2);
  });
});

describe('runOpenAIToolCalls reads what a strict model sends, over the wire', () => {
  let llm: FakeOpenAIServer;
  let site: ReturnType<typeof createServer>;
  let siteUrl: string;
  const seen: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    site = createServer((request, response) => {
      seen.push(request.headers);
      response.end('page body');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/page`;
    llm = await createFakeOpenAIServer({
      chat: [
        {
          type: 'tool-calls',
          calls: [
            {
              id: 'call_1',
              name: 'http_get',
              arguments: JSON.stringify({
                url: siteUrl,
                headers: [{ key: 'X-Lecture', value: '12' }],
                timeout: null,
              }),
            },
            {
              id: 'call_2',
              name: 'time_diff',
              arguments:
                '{"start":"2024-05-01T08:00:00Z","end":"2024-05-03T20:00:00Z","unit":null}',
            },
          ],
        },
      ],
    });
  });
  afterAll(async () => {
    await llm.close();
    await new Promise((resolve) => site.close(resolve));
  });

  test('headers as key/value entries reach the server; null takes the default', async () => {
    const toolbox = createToolbox({
      uses: ['std.http', 'std.time'],
      policy: { http: { allowPrivateNetwork: ['127.0.0.1'] } },
    });
    const client = new OpenAI({ baseURL: llm.baseURL, apiKey: 'test' });
    const completion = await client.chat.completions.create({
      model: 'fake',
      messages: [{ role: 'user', content: 'Fetch the page.' }],
      tools: toOpenAITools(toolbox, { strict: true }),
    });
    const sentTools = llm.chatRequests[0]?.body.tools as ChatCompletionFunctionTool[];
    expect(sentTools.every((tool) => tool.function.strict === true)).toBe(true);
    const outcomes = await runOpenAIToolCalls(
      toolbox,
      completion.choices[0]?.message.tool_calls ?? [],
    );
    expect(outcomes.map((outcome) => outcome.message.content)).toEqual([
      'page body',
      '{"value":216000,"unit":"seconds","days":2,"seconds":216000}',
    ]);
    expect(seen[0]?.['x-lecture']).toBe('12');
  });
});

const isNamed = (name: string) => (definition: ChatCompletionFunctionTool) =>
  definition.function.name === name;

/** An argument object a strict model could send: null where null is allowed, else a value. */
function sampleFor(schema: Record<string, unknown>): unknown {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('null')) return null;
  if (Array.isArray(schema.anyOf)) {
    return (schema.anyOf as Array<Record<string, unknown>>).some((branch) => branch.type === 'null')
      ? null
      : sampleFor(schema.anyOf[0] as Record<string, unknown>);
  }
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (types[0]) {
    case 'object':
      return Object.fromEntries(
        Object.entries(schema.properties as Record<string, Record<string, unknown>>).map(
          ([name, property]) => [name, sampleFor(property)],
        ),
      );
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 1) : 1;
    case 'array':
      return [];
    case 'boolean':
      return true;
    default:
      return 'x';
  }
}
