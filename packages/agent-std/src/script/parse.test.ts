import { describe, expect, test } from 'vitest';
import { dialectOf, isAgentScriptError, parseAgentScript } from './parse.ts';

const SEED_SHAPE = `
# The seed's usage shape
agent Researcher uses std.http, std.json, std.fs {
  role: "a meticulous research assistant",
  prompt: """
    Find the facts.
      Cite sources.
    """,
  model: "gpt-4o-mini"
}

agent Writer uses std.text { role: 'writer' prompt: "Write it up." }

flow main {
  notes = Researcher.run("Summarise https://example.com");
  draft = Writer.run(f"Turn these notes into prose: {notes}")
  print(draft);
  print("done", f"{{literal}} {draft}", "a" + notes)
}
`;

describe('parseAgentScript', () => {
  test('parses the seed shape: agents with uses, role, prompt, model; flow main', () => {
    const script = parseAgentScript(SEED_SHAPE, 'seed.agent');
    expect(script.agents).toEqual([
      {
        name: 'Researcher',
        uses: ['std.http', 'std.json', 'std.fs'],
        role: 'a meticulous research assistant',
        prompt: 'Find the facts.\n  Cite sources.\n',
        model: 'gpt-4o-mini',
        position: { line: 3, column: 1 },
      },
      {
        name: 'Writer',
        uses: ['std.text'],
        role: 'writer',
        prompt: 'Write it up.',
        model: undefined,
        position: { line: 12, column: 1 },
      },
    ]);
    const [main] = script.flows;
    expect(main?.name).toBe('main');
    expect(main?.body.map((statement) => statement.kind)).toEqual([
      'assign',
      'assign',
      'print',
      'print',
    ]);
    expect(main?.body[1]).toMatchObject({
      kind: 'assign',
      name: 'draft',
      value: {
        kind: 'run',
        agent: 'Writer',
        argument: {
          kind: 'fstring',
          parts: [
            'Turn these notes into prose: ',
            { name: 'notes', position: { line: 16, column: 54 } },
          ],
        },
      },
    });
    expect(main?.body[3]).toMatchObject({
      kind: 'print',
      arguments: [
        { kind: 'string', value: 'done' },
        { kind: 'fstring', parts: ['{literal} ', { name: 'draft' }] },
        { kind: 'concat' },
      ],
    });
  });

  test('escapes, both quote styles, // comments, std.ask_human', () => {
    const script = parseAgentScript(
      [
        'agent A uses std.ask_human { // comment',
        String.raw`  role: "tab\there \"quoted\" \u00e9 \{x\}", prompt: 'it\'s'`,
        '}',
        String.raw`flow main { x = "v"; print(f"\{x\} {x}") }`,
      ].join('\n'),
    );
    expect(script.agents[0]).toMatchObject({
      uses: ['std.ask_human'],
      role: 'tab\there "quoted" é {x}',
      prompt: "it's",
    });
    expect(script.flows[0]?.body[1]).toMatchObject({
      arguments: [{ kind: 'fstring', parts: ['{x} ', { name: 'x' }] }],
    });
  });

  test.each([
    ['agent A uses std.fs { role: "r", prompt: "p }\nflow main {}', 1, 42, 'unterminated string'],
    [
      'agent A uses std.fs {\n  role: "r",\n  prompt: """never closed\n}',
      3,
      11,
      'unterminated triple-quoted string',
    ],
    [
      'agent A uses std.fs, std.web {\n role: "r", prompt: "p" }\nflow main {}',
      1,
      22,
      'unknown namespace "std.web"',
    ],
    ['agent A uses std.fs { role: "r" }\nflow main {}', 1, 7, 'agent A has no prompt'],
    [
      'agent A { role: "r", prompt: "p", temperature: "1" }\nflow main {}',
      1,
      35,
      'unknown field "temperature"',
    ],
    [
      'agent A { role: "r", prompt: "p" }\nagent A { role: "r", prompt: "p" }\nflow main {}',
      2,
      7,
      'agent A is defined twice',
    ],
    [
      'agent A { role: "r", prompt: f"p" }\nflow main {}',
      1,
      30,
      'f-strings are only allowed inside flows',
    ],
    ['flow main {\n  x = Ghost.run("hi")\n}', 2, 7, 'there is no agent named Ghost'],
    ['flow main {\n  print(y)\n}', 2, 9, 'variable "y" is used before it is set'],
    [
      'flow main {\n  x = "a"\n  print(f"{x} and {z}")\n}',
      3,
      20,
      'variable "z" is used before it is set',
    ],
    ['flow main {\n  print(f"{not a name}")\n}', 2, 11, 'must be a variable name'],
    ['flow main {\n  print(f"{open")\n}', 2, 11, 'is not closed'],
    [
      'agent A { role: "r", prompt: "p" }\nflow main {\n  A.ask("x")\n}',
      3,
      5,
      'agents have one method, run',
    ],
    ['agent A { role: "r", prompt: "p" }\nflow other {}', 1, 1, 'no "flow main'],
    ['flow main {\n  "just a string"\n}', 2, 3, 'a statement must assign'],
    ['flow main {\n  x = @\n}', 2, 7, 'unexpected character "@"'],
    [
      'agent A { role: "r", prompt: "p" }\nflow main {\n  x = A.run("a"\n}',
      4,
      1,
      'expected ")" to close A.run',
    ],
    ['flow main {\n  print("x")\n', 3, 1, 'flow main is not closed'],
    ['hello', 1, 1, 'expected "agent" or "flow"'],
  ])('%j fails at %i:%i with %s', (source, line, column, reason) => {
    let failure: unknown;
    try {
      parseAgentScript(source, 'bad.agent');
    } catch (error) {
      failure = error;
    }
    expect(isAgentScriptError(failure)).toBe(true);
    expect(failure).toMatchObject({
      code: 'AGENT_SCRIPT_SYNTAX',
      line,
      column,
      fileName: 'bad.agent',
    });
    expect((failure as Error).message).toContain(reason);
    expect((failure as Error).message.startsWith(`bad.agent:${line}:${column}: `)).toBe(true);
  });
});

