import { afterEach, describe, expect, test } from 'vitest';
import {
  createFakeOpenAIServer,
  type FakeChatReply,
  type FakeOpenAIServer,
  type RecordedChatRequest,
} from '../testing/fake-openai-server.ts';
import { type AgentScriptRunOptions, runAgentScript } from './run.ts';
import { isAgentScriptError } from './script-error.ts';
import { CONDITION_PROMPT, INTENT_PROMPT } from './semantic.ts';

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const system = (request: RecordedChatRequest) => String(request.body.messages?.[0]?.content ?? '');
const instruction = (request: RecordedChatRequest) =>
  String(request.body.messages?.at(-1)?.content ?? '');

interface FakeModel {
  /** Answers to yes/no judgements, in order (then "yes"). */
  conditions?: string[];
  /** Answers to intent choices, in order (then "1"). */
  intents?: string[];
  /** Agents' answers; default: `<prompt>(<instruction>)`. */
  answer?: (request: RecordedChatRequest) => FakeChatReply;
}

/** A fake model over a real socket: judgements from queues, agents echo by default. */
async function fakeModel(model: FakeModel = {}) {
  const conditions = [...(model.conditions ?? [])];
  const intents = [...(model.intents ?? [])];
  server = await createFakeOpenAIServer({
    chat: (request) => {
      if (system(request) === CONDITION_PROMPT) {
        return { type: 'text', content: conditions.shift() ?? 'yes' };
      }
      if (system(request) === INTENT_PROMPT)
        return { type: 'text', content: intents.shift() ?? '1' };
      return (
        model.answer?.(request) ?? {
          type: 'text',
          content: `${system(request).split('\n\n')[0]}(${instruction(request)})`,
        }
      );
    },
  });
  return server;
}

/** Run options against the fake model: fixed key and model, `test.nx`, print into `printed`. */
const runOptions = (llm: FakeOpenAIServer, printed: string[], options: AgentScriptRunOptions) => ({
  baseURL: llm.baseURL,
  apiKey: 'k',
  model: 'm',
  maxRetries: 0,
  fileName: 'test.nx',
  print: (line: string) => printed.push(line),
  ...options,
});

/** Runs a nexa-dialect script against the fake model; what it printed, its result, its requests. */
async function run(source: string, model: FakeModel = {}, options: AgentScriptRunOptions = {}) {
  const llm = await fakeModel(model);
  const printed: string[] = [];
  const result = await runAgentScript(source, runOptions(llm, printed, options));
  return { printed, result, requests: llm.chatRequests };
}

/** Runs a script that must fail with a script error; where, why, and what printed before. */
async function failure(source: string, model: FakeModel = {}, options: AgentScriptRunOptions = {}) {
  const llm = await fakeModel(model);
  const printed: string[] = [];
  try {
    await runAgentScript(source, runOptions(llm, printed, options));
  } catch (error) {
    if (!isAgentScriptError(error)) throw error;
    return { code: error.code, at: `${error.line}:${error.column}`, reason: error.reason, printed };
  }
  throw new Error('the run did not fail');
}

const judgements = (requests: RecordedChatRequest[]) =>
  requests.filter((request) => [CONDITION_PROMPT, INTENT_PROMPT].includes(system(request)));
const agentRuns = (requests: RecordedChatRequest[]) =>
  requests
    .filter((request) => ![CONDITION_PROMPT, INTENT_PROMPT].includes(system(request)))
    .map((request) => `${system(request).split('\n\n')[0]} <- ${instruction(request)}`);

