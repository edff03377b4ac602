import type { AgentScript, Expression, Pattern, Statement } from './ast.ts';
import { AgentScriptError, type Position } from './script-error.ts';

/** Functions every script may call (`join(A, B)` runs agents; see the README). */
export const BUILTIN_FUNCTIONS = ['print', 'str', 'int', 'float', 'len', 'join'] as const;

/** A construct the script uses that parses but cannot run yet, and where. */
export interface UnsupportedUse {
  construct: string;
  position: Position;
  fileName: string;
}

/**
 * Checks a parsed script as a whole. In both dialects: `break`/`continue` only inside loops,
 * `return` only inside flows and functions, no name declared twice as an agent, a flow or a
 * function. In the `agent` dialect also the names: `flow main` exists, variables are set before
 * they are used (in the order of the text), `.run` names an agent, calls name a flow, a function,
 * an agent or a built-in, agents `implement` declared protocols.
 */
export function checkAgentScript(script: AgentScript): void {
  const fileName = script.fileName;
  const fail = (reason: string, at: Position, file = fileName): never => {
    throw new AgentScriptError(reason, at, file);
  };
  const kinds = new Map<string, string>();
  const declare = (name: string, kind: string, at: Position, file: string | undefined) => {
    const earlier = kinds.get(name);
    if (earlier && earlier !== kind)
      fail(`${name} is declared both as ${earlier} and as ${kind}`, at, file);
    kinds.set(name, kind);
  };
  for (const agent of script.agents)
    declare(agent.name, 'an agent', agent.position, agent.fileName);
  for (const flow of script.flows) declare(flow.name, 'a flow', flow.position, flow.fileName);
  for (const fn of script.functions) declare(fn.name, 'a function', fn.position, fn.fileName);

  const strict = script.dialect === 'agent' && script.includes.length === 0;
  if (script.dialect === 'agent' && !script.flows.some((flow) => flow.name === 'main')) {
    fail('the script has no "flow main { … }" to run', { line: 1, column: 1 });
  }
  if (strict) {
    const protocols = new Set(script.protocols.map((protocol) => protocol.name));
    for (const agent of script.agents) {
      if (agent.implements && !protocols.has(agent.implements.name)) {
        fail(
          `there is no protocol named ${agent.implements.name}`,
          agent.implements.position,
          agent.fileName,
        );
      }
    }
  }

  const agents = new Set(script.agents.map((agent) => agent.name));
  const callables = new Set<string>([
    ...script.flows.map((flow) => flow.name),
    ...script.functions.map((fn) => fn.name),
    ...BUILTIN_FUNCTIONS,
  ]);

  interface Context {
    defined: Set<string>;
    loop: boolean;
    body: boolean;
    file: string;
  }

  /** Where a name stands: as a value, or where an agent or a flow may stand. */
  type Place = 'value' | 'stage' | 'callee';

  const variable = (name: string, at: Position, place: Place, context: Context) => {
    if (!strict || context.defined.has(name)) return;
    if (agents.has(name)) {
      if (place !== 'value') return;
      fail(`${name} is an agent; call ${name}.run("…")`, at, context.file);
    }
    if (callables.has(name)) {
      if (place !== 'value') return;
      fail(`${name} is a flow or a function; call it: ${name}(…)`, at, context.file);
    }
    if (place === 'callee') {
      fail(`there is no flow, function or agent named "${name}"`, at, context.file);
    }
    fail(`variable "${name}" is used before it is set`, at, context.file);
  };

  const expression = (node: Expression, context: Context, place: Place = 'value'): void => {
    const visit = (child: Expression, childPlace: Place = 'value') =>
      expression(child, context, childPlace);
    switch (node.kind) {
      case 'variable':
        variable(node.name, node.position, place, context);
        return;
      case 'fstring':
        for (const part of node.parts) {
          if (typeof part !== 'string') variable(part.name, part.position, 'value', context);
        }
        return;
      case 'interpolation':
        for (const part of node.parts) if (typeof part !== 'string') visit(part);
        return;
      case 'run':
        if (strict && !agents.has(node.agent)) {
          fail(
            `there is no agent named ${node.agent}${agents.size ? ` (agents: ${[...agents].join(', ')})` : ''}`,
            node.position,
            context.file,
          );
        }
        visit(node.argument);
        return;
      case 'words':
        for (const part of node.parts) visit(part);
        return;
      case 'list':
        for (const item of node.items) visit(item, place === 'stage' ? 'stage' : 'value');
        return;
      case 'record':
        for (const entry of node.entries) visit(entry.value);
        return;
      case 'concat':
      case 'binary':
        visit(node.left);
        visit(node.right);
        return;
      case 'not':
      case 'negate':
        visit(node.operand);
        return;
      case 'propagate':
        visit(node.operand, place);
        return;
      case 'member':
        if (strict && node.object.kind === 'variable' && agents.has(node.object.name)) {
          if (node.name !== 'run' || place === 'value') {
            fail(
              `agents have one method, run; found "${node.name}"`,
              node.namePosition,
              context.file,
            );
          }
          return;
        }
        visit(node.object);
        return;
      case 'index':
        visit(node.object);
        visit(node.index);
        return;
      case 'call': {
        if (node.callee.kind === 'member') expression(node.callee, context, 'callee');
        else visit(node.callee, 'callee');
        const joins = node.callee.kind === 'variable' && node.callee.name === 'join';
        for (const argument of node.arguments) visit(argument, joins ? 'stage' : 'value');
        for (const argument of node.named) visit(argument.value);
        return;
      }
      case 'pipeline':
        visit(node.input);
        visit(node.stage, 'stage');
        return;
      case 'pipe':
        visit(node.input);
        if (node.target.kind === 'call') {
          visit(node.target.callee, 'callee');
          for (const argument of node.target.arguments) visit(argument);
        } else visit(node.target, 'stage');
        return;
      case 'fork':
        visit(node.input);
        for (const target of node.targets) visit(target, 'stage');
        return;
      case 'merge':
        visit(node.input, 'stage');
        visit(node.merger, 'stage');
        return;
      case 'coalesce':
        visit(node.left);
        visit(node.right);
        return;
      case 'branch':
        visit(node.input);
        visit(node.whenPresent, 'stage');
        visit(node.otherwise, 'stage');
        return;
      case 'fallback':
        visit(node.primary);
        visit(node.backup);
        return;
      case 'match':
        visit(node.subject);
        for (const arm of node.arms) {
          const bound = bindings(arm.pattern).filter((name) => !context.defined.has(name));
          for (const name of bound) context.defined.add(name);
          if (arm.guard) visit(arm.guard);
          if (Array.isArray(arm.body)) statements(arm.body, context);
          else visit(arm.body);
          for (const name of bound) context.defined.delete(name);
        }
        return;
      default:
        return;
    }
  };

  const statements = (body: Statement[], context: Context): void => {
    for (const node of body) statement(node, context);
  };

  const statement = (node: Statement, context: Context): void => {
    const inLoop = { ...context, loop: true, defined: context.defined };
    switch (node.kind) {
      case 'assign':
        expression(node.value, context);
        context.defined.add(node.name);
        return;
      case 'let':
        expression(node.value, context);
        for (const name of bindings(node.pattern)) context.defined.add(name);
        return;
      case 'set':
        expression(node.target, context);
        expression(node.value, context);
        return;
      case 'print':
        for (const argument of node.arguments) expression(argument, context);
        return;
      case 'expression':
        expression(node.expression, context);
        return;
      case 'if':
        expression(node.condition, context);
        statements(node.body, context);
        if (node.otherwise) statements(node.otherwise, context);
        return;
      case 'semantic-if':
        expression(node.subject, context);
        statements(node.body, context);
        if (node.otherwise) statements(node.otherwise, context);
        return;
      case 'while':
        expression(node.condition, context);
        statements(node.body, inLoop);
        return;
      case 'for':
        expression(node.iterable, context);
        if (node.index) context.defined.add(node.index);
        for (const name of bindings(node.pattern)) context.defined.add(name);
        statements(node.body, inLoop);
        return;
      case 'loop-until':
        statements(node.body, inLoop);
        expression(node.condition, context);
        return;
      case 'try':
        statements(node.body, context);
        if (node.error) context.defined.add(node.error);
        statements(node.handler, context);
        return;
      case 'break':
      case 'continue':
        if (!context.loop) fail(`"${node.kind}" outside a loop`, node.position, context.file);
        return;
      case 'return':
        if (!context.body)
          fail('"return" outside a flow or a function', node.position, context.file);
        if (node.value) expression(node.value, context);
        return;
      case 'assert':
        expression(node.condition, context);
        if (node.against) expression(node.against, context);
        return;
      case 'verify':
        expression(node.subject, context);
        return;
      case 'defer':
        expression(node.expression, context);
        return;
      case 'unsupported':
        for (const block of node.blocks) {
          statements(block, node.construct === 'autoloop' ? inLoop : context);
        }
        return;
      default:
        return;
    }
  };

  const globals = new Set<string>();
  const topLevel = (body: Statement[], file: string) => {
    for (const node of body) {
      if (node.kind === 'include' && node.included) {
        topLevel(node.included.statements, node.included.fileName);
      } else statement(node, { defined: globals, loop: false, body: false, file });
    }
  };
  topLevel(script.statements, fileName);

  const run = (body: Statement[], defined: Iterable<string>, file: string | undefined) => {
    statements(body, {
      defined: new Set([...globals, ...defined]),
      loop: false,
      body: true,
      file: file ?? fileName,
    });
  };
  for (const flow of script.flows) {
    const parameters = (flow.parameters ?? []).map((parameter) => parameter.name);
    const context = {
      defined: new Set([...globals, ...parameters]),
      loop: false,
      body: true,
      file: flow.fileName ?? fileName,
    };
    for (const contract of flow.contracts ?? []) {
      if (contract.kind === 'requires') expression(contract.condition, context);
    }
    statements(flow.body, context);
    for (const contract of flow.contracts ?? []) {
      if (contract.kind === 'ensures') expression(contract.condition, context);
    }
  }
  for (const fn of script.functions) {
    run(
      fn.body,
      fn.parameters.map((parameter) => parameter.name),
      fn.fileName,
    );
  }
  for (const test of script.tests) run(test.body, [], test.fileName);
}