/** The first statement of `flow main` of a nexa-dialect script. */
function mainBody(source: string) {
  const script = parseAgentScript(source, 'test.nx');
  return script.flows.find((flow) => flow.name === 'main')?.body ?? [];
}

describe('parseAgentScript: declarations of the Nexa language', () => {
  test('dialects: .nx and .nxlib are nexa, everything else agent; an option overrides', () => {
    expect(dialectOf('a.nx')).toBe('nexa');
    expect(dialectOf('lib/x.NXLIB')).toBe('nexa');
    expect(dialectOf('a.agent')).toBe('agent');
    expect(dialectOf('<script>')).toBe('agent');
    const source = 'agent A { role: "only a role" }\nflow main {}';
    expect(parseAgentScript(source, 'a.nx').agents[0]).toMatchObject({
      role: 'only a role',
      prompt: '',
    });
    expect(parseAgentScript(source, 'a.txt', { dialect: 'nexa' }).dialect).toBe('nexa');
    expect(() => parseAgentScript(source, 'a.agent')).toThrow('agent A has no prompt');
  });

  test('agents: decorators, return type, uses of every kind, implements, contracts, extra fields', () => {
    const script = parseAgentScript(
      `/* a block
          comment */
       protocol Report { title: "string", score: int, tags: list[str], note: str?, any: str | int, }
       tool Lookup { description: "Looks up", parameters: { "q": "string" } }
       @limit(max_tokens=100)
       @temperature(value=0.5)
       agent Analyst -> str uses std.fs, std.json, Lookup, "skills.md", mcp:"http://mcp.example" implements Report
         requires "the input has numbers"
         ensures "the answer is short" {
         prompt: """
           Analyse.
         """
         model: "m-1"
         memory: "local", stream: true, cache: false, description: "an analyst"
         output_format: "json", output_schema: { "title": "string" }, max_tokens: 50, retry: 2,
         fallback: "m-2", timeout: 30, experience: "notes.md", uses: ["std.time", "std.hash"]
       }
       flow main { x = Analyst.run("numbers: 1, 2") }`,
      'a.nx',
    );
    const [agent] = script.agents;
    expect(agent).toMatchObject({
      name: 'Analyst',
      uses: ['std.fs', 'std.json', 'std.time', 'std.hash'],
      role: '',
      prompt: 'Analyse.\n',
      model: 'm-1',
      returnType: { kind: 'named', name: 'str' },
      implements: { name: 'Report', position: { line: 7, column: 109 } },
      tools: [
        { kind: 'tool', name: 'Lookup' },
        { kind: 'file', name: 'skills.md' },
        { kind: 'mcp', name: 'http://mcp.example' },
      ],
      contracts: [
        { kind: 'requires', condition: { kind: 'string', value: 'the input has numbers' } },
        { kind: 'ensures', condition: { kind: 'string', value: 'the answer is short' } },
      ],
      position: { line: 5, column: 8 },
    });
    expect(
      agent?.decorators?.map((decorator) => [decorator.name, [...decorator.arguments]]),
    ).toEqual([
      ['limit', [['max_tokens', 100]]],
      ['temperature', [['value', 0.5]]],
    ]);
    expect(agent?.fields?.map((field) => [field.name, field.value])).toEqual([
      ['memory', 'local'],
      ['stream', true],
      ['cache', false],
      ['description', 'an analyst'],
      ['output_format', 'json'],
      ['output_schema', new Map([['title', 'string']])],
      ['max_tokens', 50],
      ['retry', 2],
      ['fallback', 'm-2'],
      ['timeout', 30],
      ['experience', 'notes.md'],
    ]);
    expect(script.protocols[0]?.fields.map((field) => [field.name, field.type.kind])).toEqual([
      ['title', 'named'],
      ['score', 'named'],
      ['tags', 'named'],
      ['note', 'optional'],
      ['any', 'union'],
    ]);
    expect(parseAgentScript('agent B uses [std.time, Lookup] { }', 'b.nx').agents[0]).toMatchObject(
      { uses: ['std.time'], tools: [{ kind: 'tool', name: 'Lookup' }] },
    );
    expect(script.tools[0]).toMatchObject({
      name: 'Lookup',
      fields: [{ name: 'description' }, { name: 'parameters' }],
    });
  });

  test('flows with parameters, return types and contracts; tests, @tool fn, include, let, types', () => {
    const script = parseAgentScript(
      `include "lib.nxlib";
       let limit = 3
       type Score = int @ "between 0 and 10"
       struct Point { x: Int, y: Int }
       enum Shape { Dot, Circle(radius) }
       trait Shows { fn show(): String }
       impl Shows for Point { fn show() { "point" } }
       job Mail on "mails" (retry: 2) { timeout: 60  perform(to) { print(to) } }
       @tool("Adds numbers")
       fn add(a: int, b: int = 1): int { return a + b }
       flow pay(amount: float, note: str = "none") -> str
         requires amount > 0
         ensures "it is paid" {
         return "paid " + note
       }
       test "pays" { assert pay(2) == "paid none" }
       flow main { print(add(1, 2)) }`,
      'a.nx',
    );
    expect(script.flows[0]).toMatchObject({
      name: 'pay',
      parameters: [
        { name: 'amount', type: { name: 'float' }, default: undefined },
        { name: 'note', type: { name: 'str' }, default: 'none' },
      ],
      returnType: { name: 'str' },
      contracts: [
        { kind: 'requires', condition: { kind: 'binary', operator: '>' } },
        { kind: 'ensures', condition: { kind: 'string', value: 'it is paid' } },
      ],
    });
    expect(script.tests).toMatchObject([{ name: 'pays', body: [{ kind: 'assert' }] }]);
    expect(script.functions).toMatchObject([
      {
        name: 'add',
        parameters: [{ name: 'a' }, { name: 'b', default: 1 }],
        decorators: [{ name: 'tool', positional: ['Adds numbers'] }],
      },
    ]);
    expect(script.includes).toEqual([
      { path: 'lib.nxlib', position: { line: 1, column: 9 }, fileName: 'a.nx' },
    ]);
    expect(script.statements.map((statement) => statement.kind)).toEqual(['include', 'let']);
    expect(
      script.declarations.map((declaration) => `${declaration.kind} ${declaration.name}`),
    ).toEqual([
      'type Score',
      'struct Point',
      'enum Shape',
      'trait Shows',
      'impl Shows for Point',
      'job Mail',
    ]);
  });

  test('servers, db/kv/auth, agent bodies with methods parse and become run-time constructs', () => {
    const script = parseAgentScript(
      `db store = connect("sqlite://:memory:")
       server 8080 {
         cors { origins: ["*"] }
         static "/assets" from "./public"
         route GET "/chat" => Chat
         semantic route "/help" => Chat
         group "/admin" { route POST "/x" => Chat |>> Chat }
       }
       agent Chat {
         model "m"
         fn reply(text) { return text }
         memory = store
       }`,
      'a.nx',
    );
    expect(script.statements).toMatchObject([
      { kind: 'unsupported', construct: 'db declarations' },
      { kind: 'unsupported', construct: 'server declarations' },
    ]);
    expect(script.agents[0]).toMatchObject({
      model: 'm',
      members: [
        { kind: 'method', name: 'reply' },
        { kind: 'assign', name: 'memory' },
      ],
    });
  });
});

