import { type Agent, type AgentRunOptions, defineAgent } from '../agent.ts';
import { type AgentScript, type Expression, parseAgentScript } from './parse.ts';

/** Options of {@link runAgentScript}: the model endpoint and tool policy, plus where print goes. */
export interface AgentScriptRunOptions extends AgentRunOptions {
  /** Name shown in error positions (default `<script>`). */
  fileName?: string;
  /** Receives each `print(…)` line (default: standard output). */
  print?: (line: string) => void;
}

/** What a script run leaves behind. */
export interface AgentScriptResult {
  /** The variables of `flow main` at the end. */
  variables: Record<string, string>;
  /** Every printed line, in order. */
  output: string[];
}

/**
 * Parses (see `parseAgentScript`) and runs the `main` flow of an agent script: each
 * `Agent.run("…")` runs that agent's tool-calling loop with `options` (model endpoint, policy,
 * limits), and `print` writes lines. Nothing runs if the script has an error.
 *
 * @example
 * await runAgentScript(await readFile('hello.agent', 'utf8'), {
 *   fileName: 'hello.agent',
 *   baseURL: process.env.LLM_BASE_URL,
 *   apiKey: process.env.LLM_API_KEY,
 *   model: process.env.LLM_MODEL,
 * });
 */
export async function runAgentScript(
  script: string | AgentScript,
  options: AgentScriptRunOptions = {},
): Promise<AgentScriptResult> {
  const parsed = typeof script === 'string' ? parseAgentScript(script, options.fileName) : script;
  const { fileName: _fileName, print, ...runOptions } = options;
  const write = print ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const agents = new Map<string, Agent>(
    parsed.agents.map((declaration) => [
      declaration.name,
      defineAgent({
        name: declaration.name,
        uses: declaration.uses,
        role: declaration.role,
        prompt: declaration.prompt,
        model: declaration.model,
      }),
    ]),
  );
  // A Map: a variable named __proto__ or constructor is just a variable.
  const variables = new Map<string, string>();
  const output: string[] = [];

  const evaluate = async (expression: Expression): Promise<string> => {
    switch (expression.kind) {
      case 'string':
        return expression.value;
      case 'variable':
        return variables.get(expression.name) as string;
      case 'fstring':
        return expression.parts
          .map((part) => (typeof part === 'string' ? part : (variables.get(part.name) as string)))
          .join('');
      case 'concat':
        return (await evaluate(expression.left)) + (await evaluate(expression.right));
      case 'run': {
        const instruction = await evaluate(expression.argument);
        const agent = agents.get(expression.agent) as Agent;
        return (await agent.run(instruction, runOptions)).text;
      }
    }
  };

  const main = parsed.flows.find((flow) => flow.name === 'main');
  for (const statement of main?.body ?? []) {
    if (statement.kind === 'assign') {
      variables.set(statement.name, await evaluate(statement.value));
    } else if (statement.kind === 'print') {
      const parts: string[] = [];
      for (const argument of statement.arguments) parts.push(await evaluate(argument));
      const line = parts.join(' ');
      output.push(line);
      write(line);
    } else {
      await evaluate(statement.expression);
    }
  }
  // fromEntries defines own properties, so even __proto__ comes out as a plain key.
  return { variables: Object.fromEntries(variables), output };
}