describe('runAgentScript: values and deterministic control flow (no model calls)', () => {
  test('literals, operators, text forms, builtins, interpolation, records and lists', async () => {
    const { printed, result, requests } = await run(`
      flow main {
        n = 7
        missing = null
        items = [1, "two", true, null, {k: [3]}]
        print(n + 2 * 3, (n + 2) * 3, n / 2, n % 3, -n % 3, 2 - -1)
        print(items, items[1], items[-1].k, len(items), len("héllo"), str(4) + "2", int("12") + 1, float("0.5"))
        print(n > 5 and "big" or "small", n == 7.0, [1, [2]] == [1, [2]], "b" > "a", not items)
        print("#{n} items, first #{items[0] + 1}, #{missing ?? 'fallback'}", "\\#{literal}")
        record = {name: "Ada"}
        record.city = "London"
        record["age"] = 36
        items[0] = "one"
        print(record, items[0] + 1, [1] + [2], "n=" + n, null ?? "empty")
      }`);
    expect(printed).toEqual([
      '13 27 3.5 1 2 3',
      '[1,"two",true,null,{"k":[3]}] two [3] 5 5 42 13 0.5',
      'big true true true false',
      '7 items, first 2, fallback #{literal}',
      '{"name":"Ada","city":"London","age":36} one1 [1,2] n=7 empty',
    ]);
    expect(result.variables).toMatchObject({
      n: 7,
      record: { name: 'Ada', city: 'London', age: 36 },
      missing: null,
    });
    expect(requests).toHaveLength(0);
  });

  test('if / else if, while with break and continue, for each with index, let, defer, assert, verify', async () => {
    const { printed } = await run(`
      flow grade(score) {
        if (score >= 90) { return "A" } else if (score >= 80) { return "B" } else { return "C" }
      }
      flow main {
        defer print("deferred first")
        defer print("deferred last")
        print(grade(95), grade(85), grade(10))
        count = 0
        while (true) {
          count = count + 1
          if (count % 2 == 0) { continue }
          if (count > 5) { break }
          print("odd", count)
        }
        for each index, letter in "ab" { print(index, letter) }
        for each key in {x: 1, y: 2} { print(key) }
        for (name, age) in [["Ada", 36], ["Alan", 41]] { print(name + ":" + age) }
        let [first, ..rest] = [1, 2, 3]
        let {city, ..other} = {city: "Paris", zip: "75"}
        print(first, rest, city, other)
        assert first == 1
        verify rest satisfies list
        verify city satisfies str | int
      }`);
    expect(printed).toEqual([
      'A B C',
      'odd 1',
      'odd 3',
      'odd 5',
      '0 a',
      '1 b',
      'x',
      'y',
      'Ada:36',
      'Alan:41',
      '1 [2,3] Paris {"zip":"75"}',
      'deferred last',
      'deferred first',
    ]);
  });

  test('match on values: literals, lists, records, guards, bindings; no arm gives null', async () => {
    const { printed } = await run(`
      flow describe(value) {
        return match value {
          0 => "zero"
          [] => "empty list"
          [only] => "one: " + only
          [head, ..tail] if len(tail) > 1 => "long, from " + head
          (a, b) => "pair " + a + b
          {name, age: years} => name + " is " + years
          "skip" => { note = "blocks end with a value"
                      note }
          n if n > 100 => "big"
        }
      }
      flow main {
        for each value in [0, [], [1], [1, 2, 3], [4, 5], {name: "Ada", age: 36}, 500, "skip", 3] {
          print(describe(value))
        }
      }`);
    expect(printed).toEqual([
      'zero',
      'empty list',
      'one: 1',
      'long, from 1',
      'pair 45',
      'Ada is 36',
      'big',
      'blocks end with a value',
      '',
    ]);
  });

  test('flows: positional and named arguments, defaults, missing ones are null; no flow main runs every flow without parameters', async () => {
    const { printed, result } = await run(`
      let prefix = "#"
      flow label(text, mark = "!", extra) { return prefix + text + mark + str(extra) }
      flow first { print(label("a"), label("b", "?"), label(text: "c", extra: 1)) }
      flow skipped(needed) { print("never: flows with parameters are called, not run") }
      flow second { print("second") }`);
    expect(printed).toEqual(['#a! #b? #c!1', 'second']);
    expect(result.variables).toEqual({ prefix: '#' });
  });
});

