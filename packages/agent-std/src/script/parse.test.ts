import { describe, expect, test } from 'vitest';
import { isAgentScriptError, parseAgentScript } from './parse.ts';

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
