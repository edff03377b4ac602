import { readFile as readTextFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { AgentScript, ScriptDialect, Statement } from './ast.ts';
import { checkAgentScript } from './check.ts';
import { dialectOf, parseScriptSyntax } from './parse.ts';
import { AgentScriptError, type Position } from './script-error.ts';

/** Options of {@link loadAgentScript}. */
export interface LoadAgentScriptOptions {
  /** The dialect of the main file (default: from its name); included files go by their names. */
  dialect?: ScriptDialect;
  /** Reads a file as text (default: `fs.readFile(path, 'utf8')`). */
  readFile?: (path: string) => Promise<string>;
}

/**
 * Reads a script file and the files it `include`s (relative to the including file; each file
 * once, so cycles end), parses them, merges their declarations and checks the whole program.
 * An included file's declarations and errors keep its own name. `include "secrets.nxs"`
 * (a Nexa secrets file, not a script) is left for the run, which refuses it at its line.
 *
 * @example
 * const script = await loadAgentScript('examples/main.nx');
 * await runAgentScript(script, { baseURL, apiKey, model });
 */
export async function loadAgentScript(
  file: string,
  options: LoadAgentScriptOptions = {},
): Promise<AgentScript> {
  const read = options.readFile ?? ((path: string) => readTextFile(path, 'utf8'));
  const root = parseScriptSyntax(await read(file), file, options.dialect ?? dialectOf(file));
  const seen = new Set([resolve(file)]);
  const origins = new Map<string, string>();
  const note = (kind: string, name: string, fileName: string, at: Position) => {
    const key = `${kind} ${name}`;
    const earlier = origins.get(key);
    if (earlier !== undefined) {
      throw new AgentScriptError(
        `${kind} ${name} is defined twice (also in ${earlier})`,
        at,
        fileName,
      );
    }
    origins.set(key, fileName);
  };
  for (const agent of root.agents) note('agent', agent.name, file, agent.position);
  for (const flow of root.flows) note('flow', flow.name, file, flow.position);

  const includeInto = async (statements: Statement[], fileName: string): Promise<Statement[]> => {
    const result: Statement[] = [];
    for (const statement of statements) {
      if (statement.kind !== 'include' || /\.nxs$/i.test(statement.path)) {
        result.push(statement);
        continue;
      }
      const path = join(dirname(fileName), statement.path);
      if (seen.has(resolve(path))) {
        result.push({ ...statement, included: { fileName: path, statements: [] } });
        continue;
      }
      seen.add(resolve(path));
      let source: string;
      try {
        source = await read(path);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new AgentScriptError(
          `cannot read the included file "${statement.path}": ${reason}`,
          statement.position,
          fileName,
        );
      }
      const child = parseScriptSyntax(source, path, dialectOf(path));
      for (const agent of child.agents) {
        note('agent', agent.name, path, agent.position);
        root.agents.push({ ...agent, fileName: path });
      }
      for (const flow of child.flows) {
        note('flow', flow.name, path, flow.position);
        root.flows.push({ ...flow, fileName: path });
      }
      root.tests.push(...child.tests.map((test) => ({ ...test, fileName: path })));
      root.tools.push(...child.tools.map((tool) => ({ ...tool, fileName: path })));
      root.protocols.push(...child.protocols.map((protocol) => ({ ...protocol, fileName: path })));
      root.functions.push(...child.functions.map((fn) => ({ ...fn, fileName: path })));
      root.declarations.push(
        ...child.declarations.map((declaration) => ({ ...declaration, fileName: path })),
      );
      result.push({
        ...statement,
        included: { fileName: path, statements: await includeInto(child.statements, path) },
      });
    }
    return result;
  };
  root.statements = await includeInto(root.statements, file);
  root.includes = [];
  checkAgentScript(root);
  return root;
}