/** The names a pattern binds. */
export function bindings(pattern: Pattern): string[] {
  switch (pattern.kind) {
    case 'bind':
      return [pattern.name];
    case 'tuple':
    case 'variant':
      return pattern.items.flatMap(bindings);
    case 'array':
      return [...pattern.items.flatMap(bindings), ...(pattern.rest ? [pattern.rest] : [])];
    case 'record':
      return [
        ...pattern.entries.flatMap((entry) => bindings(entry.pattern)),
        ...(pattern.rest ? [pattern.rest] : []),
      ];
    default:
      return [];
  }
}

/**
 * The constructs a script uses that parse but cannot run yet (`python!`, `autoloop`, a `server`,
 * agents that use script tools or MCP servers, …): `check` lists them; a run stops with a
 * `line:column` error when it reaches one.
 */
export function unsupportedUses(script: AgentScript): UnsupportedUse[] {
  const found: UnsupportedUse[] = [];
  const add = (construct: string, position: Position, file: string | undefined) =>
    found.push({ construct, position, fileName: file ?? script.fileName });
  const expression = (node: Expression, file: string | undefined): void => {
    if (node.kind === 'unsupported') add(node.construct, node.position, file);
    for (const child of childExpressions(node)) {
      if (Array.isArray(child)) statements(child, file);
      else expression(child, file);
    }
  };
  const statements = (body: Statement[], file: string | undefined): void => {
    for (const node of body) {
      if (node.kind === 'unsupported') add(node.construct, node.position, file);
      if (node.kind === 'include') {
        if (node.included) statements(node.included.statements, node.included.fileName);
        else add(`include "${node.path}" (only script files are read)`, node.position, file);
      }
      for (const child of childrenOfStatement(node)) {
        if (Array.isArray(child)) statements(child, file);
        else expression(child, file);
      }
    }
  };
  statements(script.statements, undefined);
  for (const agent of script.agents) {
    for (const tool of agent.tools ?? []) {
      add(
        `agents using ${tool.kind === 'mcp' ? 'MCP servers' : tool.kind === 'file' ? 'files' : 'script tools'} (${tool.name})`,
        tool.position,
        agent.fileName,
      );
    }
    for (const member of agent.members ?? []) {
      add(
        `agent bodies with ${member.kind === 'method' ? 'methods' : 'statements'} (${member.name})`,
        member.position,
        agent.fileName,
      );
    }
  }
  for (const flow of script.flows) statements(flow.body, flow.fileName);
  for (const fn of script.functions) statements(fn.body, fn.fileName);
  found.sort(
    (a, b) =>
      a.fileName.localeCompare(b.fileName) ||
      a.position.line - b.position.line ||
      a.position.column - b.position.column,
  );
  return found;
}

