import { describe, expect, test } from 'vitest';
import { unsupportedUses } from './check.ts';
import { isAgentScriptError, parseAgentScript } from './parse.ts';

function problem(source: string, fileName: string) {
  try {
    parseAgentScript(source, fileName);
  } catch (error) {
    if (isAgentScriptError(error)) return `${error.line}:${error.column} ${error.reason}`;
    throw error;
  }
  return 'ok';
}

describe('syntax errors of the new constructs name the line and column (both dialects)', () => {
  test.each([
    ['flow main { x = "a" |>> A }', '1:25 "|>>" sends to a list of agents: input |>> [A, B]'],
    ['flow main {\n  match x {}\n}', '2:3 match has no arms'],
    [
      'flow main {\n  loop { x = 1 }\n}',
      '3:1 expected "until" after the loop body (loop { … } until ("condition")), found "}"',
    ],
    [
      '@cache(on=1)\nagent A { prompt: "p" }',
      '1:2 unknown decorator @cache; known: @limit, @timeout, @retry, @temperature, @tool',
    ],
    ['@limit(max_tokens=1)\nflow main {}', '2:1 a decorator goes before "agent", found "flow"'],
    [
      'flow main {\n  semantic_if "c" { }\n}',
      '2:19 expected "against" after the semantic_if condition, found "{"',
    ],
    ['flow main { break }', '1:13 "break" outside a loop'],
    ['return 1\nflow main {}', '1:1 "return" outside a flow or a function'],
    ['agent A { prompt: "p" }\nflow A {}', '2:1 A is declared both as an agent and as a flow'],
    [
      'server 80 {\n  route FETCH "/" => A\n}',
      '2:9 unknown HTTP method "FETCH"; known: GET, POST, PUT, DELETE, PATCH, HEAD, OPTIONS',
    ],
    [
      'flow main { 1 = x }',
      '1:15 only a variable, a field (x.name) or an item (x[i]) can be assigned',
    ],
    ['flow main { x = {a: 1, a: 2} }', '1:24 key "a" is given twice'],
    [
      'agent A uses "std.web" { prompt: "p" }',
      '1:14 unknown namespace "std.web"; known: std.fs, std.http, std.time, std.json, std.text, std.hash, std.math, std.regex, std.shell, std.ask_human',
    ],
  ])('%j', (source, expected) => {
    expect(problem(source, 'x.nx')).toBe(expected);
    expect(problem(source, 'x.agent')).toBe(expected);
  });

  test('an interpolation is parsed where it stands (nexa dialect only)', () => {
    expect(problem('flow main { print("#{x +}") }', 'x.nx')).toBe(
      '1:25 expected an expression, found the end of the file',
    );
    expect(problem('flow main { print("#{x +}") }', 'x.agent')).toBe('ok');
  });
});

describe('the agent dialect checks names before anything runs', () => {
  test.each([
    [
      'agent A { prompt: "p" }\nflow main { A.clone() }',
      '2:15 agents have one method, run; found "clone"',
    ],
    ['flow main { x = shout("hi") }', '1:17 there is no flow, function or agent named "shout"'],
    [
      'flow helper(a) { return a }\nflow main { x = helper }',
      '2:17 helper is a flow or a function; call it: helper(…)',
    ],
    ['agent A { prompt: "p" }\nflow main { x = A }', '2:17 A is an agent; call A.run("…")'],
    ['flow main { for each x in xs { print(x) } }', '1:27 variable "xs" is used before it is set'],
    [
      'agent A implements Missing { prompt: "p" }\nflow main {}',
      '1:20 there is no protocol named Missing',
    ],
    [
      'agent A { prompt: "p", mood: "calm" }\nflow main {}',
      expect.stringMatching(
        /^1:24 unknown field "mood" in agent A; fields: role, prompt, model, description/,
      ),
    ],
  ])('%j', (source, expected) => {
    expect(problem(source, 'x.agent')).toEqual(expected);
  });

  test('names are set by assignments, let, for, catch, parameters and match arms, in text order', () => {
    const source = `
      agent A { prompt: "p" }
      flow twice(text) { return text + text }
      let greeting = "hi"
      flow main {
        let [first, ..rest] = [1, 2, 3]
        for each index, item in rest { total = index + item }
        try { answer = A.run(greeting) } catch (error) { answer = error }
        label = match first { 1 => "one", n if n > 1 => str(n), _ => "none" }
        joined = "q" >> A >> twice
        both = "q" |>> [A, A] &>> A
        print(first, total, answer, label, joined, both, twice(greeting), join(A, A))
      }`;
    expect(problem(source, 'x.agent')).toBe('ok');
    // a match arm's names stay in the arm
    expect(problem('flow main { x = match 1 { n => n }\n print(n) }', 'x.agent')).toBe(
      '2:8 variable "n" is used before it is set',
    );
  });

  test('the nexa dialect leaves names to the run: unknown names, agents without prompt, no main', () => {
    const source = `
      agent Router { role: "routes", mood: "calm" }
      flow first { print(undefined_thing) }
      flow second { Router.clone() }`;
    expect(problem(source, 'x.nx')).toBe('ok');
    expect(problem(source, 'x.agent')).toMatch(/^2:38 unknown field "mood" in agent Router/);
    expect(problem('agent Router { role: "routes" }\nflow main {}', 'x.agent')).toBe(
      '1:7 agent Router has no prompt',
    );
  });
});

describe('unsupportedUses', () => {
  test('lists the constructs that parse but cannot run yet, in file order', () => {
    const script = parseAgentScript(
      `tool Search { description: "web" }
       agent A uses Search, mcp:"http://x" { prompt: "p"  fn helper() { return 1 } }
       kv cache = open(":memory:")
       flow main {
         python! """print(1)"""
         autoloop max_steps: 3 { x = template"""{{a}}""" }
         w = spawn A("go")
         include_later = 1
       }`,
      'x.nx',
    );
    expect(
      unsupportedUses(script).map(
        (use) => `${use.position.line}:${use.position.column} ${use.construct}`,
      ),
    ).toEqual([
      '2:21 agents using script tools (Search)',
      '2:29 agents using MCP servers (http://x)',
      '2:59 agent bodies with methods (helper)',
      '3:8 kv declarations',
      '5:10 python! blocks',
      '6:10 autoloop',
      '6:38 template strings',
      '7:14 spawn (actors)',
    ]);
  });
});
