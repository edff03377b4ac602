import { afterEach, describe, expect, test } from 'vitest';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '../testing/fake-openai-server.ts';
import { parseAgentScript } from './parse.ts';
import { runAgentScript } from './run.ts';

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('runAgentScript', () => {
  test('runs flow main in order: variables, f-strings, concatenation, print', async () => {
    server = await createFakeOpenAIServer({
      chat: (request) => ({
        type: 'text',
        content: `echo(${String(request.body.messages?.at(-1)?.content)})`,
      }),
    });
    const printed: string[] = [];
    const result = await runAgentScript(
      `agent Echo { role: "echo", prompt: "Repeat." }
       flow helper { print("never runs") }
       flow main {
         first = Echo.run("one")
         Echo.run("discarded")
         second = Echo.run(f"two after {first}")
         print(first, second)
         print()
         print("a" + 'b' + f"{first}")
       }`,
      {
        baseURL: server.baseURL,
        apiKey: 'k',
        model: 'm',
        maxRetries: 0,
        print: (line) => printed.push(line),
      },
    );
    expect(printed).toEqual(['echo(one) echo(two after echo(one))', '', 'abecho(one)']);
    expect(result).toEqual({
      variables: { first: 'echo(one)', second: 'echo(two after echo(one))' },
      output: printed,
    });
    expect(server.chatRequests).toHaveLength(3);
  });

  test('variables named like Object.prototype members are plain variables', async () => {
    const printed: string[] = [];
    const result = await runAgentScript(
      `flow main {
         __proto__ = "p"
         constructor = f"c{__proto__}"
         print(__proto__, constructor, f"{__proto__}")
       }`,
      { print: (line) => printed.push(line) },
    );
    expect(printed).toEqual(['p cp p']);
    expect(Object.getOwnPropertyDescriptor(result.variables, '__proto__')?.value).toBe('p');
    expect(Object.getOwnPropertyDescriptor(result.variables, 'constructor')?.value).toBe('cp');
  });

  test('accepts a parsed script; an agent failure stops the flow', async () => {
    server = await createFakeOpenAIServer({
      chat: [{ type: 'error', status: 400, message: 'bad model' }],
    });
    const printed: string[] = [];
    const script = parseAgentScript(
      'agent A { role: "r", prompt: "p" }\nflow main { print("before")\n x = A.run("x")\n print("after") }',
    );
    await expect(
      runAgentScript(script, {
        baseURL: server.baseURL,
        apiKey: 'k',
        model: 'm',
        maxRetries: 0,
        print: (line) => printed.push(line),
      }),
    ).rejects.toMatchObject({ code: 'AGENT_LLM_FAILED', status: 400 });
    expect(printed).toEqual(['before']);
  });
});