/** The expressions and statement lists directly inside an expression. */
function childExpressions(node: Expression): Array<Expression | Statement[]> {
  switch (node.kind) {
    case 'interpolation':
      return node.parts.filter((part): part is Expression => typeof part !== 'string');
    case 'run':
      return [node.argument];
    case 'words':
      return node.parts;
    case 'list':
      return node.items;
    case 'record':
      return node.entries.map((entry) => entry.value);
    case 'concat':
    case 'binary':
      return [node.left, node.right];
    case 'not':
    case 'negate':
    case 'propagate':
      return [node.operand];
    case 'member':
      return [node.object];
    case 'index':
      return [node.object, node.index];
    case 'call':
      return [node.callee, ...node.arguments, ...node.named.map((argument) => argument.value)];
    case 'pipeline':
      return [node.input, node.stage];
    case 'pipe':
      return [node.input, node.target];
    case 'fork':
      return [node.input, ...node.targets];
    case 'merge':
      return [node.input, node.merger];
    case 'coalesce':
      return [node.left, node.right];
    case 'branch':
      return [node.input, node.whenPresent, node.otherwise];
    case 'fallback':
      return [node.primary, node.backup];
    case 'match':
      return [
        node.subject,
        ...node.arms.flatMap((arm) => [...(arm.guard ? [arm.guard] : []), arm.body]),
      ];
    default:
      return [];
  }
}

/** The expressions and statement lists directly inside a statement. */
function childrenOfStatement(node: Statement): Array<Expression | Statement[]> {
  switch (node.kind) {
    case 'assign':
    case 'let':
      return [node.value];
    case 'set':
      return [node.target, node.value];
    case 'print':
      return node.arguments;
    case 'expression':
      return [node.expression];
    case 'if':
      return [node.condition, node.body, ...(node.otherwise ? [node.otherwise] : [])];
    case 'semantic-if':
      return [node.subject, node.body, ...(node.otherwise ? [node.otherwise] : [])];
    case 'while':
      return [node.condition, node.body];
    case 'for':
      return [node.iterable, node.body];
    case 'loop-until':
      return [node.body, node.condition];
    case 'try':
      return [node.body, node.handler];
    case 'return':
      return node.value ? [node.value] : [];
    case 'assert':
      return [node.condition, ...(node.against ? [node.against] : [])];
    case 'verify':
      return [node.subject];
    case 'defer':
      return [node.expression];
    case 'unsupported':
      return node.blocks;
    default:
      return [];
  }
}
