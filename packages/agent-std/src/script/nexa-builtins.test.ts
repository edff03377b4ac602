// The std tools as a script's agents use them: in Nexa's language (the nexa dialect) they mean
// what Nexa's built-ins mean; in the agent dialect they keep the meaning of the TypeScript API.
// Each case runs one tool call through the real script runner against the fake model over a
// real socket (the model calls the tool, then answers with what the tool gave it, which the
// script prints), once in each dialect.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { toOpenAITools } from '../openai-tools.ts';
import type { ToolPolicy } from '../policy.ts';
import { createFakeOpenAIServer } from '../testing/fake-openai-server.ts';
import { NAMESPACES } from '../tool.ts';
import { toolOutputJsonSchema } from '../tool-schemas.ts';
import { createToolbox } from '../toolbox.ts';
import { runAgentScript } from './run.ts';

let root: string;
let web: Server;
let baseUrl: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'agent-std-nexa-builtins-'));
  await mkdir(join(root, 'notes', 'sub'), { recursive: true });
  await writeFile(join(root, 'notes', 'a.txt'), 'a');
  await writeFile(join(root, 'notes', '{a,b}.txt'), 'braces');
  await writeFile(join(root, 'notes', 'sub', 'b.txt'), 'b');
  await writeFile(join(root, 'lines.txt'), 'one\r\ntwo\rthree\n');
  // Answers with the Content-Type it was sent, then 2500 "x".
  web = createServer((request, response) => {
    request.resume();
    request.on('end', () =>
      response.end(`type=${request.headers['content-type'] ?? 'none'};${'x'.repeat(2500)}`),
    );
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => web.close(resolve));
  await rm(root, { recursive: true, force: true });
});

const policy = (): ToolPolicy => ({
  fs: { root },
  http: { allowPrivateNetwork: ['127.0.0.1'] },
  shell: { enabled: true, unsandboxed: true },
  time: { timezone: 'Europe/Berlin', now: () => Date.UTC(2024, 4, 1, 7, 30) },
});