describe('runAgentScript: agents, pipelines and DAG operators', () => {
  test('>> pipes an answer on; |> calls; |>> runs in parallel; &>> and && merge; ?? branches; join', async () => {
    const { printed, requests } = await run(`
      agent A { prompt: "A" }
      agent B { prompt: "B" }
      agent Judge { prompt: "J" }
      flow shout(text) { return text + "!" }
      flow main {
        print("q" >> A >> B >> shout)
        print("q" |> A.run, "q" |> shout, A.run("x", 2))
        both = "q" |>> [A, B]
        print(both)
        print("q" |>> [A, B] &>> Judge)
        print([A, B] &>> Judge)
        print(null ?? A : B, "" ?? A : B, "q" ?? A : B)
        print(join(A, B).Judge("task"))
      }`);
    expect(printed[0]).toBe('B(A(q))!');
    expect(printed[1]).toBe('A(q) q! A(x 2)');
    expect(printed[2]).toBe('["A(q)","B(q)"]');
    expect(printed[3]).toBe('J(A(q)\n---\nB(q))');
    expect(printed[4]).toBe('J(A()\n---\nB())');
    expect(printed[5]).toBe('B() B() A(q)');
    expect(printed[6]).toBe('J(A: A(task)\n\nB: B(task))');
    expect(agentRuns(requests)).toContain('J <- A(q)\n---\nB(q)');
    expect(requests).toHaveLength(18);
  });

  test('&& asks the judge for the consensus of the answers', async () => {
    const { requests } = await run(`
      agent A { prompt: "A" }
      agent Judge { prompt: "J" }
      flow main { x = "q" |>> [A, A] && Judge }`);
    expect(instruction(requests.at(-1) as RecordedChatRequest)).toBe(
      'Here are 2 answers to the same question. Give the answer they agree on, or the best-supported one, with a short reason.\n\nA(q)\n---\nA(q)',
    );
  });

  test('x || [A, B] does not wait; the run ends after them, and their failures are warnings', async () => {
    const warnings: string[] = [];
    const { printed, requests } = await run(
      `agent Slow { prompt: "slow" }
       agent Broken { prompt: "broken" }
       flow main {
         "note" || [Slow, Broken]
         print("went on")
       }`,
      {
        answer: (request) =>
          system(request) === 'broken'
            ? { type: 'error', status: 400, message: 'no' }
            : { type: 'text', content: 'done', delayMs: 200 },
      },
      { warn: (line) => warnings.push(line) },
    );
    expect(printed).toEqual(['went on']);
    expect(requests).toHaveLength(2);
    expect(warnings).toEqual([
      expect.stringMatching(/^test\.nx:4:17: Broken \(started by \|\|\) failed: .*HTTP 400/),
    ]);
  });
});

describe('runAgentScript: constructs the model decides', () => {
  test('semantic_if asks yes/no; fast_match decides without the model when it matches', async () => {
    const { printed, requests } = await run(
      String.raw`flow main {
        text = "meet on 2024-05-01"
        semantic_if "mentions a date" fast_match r"\d{4}-\d{2}" against text { print("fast") }
        semantic_if "is rude" against text { print("rude") } else { print("polite") }
        semantic_if "is short" against text { print("short") }
      }`,
      { conditions: ['No.', 'YES'] },
    );
    expect(printed).toEqual(['fast', 'polite', 'short']);
    expect(judgements(requests).map(instruction)).toEqual([
      'Condition: is rude\n\nText:\nmeet on 2024-05-01',
      'Condition: is short\n\nText:\nmeet on 2024-05-01',
    ]);
  });

  test('match … intent(…) asks which intent fits; 0 takes the default arm', async () => {
    const { printed, requests } = await run(
      `agent Weather { prompt: "W" }
       flow route(request) {
         return match request {
           intent("asks about the weather") => Weather.run(request)
           intent("asks for news") => "news"
           _ => "small talk"
         }
       }
       flow main { print(route("rain?"), route("headlines?"), route("hi")) }`,
      { intents: ['1', 'It is 2.', '0'] },
    );
    expect(printed).toEqual(['W(rain?) news small talk']);
    expect(instruction(judgements(requests)[0] as RecordedChatRequest)).toBe(
      'Intents:\n1. asks about the weather\n2. asks for news\n\nText:\nrain?',
    );
  });

  test('loop … until asks after each round with the variables; a boolean condition needs no model', async () => {
    const { printed, requests } = await run(
      `agent Editor { prompt: "E" }
       flow main {
         draft = "d"
         loop { draft = Editor.run(draft) } until ("the draft is polished")
         print(draft)
         n = 0
         loop { n = n + 1 } until (n == 3)
         print(n)
       }`,
      { conditions: ['no', 'yes'] },
    );
    expect(printed).toEqual(['E(E(d))', '3']);
    expect(judgements(requests).map(instruction)).toEqual([
      'Condition: the draft is polished\n\nText:\n{"draft":"E(d)"}',
      'Condition: the draft is polished\n\nText:\n{"draft":"E(E(d))"}',
    ]);
  });

  test('loop … until stops with an error after maxLoopRounds; an unreadable judgement is an error', async () => {
    expect(
      await failure(
        'flow main {\n  loop { x = 1 } until ("never")\n}',
        { conditions: ['no', 'no', 'no'] },
        { maxLoopRounds: 3 },
      ),
    ).toEqual({
      code: 'AGENT_SCRIPT_RUNTIME',
      at: '2:3',
      reason: 'loop … until "never" still did not hold after 3 rounds (maxLoopRounds)',
      printed: [],
    });
    expect(
      await failure('flow main {\n  semantic_if "ok" against "x" { }\n}', {
        conditions: ['maybe'],
      }),
    ).toMatchObject({
      code: 'AGENT_SCRIPT_RUNTIME',
      at: '2:3',
      reason: 'semantic_if "ok": the model answered neither yes nor no: "maybe"',
    });
    expect(
      await failure('flow main {\n  x = match "a" { intent("b") => 1 }\n}', { intents: ['7'] }),
    ).toMatchObject({
      at: '2:7',
      reason: expect.stringContaining('did not answer with an intent number from 0 to 1'),
    });
  });

  test('assert … against and string contracts are judged; a violation is a run-time error at the contract', async () => {
    expect(
      await failure(
        `agent Payer requires "the input names an amount" { prompt: "P" }
         flow pay(amount) requires amount > 0 ensures "it is paid" { return Payer.run(amount) }
         flow main {
           print(pay(5))
           assert "is a receipt" against pay(6)
           try { pay(-1) } catch (e) { print(e) }
           pay(7)
         }`,
        { conditions: ['yes', 'yes', 'yes', 'yes', 'yes', 'no'] },
      ),
    ).toEqual({
      code: 'AGENT_SCRIPT_RUNTIME',
      at: '1:13',
      reason: 'agent Payer: requires "the input names an amount" does not hold for its instruction',
      printed: ['P(5)', 'test.nx:2:27: flow pay: requires its condition does not hold'],
    });
  });
});