describe('parseAgentScript: statements and expressions of the Nexa language', () => {
  test('literals, arithmetic, comparisons, logic and interpolation', () => {
    const [assign, print] = mainBody(
      'flow main {\n  x = [1, -2.5, "a", true, null, {k: 1, "j": [2]}, map { "m": 3 }]\n  print("#{x[0] + 2 * 3} and #{x ?? \'none\'}", not x == 1 or 2 < 3 and -x != 4 % 2)\n}',
    );
    expect(assign).toMatchObject({
      kind: 'assign',
      value: {
        kind: 'list',
        items: [
          { kind: 'number', value: 1 },
          { kind: 'number', value: -2.5 },
          { kind: 'string', value: 'a' },
          { kind: 'boolean', value: true },
          { kind: 'null' },
          { kind: 'record', entries: [{ key: 'k' }, { key: 'j', value: { kind: 'list' } }] },
          { kind: 'record', entries: [{ key: 'm' }] },
        ],
      },
    });
    expect(print).toMatchObject({
      kind: 'print',
      arguments: [
        {
          kind: 'interpolation',
          parts: [
            {
              kind: 'concat',
              left: { kind: 'index' },
              right: { kind: 'binary', operator: '*' },
              position: { line: 3, column: 17 },
            },
            ' and ',
            { kind: 'coalesce', right: { kind: 'string', value: 'none' } },
          ],
        },
        {
          kind: 'binary',
          operator: 'or',
          left: { kind: 'not', operand: { kind: 'binary', operator: '==' } },
          right: {
            kind: 'binary',
            operator: 'and',
            right: { kind: 'binary', operator: '!=', left: { kind: 'negate' } },
          },
        },
      ],
    });
  });

  test('pipelines and DAG operators, left to right; ?? with ":" branches', () => {
    const body = mainBody(
      `agent A { prompt: "a" } agent B { prompt: "b" } agent C { prompt: "c" }
       flow main {
         one = "q" >> A >> B
         two = "q" |>> [A, B] &>> C >> A
         three = "q" |>> [A, B] && C
         "q" || [A, B]
         four = x ?? A : B
         five = x ?? "default"
         six = "q" |> A.run
         seven = A.run("q")? otherwise B.run("q") fallback "none"
         eight = A.run("q", 2)
       }`,
    );
    expect(
      body.map((statement) => (statement.kind === 'assign' ? statement.value : statement)),
    ).toMatchObject([
      {
        kind: 'pipeline',
        input: { kind: 'pipeline', input: { kind: 'string' }, stage: { name: 'A' } },
        stage: { name: 'B' },
      },
      {
        kind: 'pipeline',
        input: {
          kind: 'merge',
          consensus: false,
          input: { kind: 'fork', wait: true, targets: [{ name: 'A' }, { name: 'B' }] },
          merger: { name: 'C' },
        },
        stage: { name: 'A' },
      },
      { kind: 'merge', consensus: true, input: { kind: 'fork' } },
      { kind: 'expression', expression: { kind: 'fork', wait: false } },
      {
        kind: 'branch',
        input: { name: 'x' },
        whenPresent: { name: 'A' },
        otherwise: { name: 'B' },
      },
      { kind: 'coalesce', right: { kind: 'string', value: 'default' } },
      { kind: 'pipe', target: { kind: 'member', name: 'run' } },
      {
        kind: 'fallback',
        primary: { kind: 'propagate', operand: { kind: 'run', agent: 'A' } },
        backup: {
          kind: 'fallback',
          primary: { kind: 'run', agent: 'B' },
          backup: { kind: 'string', value: 'none' },
        },
      },
      { kind: 'run', argument: { kind: 'words', parts: [{ kind: 'string' }, { kind: 'number' }] } },
    ]);
  });

  test('control flow: if/else if/else, while, for each, for patterns, loop until, try/catch, break, return', () => {
    const body = mainBody(
      `flow main {
         if (n > 2) { a = 1 } else if (n > 1) { a = 2 } else { a = 3 }
         while (true) { break; }
         for each i, item in [1, 2] { continue }
         for (k, v) in pairs { print(k) }
         loop { n = n + 1 } until ("n is big")
         try { risky() } catch (ContractViolation e) { print(e) }
         try { risky() } catch { print("no name") }
       }`,
    );
    expect(body).toMatchObject([
      {
        kind: 'if',
        condition: { operator: '>' },
        body: [{ kind: 'assign' }],
        otherwise: [{ kind: 'if', otherwise: [{ kind: 'assign' }] }],
      },
      { kind: 'while', condition: { kind: 'boolean' }, body: [{ kind: 'break' }] },
      {
        kind: 'for',
        index: 'i',
        pattern: { kind: 'bind', name: 'item' },
        body: [{ kind: 'continue' }],
      },
      {
        kind: 'for',
        index: undefined,
        pattern: { kind: 'tuple', items: [{ name: 'k' }, { name: 'v' }] },
      },
      { kind: 'loop-until', condition: { kind: 'string', value: 'n is big' } },
      { kind: 'try', error: 'e', handler: [{ kind: 'print' }] },
      { kind: 'try', error: undefined },
    ]);
  });

  test('semantic_if, match on intents and on patterns with guards, let destructuring, assert, verify', () => {
    const body = mainBody(
      String.raw`flow main {
         semantic_if "mentions a date" fast_match r"\d{4}" against text { print("dated") } else { print("no") }
         semantic_if "greets" fast_match: "(hi|hello)" against text { print("hi") }
         route = match text { intent("weather") => "w", intent("news") => "n", _ => "other" }
         size = match xs {
           [] => "empty"
           [only] => only
           [first, second..rest] if first > 0 => rest
           {name, age: years, ..others} => name
           (a, b) => a
           Shape::Circle(r) => r
           "x" => "literal"
         }
         let [head, ..tail] = xs
         let (a, b): Pair = pair
         assert size != null
         assert "is friendly" against reply
         verify reply satisfies str | int
         verify "is short" against reply
       }`,
    );
    expect(body[0]).toMatchObject({
      kind: 'semantic-if',
      condition: 'mentions a date',
      fastMatch: String.raw`\d{4}`,
      otherwise: [{}],
    });
    expect(body[1]).toMatchObject({
      kind: 'semantic-if',
      fastMatch: '(hi|hello)',
      otherwise: undefined,
    });
    expect(body[2]).toMatchObject({
      value: {
        kind: 'match',
        arms: [
          { pattern: { kind: 'intent', description: 'weather' } },
          { pattern: { kind: 'intent' } },
          { pattern: { kind: 'wildcard' } },
        ],
      },
    });
    expect(body[3]).toMatchObject({
      value: {
        arms: [
          { pattern: { kind: 'array', items: [], rest: undefined } },
          { pattern: { kind: 'array', items: [{ name: 'only' }] } },
          {
            pattern: {
              kind: 'array',
              items: [{ name: 'first' }, { name: 'second' }],
              rest: 'rest',
            },
            guard: { operator: '>' },
          },
          {
            pattern: {
              kind: 'record',
              entries: [{ key: 'name' }, { key: 'age', pattern: { name: 'years' } }],
              rest: 'others',
            },
          },
          { pattern: { kind: 'tuple' } },
          { pattern: { kind: 'variant', path: 'Shape::Circle', items: [{ name: 'r' }] } },
          { pattern: { kind: 'literal', value: 'x' } },
        ],
      },
    });
    expect(body.slice(4)).toMatchObject([
      { kind: 'let', pattern: { kind: 'array', items: [{ name: 'head' }], rest: 'tail' } },
      { kind: 'let', pattern: { kind: 'tuple' } },
      { kind: 'assert', condition: { operator: '!=' }, against: undefined },
      {
        kind: 'assert',
        condition: { kind: 'string', value: 'is friendly' },
        against: { name: 'reply' },
      },
      { kind: 'verify', type: { kind: 'union' }, condition: undefined },
      { kind: 'verify', subject: { name: 'reply' }, condition: 'is short' },
    ]);
  });
});