/** What the script prints when its agent calls `tool` with `args`, in the given dialect. */
async function callInScript(
  dialect: 'nexa' | 'agent',
  namespace: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<string> {
  const llm = await createFakeOpenAIServer({
    chat: ({ body }) => {
      const last = body.messages?.at(-1);
      if (last?.role === 'tool') return { type: 'text', content: `<${String(last.content)}>` };
      return { type: 'tool-calls', calls: [{ name: tool, arguments: JSON.stringify(args) }] };
    },
  });
  const printed: string[] = [];
  try {
    await runAgentScript(
      `agent Worker uses ${namespace} { prompt: "Use the tool." }\nflow main { print(Worker.run("go")) }`,
      {
        baseURL: llm.baseURL,
        apiKey: 'k',
        model: 'm',
        maxRetries: 0,
        fileName: dialect === 'nexa' ? 'builtins.nx' : 'builtins.agent',
        policy: policy(),
        print: (line) => printed.push(line),
      },
    );
  } finally {
    await llm.close();
  }
  expect(printed).toHaveLength(1);
  return (printed[0] as string).slice(1, -1);
}

interface Difference {
  /** What differs, as the README's table says it. */
  what: string;
  namespace: string;
  tool: string;
  args: () => Record<string, unknown>;
  /** Runs before each of the three calls. */
  before?: () => Promise<unknown>;
  /** What the model reads from the tool in a nexa-dialect script (Nexa's meaning). */
  nexa: string | RegExp;
  /** What it reads in the agent dialect and from `callForModel` (the TypeScript API). */
  js: string | RegExp;
}

const DIFFERENCES: Difference[] = [
  {
    what: 'regex_match with groups gives the groups',
    namespace: 'std.regex',
    tool: 'regex_match',
    args: () => ({ pattern: '(\\w+)@(\\w+)', text: 'ada@home bob@work' }),
    nexa: '{"matches": [["ada", "home"], ["bob", "work"]], "count": 2}',
    js: '{"matches":["ada@home","bob@work"],"count":2}',
  },
  {
    what: "regex_replace reads Python's replacement syntax",
    namespace: 'std.regex',
    tool: 'regex_replace',
    args: () => ({
      pattern: '(\\w+)@(?P<host>\\w+)',
      replacement: '\\g<host>:\\1 \\\\ $1',
      text: 'ada@home',
    }),
    nexa: 'home:ada \\ $1',
    js: '\\g<host>:\\1 \\\\ ada',
  },
  {
    what: '\\d, \\w and \\s match digits, letters and spaces of every script',
    namespace: 'std.regex',
    tool: 'regex_match',
    args: () => ({ pattern: '\\w+', text: '你好 world' }),
    nexa: '{"matches": ["你好", "world"], "count": 2}',
    js: '{"matches":["world"],"count":1}',
  },
  {
    what: 'regex_replace reads only the i flag',
    namespace: 'std.regex',
    tool: 'regex_replace',
    args: () => ({ pattern: '^b', replacement: 'B', text: 'a\nb', flags: 'm' }),
    nexa: 'a\nb',
    js: 'a\nB',
  },
  {
    what: 'regex flags other than i, m, s are ignored',
    namespace: 'std.regex',
    tool: 'regex_match',
    args: () => ({ pattern: 'a', text: 'aA', flags: 'gi' }),
    nexa: '{"matches": ["a", "A"], "count": 2}',
    js: /^Error \[TOOL_BAD_INPUT\] regex_match: flags: may only contain/,
  },
  {
    what: 'text_split with max_splits 0 splits at every delimiter',
    namespace: 'std.text',
    tool: 'text_split',
    args: () => ({ text: 'a,b,c', delimiter: ',', max_splits: 0 }),
    nexa: '{"parts": ["a", "b", "c"], "count": 3}',
    js: '{"parts":["a,b,c"],"count":1}',
  },
  {
    what: 'text_replace with count 0 replaces all',
    namespace: 'std.text',
    tool: 'text_replace',
    args: () => ({ text: 'a-b-c', old: '-', new: '+', count: 0 }),
    nexa: 'a+b+c',
    js: 'a-b-c',
  },
  {
    what: 'time_diff in days gives whole days, rounded down',
    namespace: 'std.time',
    tool: 'time_diff',
    args: () => ({ start: '2024-05-01T12:00:00', end: '2024-05-03T06:00:00', unit: 'days' }),
    nexa: '{"value": 1, "unit": "days", "days": 1, "seconds": 151200.0}',
    js: '{"value":1.75,"unit":"days","days":1,"seconds":151200}',
  },
  {
    what: "time_diff's days round down when end is earlier",
    namespace: 'std.time',
    tool: 'time_diff',
    args: () => ({ start: '2024-05-03T06:00:00', end: '2024-05-01T12:00:00', unit: 'hours' }),
    nexa: '{"value": -42.0, "unit": "hours", "days": -2, "seconds": -151200.0}',
    js: '{"value":-42,"unit":"hours","days":-1,"seconds":-151200}',
  },
  {
    what: 'time_diff subtracts times without an offset as wall-clock times',
    namespace: 'std.time',
    tool: 'time_diff',
    // Berlin moved its clocks forward on 2024-03-31: 23 hours passed, the clocks moved 24.
    args: () => ({ start: '2024-03-30T12:00:00', end: '2024-03-31T12:00:00', unit: 'hours' }),
    nexa: '{"value": 24.0, "unit": "hours", "days": 1, "seconds": 86400.0}',
    js: '{"value":23,"unit":"hours","days":0,"seconds":82800}',
  },
  {
    what: 'time_diff refuses a time without an offset against one with an offset',
    namespace: 'std.time',
    tool: 'time_diff',
    args: () => ({ start: '2024-05-01T08:00:00', end: '2024-05-01T08:00:00Z' }),
    nexa: /^Error \[TOOL_BAD_INPUT\] time_diff: can't subtract offset-naive and offset-aware datetimes/,
    js: '{"value":7200,"unit":"seconds","days":0,"seconds":7200}',
  },
  {
    what: 'time_diff with another unit gives seconds',
    namespace: 'std.time',
    tool: 'time_diff',
    args: () => ({ start: '2024-05-01T08:00:00', end: '2024-05-01T08:01:00', unit: 'weeks' }),
    nexa: '{"value": 60.0, "unit": "weeks", "days": 0, "seconds": 60.0}',
    js: /^Error \[TOOL_BAD_INPUT\] time_diff: unit: /,
  },
  {
    what: 'time_format shows no zone for a time without an offset',
    namespace: 'std.time',
    tool: 'time_format',
    args: () => ({ iso_string: '2024-05-01T09:30:00', format: '%H:%M [%Z] [%z]' }),
    nexa: '09:30 [] []',
    js: '09:30 [Europe/Berlin] [+0200]',
  },
  {
    what: 'time_now shows no zone',
    namespace: 'std.time',
    tool: 'time_now',
    args: () => ({ format: '%H:%M [%Z] [%z]' }),
    nexa: '09:30 [] []',
    js: '09:30 [Europe/Berlin] [+0200]',
  },
  {
    what: 'json_stringify with indent 0 puts each item on its own line',
    namespace: 'std.json',
    tool: 'json_stringify',
    args: () => ({ data: '{"a": [1, 2]}', indent: 0 }),
    nexa: '{\n"a": [\n1,\n2\n]\n}',
    js: '{"a":[1,2]}',
  },
  {
    what: 'json_parse writes floats as Python does',
    namespace: 'std.json',
    tool: 'json_parse',
    args: () => ({ text: '[2.50, 1E2, 1e16, 12345678901234567890]' }),
    nexa: '[\n  2.5,\n  100.0,\n  1e+16,\n  12345678901234567890\n]',
    js: '[\n  2.50,\n  1E2,\n  1e16,\n  12345678901234567890\n]',
  },
  {
    what: 'json_get reads a number in the path as a list index',
    namespace: 'std.json',
    tool: 'json_get',
    args: () => ({ text: '{"a": {"0": "zero"}}', path: 'a.0' }),
    nexa: /^Error \[TOOL_NOT_FOUND\] json_get: path "a\.0": "0" is a list index/,
    js: '"zero"',
  },
  {
    what: "json_get gives JSON text as Python's json.dumps writes it",
    namespace: 'std.json',
    tool: 'json_get',
    args: () => ({ text: '{"a": {"b": [1, 2.0], "c": null}}', path: 'a' }),
    nexa: '{"b": [1, 2.0], "c": null}',
    js: '{"b":[1,2],"c":null}',
  },
  {
    what: 'math_calc computes with floating-point numbers',
    namespace: 'std.math',
    tool: 'math_calc',
    args: () => ({ expression: '(0.1 + 0.2) * (6/3)' }),
    nexa: '{"result": 0.6000000000000001, "expression": "(0.1 + 0.2) * (6/3)"}',
    js: '{"result":0.6,"expression":"(0.1 + 0.2) * (6/3)","exact":true}',
  },
  {
    what: 'math_calc takes ** and //',
    namespace: 'std.math',
    tool: 'math_calc',
    args: () => ({ expression: '2**10 // 3' }),
    nexa: '{"result": 341, "expression": "2**10 // 3"}',
    js: /^Error \[TOOL_BAD_INPUT\] math_calc: expression: /,
  },
  {
    what: 'base64_decode needs the padding and skips characters outside the standard alphabet',
    namespace: 'std.hash',
    tool: 'base64_decode',
    args: () => ({ text: 'SGk' }),
    nexa: /^Error \[TOOL_BAD_INPUT\] base64_decode: text is not Base64: Incorrect padding/,
    js: 'Hi',
  },
  {
    what: 'file_write (and file_append, file_delete) say "Successfully"',
    namespace: 'std.fs',
    tool: 'file_write',
    args: () => ({ path: 'out/written.txt', content: 'hello' }),
    nexa: 'Successfully wrote 5 characters to out/written.txt',
    js: 'Wrote 5 characters to out/written.txt',
  },
  {
    what: "file_read reads line ends as Python's text files: \\r\\n and \\r are \\n",
    namespace: 'std.fs',
    tool: 'file_read',
    args: () => ({ path: 'lines.txt' }),
    nexa: 'one\ntwo\nthree\n',
    js: 'one\r\ntwo\rthree\n',
  },
  {
    what: 'file_delete deletes files only, not folders',
    namespace: 'std.fs',
    tool: 'file_delete',
    before: () => mkdir(join(root, 'empty'), { recursive: true }),
    args: () => ({ path: 'empty' }),
    nexa: /^Error \[TOOL_FAILED\] file_delete: "empty" is a folder/,
    js: 'Deleted empty',
  },
  {
    what: 'file_list: ** is one level and folders have no trailing slash',
    namespace: 'std.fs',
    tool: 'file_list',
    args: () => ({ directory: 'notes', pattern: '**' }),
    nexa: '{"files": ["notes/a.txt", "notes/sub", "notes/{a,b}.txt"], "count": 3}',
    js: '{"files":["notes/a.txt","notes/sub/","notes/sub/b.txt","notes/{a,b}.txt"],"count":4}',
  },
  {
    what: 'file_list: braces are plain characters',
    namespace: 'std.fs',
    tool: 'file_list',
    args: () => ({ directory: 'notes', pattern: '{a,b}.txt' }),
    nexa: '{"files": ["notes/{a,b}.txt"], "count": 1}',
    js: '{"files":["notes/a.txt"],"count":1}',
  },
  {
    what: 'file_list of a folder that does not exist finds nothing',
    namespace: 'std.fs',
    tool: 'file_list',
    args: () => ({ directory: 'missing' }),
    nexa: '{"files": [], "count": 0}',
    js: /^Error \[TOOL_NOT_FOUND\] file_list: folder "missing" does not exist/,
  },
  {
    what: 'http_put sends Content-Type application/json',
    namespace: 'std.http',
    tool: 'http_put',
    args: () => ({ url: `${baseUrl}/put`, data: '{}' }),
    nexa: /^\{"status": 200, "body": "type=application\/json;x+"\}$/,
    js: /^\{"status":200,"body":"type=none;x+"\}$/,
  },
  {
    what: 'http_post, http_put and http_delete give the first 2000 characters of the body',
    namespace: 'std.http',
    tool: 'http_delete',
    args: () => ({ url: `${baseUrl}/delete` }),
    nexa: `{"status": 200, "body": "type=none;${'x'.repeat(2000 - 'type=none;'.length)}"}`,
    js: `{"status":200,"body":"type=none;${'x'.repeat(2500)}"}`,
  },
  {
    what: 'shell_exec past its timeout is a result with returncode -1',
    namespace: 'std.shell',
    tool: 'shell_exec',
    args: () => ({ command: 'sleep 30', timeout: 1 }),
    nexa: '{"stdout": "", "stderr": "Command timed out after 1 seconds", "returncode": -1, "success": false}',
    js: /^Error \[TOOL_TIMEOUT\] shell_exec: the command ran longer than 1 s/,
  },
  {
    what: "shell_exec reads line ends as Python's text output: \\r\\n and \\r are \\n",
    namespace: 'std.shell',
    tool: 'shell_exec',
    args: () => ({ command: "printf 'a\\r\\nb\\rc'" }),
    nexa: '{"stdout": "a\\nb\\nc", "stderr": "", "returncode": 0, "success": true}',
    js: '{"stdout":"a\\r\\nb\\rc","stderr":"","returncode":0,"success":true}',
  },
  {
    what: 'shell_which gives path null for a program it does not find',
    namespace: 'std.shell',
    tool: 'shell_which',
    args: () => ({ command: 'no-such-program-here' }),
    nexa: '{"command": "no-such-program-here", "path": null, "found": false}',
    js: '{"command":"no-such-program-here","path":"","found":false}',
  },
  {
    what: "records reach the model as Python's json.dumps writes them",
    namespace: 'std.fs',
    tool: 'file_exists',
    args: () => ({ path: 'notes' }),
    nexa: '{"exists": true, "path": "notes"}',
    js: '{"exists":true,"path":"notes"}',
  },
];

const check = (actual: string, expected: string | RegExp) =>
  typeof expected === 'string' ? expect(actual).toBe(expected) : expect(actual).toMatch(expected);

describe("std tools in Nexa's language follow Nexa's built-ins; elsewhere the TypeScript API", () => {
  test.each(DIFFERENCES)('$what', async ({ namespace, tool, args, before, nexa, js }) => {
    await before?.();
    check(await callInScript('nexa', namespace, tool, args()), nexa);
    await before?.();
    check(await callInScript('agent', namespace, tool, args()), js);
    // The TypeScript API, called as a model would call it, keeps the JavaScript meaning.
    await before?.();
    const toolbox = createToolbox({ uses: [namespace as 'std.fs'], policy: policy() });
    check((await toolbox.callForModel(tool, args())).content, js);
  });

  test('the descriptions a model reads in a nexa script say what the tools do there', async () => {
    const nexa = createToolbox({ uses: ['std.regex', 'std.text'], semantics: 'nexa' });
    const descriptions = Object.fromEntries(
      nexa.tools.map((tool) => [tool.name, tool.description]),
    );
    expect(descriptions.regex_replace).toContain('\\g<name>');
    expect(descriptions.regex_replace).not.toContain('$&');
    expect(descriptions.text_split).toContain('0 or a negative number');
  });

  test("every tool in Nexa's meaning has JSON Schemas, strict ones too", () => {
    const nexa = createToolbox({ uses: [...NAMESPACES], semantics: 'nexa' });
    expect(toOpenAITools(nexa, { strict: true })).toHaveLength(33);
    for (const tool of nexa.tools) expect(() => toolOutputJsonSchema(tool)).not.toThrow();
  });

  test('an unknown semantics is refused by name', () => {
    expect(() => createToolbox({ uses: ['std.text'], semantics: 'python' as 'nexa' })).toThrowError(
      expect.objectContaining({ code: 'TOOL_BAD_POLICY', field: 'semantics' }),
    );
  });
});