describe('runAgentScript: failures, try/catch, otherwise', () => {
  test('try/catch and otherwise catch agent failures and run-time errors; the error text is bound', async () => {
    const { printed } = await run(
      `agent Broken { prompt: "broken" }
       flow main {
         try { Broken.run("x") } catch (error) { print("caught:", error) }
         try { x = [1][5] } catch (error) { print("caught:", error) }
         print(Broken.run("y") otherwise "plan B", Broken.run("z") fallback "plan C")
         r = Broken.run("w")? otherwise "propagated, then caught"
         print(r)
       }`,
      { answer: () => ({ type: 'error', status: 400, message: 'bad request' }) },
    );
    expect(printed).toEqual([
      expect.stringMatching(/^caught: the model endpoint failed \(HTTP 400\)/),
      'caught: test.nx:4:24: index 5 is out of range (1 items)',
      'plan B plan C',
      'propagated, then caught',
    ]);
  });

  test('a construct that cannot run yet is not caught: it stops the run at its line and column', async () => {
    expect(
      await failure(
        'flow main {\n  try {\n    python! """print(1)"""\n  } catch (e) { print("caught") }\n}',
      ),
    ).toEqual({
      code: 'AGENT_SCRIPT_UNSUPPORTED',
      at: '3:5',
      reason: 'python! blocks: not supported yet',
      printed: [],
    });
  });

  const AGENTS =
    'agent Tools uses Lookup { prompt: "t" } agent Helper { prompt: "h" } ' +
    'agent Skilled uses "skills.md" { prompt: "s" } ' +
    'agent Remembering { prompt: "r", memory: "persistent" } ' +
    'agent Experienced { prompt: "e", experience: "x.md" }';
  const onLine1 = (text: string) => `1:${AGENTS.indexOf(text) + 1}`;
  test.each([
    ['autoloop max_steps: 2 { x = 1 }', '4:3', 'autoloop: not supported yet'],
    ['with_context max_tokens: 10 { x = 1 }', '4:3', 'with_context: not supported yet'],
    ['x = template"""Hi {{name}}"""', '4:7', 'template strings: not supported yet'],
    [
      'x = secret("KEY")',
      '4:7',
      'secret(…) is not a flow, fn or agent of the script nor a built-in (print, str, int, float, len, join); other functions: not supported yet',
    ],
    ['x = Option::Some(1)', '4:7', 'enum variants (Option::Some): not supported yet'],
    ['x = spawn Helper("go")', '4:7', 'spawn (actors): not supported yet'],
    ['reflect "think again"', '4:3', 'reflect: not supported yet'],
    [
      'fork [Helper.run("a"), Helper.run("b")] merge best',
      '4:3',
      'fork … merge: not supported yet',
    ],
    [
      'x = Helper.clone()',
      '4:14',
      'agent methods other than run (Helper.clone(…)): not supported yet',
    ],
    ['match 1 { Shape::Dot => 1 }', '4:13', 'enum variant patterns: not supported yet'],
    [
      'x = Tools.run("x")',
      onLine1('Lookup'),
      'agents using tools declared in the script (Lookup); agents can use the std namespaces: not supported yet',
    ],
    [
      'x = Skilled.run("x")',
      onLine1('"skills.md"'),
      'agents using files ("skills.md"): not supported yet',
    ],
    [
      'x = Remembering.run("x")',
      onLine1('memory: "persistent"'),
      'memory: "persistent" (a conversation kept between runs of the script): not supported yet',
    ],
    [
      'x = Experienced.run("x")',
      onLine1('experience'),
      'the agent field "experience": not supported yet',
    ],
  ])('%s stops the run at %s', async (statement, at, reason) => {
    const source = `${AGENTS}\nflow main {\n  print("ran before")\n  ${statement}\n}`;
    expect(await failure(source)).toEqual({
      code: 'AGENT_SCRIPT_UNSUPPORTED',
      at,
      reason,
      printed: ['ran before'],
    });
  });

  test('top-level declarations that act (server, db, kv, auth) and unread includes stop the run where they stand', async () => {
    expect(
      await failure('print("first")\nserver 80 { route GET "/" => main }\nflow main {}'),
    ).toEqual({
      code: 'AGENT_SCRIPT_UNSUPPORTED',
      at: '2:1',
      reason: 'server declarations: not supported yet',
      printed: ['first'],
    });
    expect(await failure('include "lib.nx"\nflow main {}')).toMatchObject({
      at: '1:1',
      reason:
        'include "lib.nx" without reading files (run the script with loadAgentScript or class-agent run): not supported yet',
    });
    expect(await failure('include "secrets.nxs"\nflow main {}')).toMatchObject({
      at: '1:1',
      reason: expect.stringContaining('include of a secrets file ("secrets.nxs")'),
    });
  });

  test.each([
    ['print(nobody)', '3:9', 'variable "nobody" is not set'],
    ['x = "a" - 1', '3:11', '"-" needs numbers, got text and a number'],
    ['x = 1 / 0', '3:9', 'division by zero'],
    ['x = {a: 1}.b', '3:14', 'the record has no field "b" (fields: a)'],
    ['x = "text".size', '3:14', 'text has no field "size"'],
    ['assert 1 > 2', '3:3', 'assertion failed'],
    ['verify 1 satisfies str', '3:3', 'verify: a number does not satisfy str'],
    ['let [a, b] = [1]', '3:3', 'let: a list does not match the pattern'],
    ['x = takes_one(1, 2)', '3:7', 'flow takes_one takes 1 argument(s), got 2'],
    ['x = 1 < "2"', '3:9', '"<" cannot compare a number with text'],
    ['x = len(5)', '3:7', 'len(…) needs text, a list or a record, got a number'],
    ['x = int("ten")', '3:7', 'int(…) cannot read "ten" as a number'],
    ['x = "q" >> 5', '3:14', '">>" needs an agent or a flow here, found a number'],
  ])('%s fails at run time at %s', async (statement, at, reason) => {
    expect(await failure(`flow takes_one(a) { return a }\nflow main {\n  ${statement}\n}`)).toEqual(
      {
        code: 'AGENT_SCRIPT_RUNTIME',
        at,
        reason,
        printed: [],
      },
    );
  });
});

describe('runAgentScript: agent fields and decorators', () => {
  test('cache reuses an answer; memory continues the conversation; the agent dialect starts fresh', async () => {
    const { requests } = await run(`
      agent Cached { prompt: "C", cache: true }
      agent Fresh { prompt: "F", memory: false }
      agent Remembers { prompt: "R", memory: "local", max_history_turns: 1 }
      flow main {
        Cached.run("same") Cached.run("same") Cached.run("other")
        Fresh.run("1") Fresh.run("2")
        Remembers.run("1") Remembers.run("2") Remembers.run("3")
      }`);
    expect(agentRuns(requests)).toEqual([
      'C <- same',
      'C <- other',
      'F <- 1',
      'F <- 2',
      'R <- 1',
      'R <- 2',
      'R <- 3',
    ]);
    const roles = (index: number) =>
      requests[index]?.body.messages?.map(
        (message) => `${message.role}:${String(message.content)}`,
      );
    expect(roles(3)).toEqual(['system:F', 'user:2']);
    expect(roles(5)).toEqual(['system:R', 'user:1', 'assistant:R(1)', 'user:2']);
    expect(roles(6)).toEqual(['system:R', 'user:2', 'assistant:R(2)', 'user:3']);

    const agentDialect = await runAgentScript(
      'agent A { prompt: "A" }\nflow main { x = A.run("1")\n y = A.run("2") }',
      {
        baseURL: (server as FakeOpenAIServer).baseURL,
        apiKey: 'k',
        model: 'm',
        maxRetries: 0,
        print: () => {},
      },
    );
    expect(agentDialect.variables).toEqual({ x: 'A(1)', y: 'A(2)' });
    expect(server?.chatRequests.at(-1)?.body.messages).toHaveLength(2);
  });

  test('in the nexa dialect agents keep their conversation, as Nexa agents do', async () => {
    const { requests } = await run('agent A { prompt: "A" }\nflow main { A.run("1") A.run("2") }');
    expect(requests[1]?.body.messages?.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
    ]);
  });

  test('decorators and fields become model options: model, temperature, max tokens, fallback model', async () => {
    const { printed, requests } = await run(
      `@limit(max_tokens=64)
       @temperature(value=0.2)
       @retry(max_attempts=1)
       agent Careful { prompt: "C", model: "primary", fallback: "backup", stream: true, description: "docs only" }
       agent Plain { prompt: "P", max_tokens: 10, timeout: 5 }
       flow main { print(Careful.run("q"), Plain.run("q")) }`,
      {
        answer: (request) =>
          request.body.model === 'primary'
            ? { type: 'error', status: 503, message: 'overloaded' }
            : { type: 'text', content: `${String(request.body.model)} answered` },
      },
    );
    expect(printed).toEqual(['backup answered m answered']);
    expect(
      requests.map((request) => [
        request.body.model,
        request.body.temperature,
        request.body.max_tokens,
      ]),
    ).toEqual([
      ['primary', 0.2, 64],
      ['backup', 0.2, 64],
      ['m', undefined, 10],
    ]);
  });

  test('implements and output_format "json" ask for a JSON object and give back a record', async () => {
    const { printed, requests } = await run(
      `protocol Review { score: "int", summary: str }
       agent Reviewer implements Review { prompt: "Review." }
       agent Planner { prompt: "Plan.", output_format: "json", output_schema: { "steps": "list" } }
       flow main {
         review = Reviewer.run("code")
         print(review.score + 1, review.summary, Planner.run("party").steps[0])
       }`,
      {
        answer: (request) =>
          system(request).startsWith('Review.')
            ? {
                type: 'text',
                content: 'Here you go:\n```json\n{"score": 7, "summary": "fine"}\n```',
              }
            : { type: 'text', content: '{"steps": ["invite"]}' },
      },
    );
    expect(printed).toEqual(['8 fine invite']);
    expect(system(requests[0] as RecordedChatRequest)).toBe(
      'Review.\n\nAnswer with only a JSON object with the fields score (int), summary (str), and nothing else.',
    );
    expect(system(requests[1] as RecordedChatRequest)).toBe(
      'Plan.\n\nAnswer with only a JSON object with the fields steps (list), and nothing else.',
    );
    expect(
      await failure(
        'agent J { prompt: "j", output_format: "json" }\nflow main { x = J.run("q") }',
        {
          answer: () => ({ type: 'text', content: 'not json' }),
        },
      ),
    ).toMatchObject({
      code: 'AGENT_SCRIPT_RUNTIME',
      at: '1:1',
      reason: 'agent J was asked for a JSON object and answered "not json"',
    });
  });

  test('std namespaces from uses and the uses field reach the model as tools; the run policy applies', async () => {
    const { requests } = await run(
      'agent Clock uses std.time { prompt: "c", uses: "std.math" }\nflow main { Clock.run("now?") }',
    );
    const tools = (requests[0]?.body.tools ?? []) as Array<{ function: { name: string } }>;
    expect(tools.map((tool) => tool.function.name)).toEqual(
      expect.arrayContaining(['time_now', 'math_calc']),
    );
  });
});
