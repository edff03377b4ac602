import { isNamespace } from '../registry.ts';
import { NAMESPACES, type Namespace } from '../tool.ts';

/** A place in the script, 1-based. */
export interface Position {
  line: number;
  column: number;
}

const marker = Symbol.for('@class-assistant/agent-std/AgentScriptError');

/** Codes of {@link AgentScriptError}: a syntax or meaning problem found before anything runs. */
export type AgentScriptErrorCode = 'AGENT_SCRIPT_SYNTAX';

/** A problem in an agent script, with the line and column where it is. */
export class AgentScriptError extends Error {
  readonly code: AgentScriptErrorCode;
  readonly line: number;
  readonly column: number;
  readonly fileName: string;
  /** The message without the `file:line:column:` prefix. */
  readonly reason: string;
  readonly [marker] = true;

  constructor(reason: string, position: Position, fileName: string) {
    super(`${fileName}:${position.line}:${position.column}: ${reason}`);
    this.name = 'AgentScriptError';
    this.code = 'AGENT_SCRIPT_SYNTAX';
    this.line = position.line;
    this.column = position.column;
    this.fileName = fileName;
    this.reason = reason;
  }
}

/** True for an {@link AgentScriptError} (also from another copy of this package). */
export function isAgentScriptError(error: unknown): error is AgentScriptError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { [marker]?: unknown })[marker] === true
  );
}

/** A piece of an f-string: literal text or a `{name}` placeholder. */
export type FStringPart = string | { name: string; position: Position };

/** An expression of a flow. */
export type Expression =
  | { kind: 'string'; value: string; position: Position }
  | { kind: 'fstring'; parts: FStringPart[]; position: Position }
  | { kind: 'variable'; name: string; position: Position }
  | { kind: 'run'; agent: string; argument: Expression; position: Position }
  | { kind: 'concat'; left: Expression; right: Expression; position: Position };

/** A statement of a flow. */
export type Statement =
  | { kind: 'assign'; name: string; value: Expression; position: Position }
  | { kind: 'print'; arguments: Expression[]; position: Position }
  | { kind: 'expression'; expression: Expression; position: Position };

/** `agent <Name> uses <ns>, … { role: …, prompt: …, model: … }`. */
export interface AgentDeclaration {
  name: string;
  uses: Namespace[];
  role: string;
  prompt: string;
  model: string | undefined;
  position: Position;
}

/** `flow <name> { … }`. */
export interface FlowDeclaration {
  name: string;
  body: Statement[];
  position: Position;
}

/** A parsed (and checked) agent script. */
export interface AgentScript {
  fileName: string;
  agents: AgentDeclaration[];
  flows: FlowDeclaration[];
}

type Token =
  | { kind: 'identifier'; value: string; position: Position }
  | { kind: 'string'; value: string; triple: boolean; position: Position }
  | { kind: 'fstring'; parts: FStringPart[]; position: Position }
  | { kind: 'punctuation'; value: string; position: Position }
  | { kind: 'end'; position: Position };

const PUNCTUATION = new Set(['{', '}', '(', ')', ',', ':', ';', '=', '.', '+']);
/** Stand-ins for escaped braces (\{ \}) until f-string placeholders are found. */
const OPEN_BRACE = '\uE000';
const CLOSE_BRACE = '\uE001';
const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '0': '\0',
  '\\': '\\',
  '"': '"',
  "'": "'",
  '{': OPEN_BRACE,
  '}': CLOSE_BRACE,
  '\n': '',
};

/** Removes the common leading indentation of a triple-quoted string's lines. */
function dedent(text: string): string {
  const body = text.startsWith('\n') ? text.slice(1) : text;
  const lines = body.split('\n');
  const indents = lines
    .filter((line) => line.trim() !== '')
    .map((line) => /^[ \t]*/.exec(line)?.[0].length ?? 0);
  const common = indents.length ? Math.min(...indents) : 0;
  const result = lines.map((line) =>
    line.slice(Math.min(common, /^[ \t]*/.exec(line)?.[0].length ?? 0)),
  );
  // A closing """ on its own line leaves an indentation-only last line: drop it.
  if (result.length > 1 && result.at(-1)?.trim() === '') result[result.length - 1] = '';
  return result.join('\n');
}

function tokenize(source: string, fileName: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  let line = 1;
  let column = 1;
  const here = (): Position => ({ line, column });
  const fail = (reason: string, position: Position = here()): never => {
    throw new AgentScriptError(reason, position, fileName);
  };
  const advance = (count = 1) => {
    for (let step = 0; step < count; step++) {
      if (source[index] === '\n') {
        line++;
        column = 1;
      } else column++;
      index++;
    }
  };

  while (index < source.length) {
    const character = source[index] as string;
    if (character === ' ' || character === '\t' || character === '\r' || character === '\n') {
      advance();
      continue;
    }
    if (character === '#' || (character === '/' && source[index + 1] === '/')) {
      while (index < source.length && source[index] !== '\n') advance();
      continue;
    }
    const start = here();
    const isFormat =
      (character === 'f' || character === 'F') &&
      (source[index + 1] === '"' || source[index + 1] === "'");
    if (character === '"' || character === "'" || isFormat) {
      if (isFormat) advance();
      const quote = source[index] as string;
      const triple = source.startsWith(quote.repeat(3), index);
      advance(triple ? 3 : 1);
      // Escapes are resolved; escaped braces stay marked so f-strings keep them literal.
      let text = '';
      const placeholderPositions: Position[] = [];
      for (;;) {
        if (index >= source.length) {
          fail(`unterminated ${triple ? 'triple-quoted ' : ''}string`, start);
        }
        if (triple ? source.startsWith(quote.repeat(3), index) : source[index] === quote) {
          advance(triple ? 3 : 1);
          break;
        }
        const current = source[index] as string;
        if (current === '\n' && !triple) {
          fail('unterminated string: use triple quotes (""") for text over several lines', start);
        }
        if (current === '\\') {
          const next = source[index + 1] ?? '';
          const escaped = ESCAPES[next];
          if (escaped !== undefined) {
            text += escaped;
            advance(2);
          } else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(source.slice(index + 2, index + 6))) {
            text += String.fromCharCode(Number.parseInt(source.slice(index + 2, index + 6), 16));
            advance(6);
          } else {
            text += '\\';
            advance();
          }
          continue;
        }
        if (current === '{') placeholderPositions.push(here());
        text += current;
        advance();
      }
      if (triple) text = dedent(text);
      if (!isFormat) {
        tokens.push({
          kind: 'string',
          value: text.replaceAll(OPEN_BRACE, '{').replaceAll(CLOSE_BRACE, '}'),
          triple,
          position: start,
        });
        continue;
      }
      // f-string: {name} placeholders, {{ and }} for literal braces.
      const parts: FStringPart[] = [];
      let literal = '';
      let placeholder = 0;
      for (let at = 0; at < text.length; at++) {
        const current = text[at] as string;
        if (current === OPEN_BRACE || current === CLOSE_BRACE) {
          literal += current === OPEN_BRACE ? '{' : '}';
        } else if (current === '{' && text[at + 1] === '{') {
          literal += '{';
          at++;
          placeholder += 2;
        } else if (current === '}' && text[at + 1] === '}') {
          literal += '}';
          at++;
        } else if (current === '{') {
          const position = placeholderPositions[placeholder++] ?? start;
          const close = text.indexOf('}', at);
          if (close === -1)
            fail('"{" in an f-string is not closed: write {{ for a literal brace', position);
          const name = text.slice(at + 1, close).trim();
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
            fail(`f-string placeholder {${name}} must be a variable name`, position);
          }
          if (literal) parts.push(literal);
          literal = '';
          parts.push({ name, position: { line: position.line, column: position.column + 1 } });
          at = close;
        } else if (current === '}') {
          fail('single "}" in an f-string: write }} for a literal brace', start);
        } else {
          literal += current;
        }
      }
      if (literal) parts.push(literal);
      tokens.push({ kind: 'fstring', parts, position: start });
      continue;
    }
    if (/[A-Za-z_]/.test(character)) {
      let end = index;
      while (end < source.length && /[A-Za-z0-9_]/.test(source[end] as string)) end++;
      tokens.push({ kind: 'identifier', value: source.slice(index, end), position: start });
      advance(end - index);
      continue;
    }
    if (PUNCTUATION.has(character)) {
      tokens.push({ kind: 'punctuation', value: character, position: start });
      advance();
      continue;
    }
    fail(`unexpected character "${character}"`);
  }
  tokens.push({ kind: 'end', position: here() });
  return tokens;
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'identifier':
      return `"${token.value}"`;
    case 'string':
    case 'fstring':
      return 'a string';
    case 'punctuation':
      return `"${token.value}"`;
    default:
      return 'the end of the file';
  }
}

/**
 * Parses an agent script (the seed's usage shape) and checks it before anything runs:
 *
 * ```
 * agent Helper uses std.time, std.math {
 *   role: "a helpful assistant",
 *   prompt: """
 *     Answer briefly.
 *   """,
 *   model: "gpt-4o-mini"          # optional
 * }
 * flow main {
 *   x = Helper.run("What is 2 + 2?");
 *   print(x);
 *   print(f"Again: {x}");
 * }
 * ```
 *
 * Commas between fields and semicolons after statements are optional; `#` and `//` start comments;
 * strings are "…" or '…', triple-quoted """…""" over several lines (the first newline and the
 * common indentation are removed), and f"…{name}…" insert variables. `+` joins strings.
 * Problems are {@link AgentScriptError}s with line and column: syntax errors, unknown namespaces,
 * missing role or prompt, `.run` on an undefined agent, variables used before they are set.
 */
export function parseAgentScript(source: string, fileName = '<script>'): AgentScript {
  const tokens = tokenize(source, fileName);
  let position = 0;
  const peek = () => tokens[position] as Token;
  const next = () => tokens[position++] as Token;
  const fail = (reason: string, at: Position): never => {
    throw new AgentScriptError(reason, at, fileName);
  };
  const isPunctuation = (token: Token, value: string) =>
    token.kind === 'punctuation' && token.value === value;
  const expectPunctuation = (value: string, context: string) => {
    const token = next();
    if (!isPunctuation(token, value)) {
      fail(`expected "${value}" ${context}, found ${describe(token)}`, token.position);
    }
  };
  const expectIdentifier = (context: string) => {
    const token = next();
    if (token.kind !== 'identifier') {
      return fail(`expected ${context}, found ${describe(token)}`, token.position);
    }
    return token;
  };
  const skip = (value: string) => {
    while (isPunctuation(peek(), value)) position++;
  };

  const agents: AgentDeclaration[] = [];
  const flows: FlowDeclaration[] = [];

  const parseAgent = (start: Position) => {
    const nameToken = expectIdentifier('the agent name after "agent"');
    if (agents.some((agent) => agent.name === nameToken.value)) {
      fail(`agent ${nameToken.value} is defined twice`, nameToken.position);
    }
    const uses: Namespace[] = [];
    if (peek().kind === 'identifier' && (peek() as { value: string }).value === 'uses') {
      position++;
      for (;;) {
        const first = expectIdentifier('a namespace such as std.fs after "uses"');
        let namespace = first.value;
        while (isPunctuation(peek(), '.')) {
          position++;
          namespace += `.${expectIdentifier('the rest of the namespace').value}`;
        }
        if (!isNamespace(namespace)) {
          fail(`unknown namespace "${namespace}"; known: ${NAMESPACES.join(', ')}`, first.position);
        }
        if (!uses.includes(namespace as Namespace)) uses.push(namespace as Namespace);
        if (!isPunctuation(peek(), ',')) break;
        position++;
      }
    }
    expectPunctuation('{', `to open the body of agent ${nameToken.value}`);
    const fields = new Map<string, string>();
    while (!isPunctuation(peek(), '}')) {
      const key = expectIdentifier('a field name (role, prompt or model)');
      if (!['role', 'prompt', 'model'].includes(key.value)) {
        fail(
          `unknown field "${key.value}" in agent ${nameToken.value}; fields: role, prompt, model`,
          key.position,
        );
      }
      if (fields.has(key.value)) fail(`field "${key.value}" is given twice`, key.position);
      expectPunctuation(':', `after "${key.value}"`);
      const value = next();
      if (value.kind === 'fstring') {
        fail('f-strings are only allowed inside flows, where variables exist', value.position);
      }
      if (value.kind !== 'string') {
        fail(`expected a string for "${key.value}", found ${describe(value)}`, value.position);
      }
      fields.set(key.value, (value as { value: string }).value);
      skip(',');
      if (peek().kind === 'end')
        fail(`agent ${nameToken.value} is not closed with "}"`, peek().position);
    }
    position++;
    for (const required of ['role', 'prompt']) {
      if (!fields.has(required))
        fail(`agent ${nameToken.value} has no ${required}`, nameToken.position);
    }
    agents.push({
      name: nameToken.value,
      uses,
      role: fields.get('role') as string,
      prompt: fields.get('prompt') as string,
      model: fields.get('model'),
      position: start,
    });
  };

  const parsePrimary = (): Expression => {
    const token = next();
    if (token.kind === 'string')
      return { kind: 'string', value: token.value, position: token.position };
    if (token.kind === 'fstring')
      return { kind: 'fstring', parts: token.parts, position: token.position };
    if (isPunctuation(token, '(')) {
      const inner = parseExpression();
      expectPunctuation(')', 'to close "("');
      return inner;
    }
    if (token.kind === 'identifier') {
      if (isPunctuation(peek(), '.')) {
        position++;
        const method = expectIdentifier('a method name after "."');
        if (method.value !== 'run')
          fail(`agents have one method, run; found "${method.value}"`, method.position);
        expectPunctuation('(', `after ${token.value}.run`);
        const argument = parseExpression();
        expectPunctuation(')', `to close ${token.value}.run(…)`);
        return { kind: 'run', agent: token.value, argument, position: token.position };
      }
      return { kind: 'variable', name: token.value, position: token.position };
    }
    return fail(
      `expected a string, a variable or Agent.run(…), found ${describe(token)}`,
      token.position,
    );
  };
  const parseExpression = (): Expression => {
    let left = parsePrimary();
    while (isPunctuation(peek(), '+')) {
      const plus = next();
      left = { kind: 'concat', left, right: parsePrimary(), position: plus.position };
    }
    return left;
  };

  const parseFlow = (start: Position) => {
    const nameToken = expectIdentifier('the flow name after "flow"');
    if (flows.some((flow) => flow.name === nameToken.value)) {
      fail(`flow ${nameToken.value} is defined twice`, nameToken.position);
    }
    expectPunctuation('{', `to open flow ${nameToken.value}`);
    const body: Statement[] = [];
    for (;;) {
      skip(';');
      const token = peek();
      if (isPunctuation(token, '}')) {
        position++;
        break;
      }
      if (token.kind === 'end')
        fail(`flow ${nameToken.value} is not closed with "}"`, token.position);
      if (
        token.kind === 'identifier' &&
        token.value === 'print' &&
        isPunctuation(tokens[position + 1] as Token, '(')
      ) {
        position += 2;
        const args: Expression[] = [];
        if (!isPunctuation(peek(), ')')) {
          args.push(parseExpression());
          while (isPunctuation(peek(), ',')) {
            position++;
            args.push(parseExpression());
          }
        }
        expectPunctuation(')', 'to close print(…)');
        body.push({ kind: 'print', arguments: args, position: token.position });
      } else if (token.kind === 'identifier' && isPunctuation(tokens[position + 1] as Token, '=')) {
        position += 2;
        body.push({
          kind: 'assign',
          name: token.value,
          value: parseExpression(),
          position: token.position,
        });
      } else {
        const expression = parseExpression();
        if (expression.kind !== 'run') {
          fail(
            'a statement must assign (x = …), print(…) or run an agent (Agent.run(…))',
            expression.position,
          );
        }
        body.push({ kind: 'expression', expression, position: token.position });
      }
    }
    flows.push({ name: nameToken.value, body, position: start });
  };

  while (peek().kind !== 'end') {
    const token = next();
    if (token.kind === 'identifier' && token.value === 'agent') parseAgent(token.position);
    else if (token.kind === 'identifier' && token.value === 'flow') parseFlow(token.position);
    else fail(`expected "agent" or "flow", found ${describe(token)}`, token.position);
  }

  const script: AgentScript = { fileName, agents, flows };
  checkScript(script);
  return script;
}

/** Checks names: agents that `.run` refers to, variables set before use, a `main` flow. */
function checkScript(script: AgentScript): void {
  const fail = (reason: string, at: Position): never => {
    throw new AgentScriptError(reason, at, script.fileName);
  };
  const agentNames = new Set(script.agents.map((agent) => agent.name));
  if (!script.flows.some((flow) => flow.name === 'main')) {
    fail('the script has no "flow main { … }" to run', { line: 1, column: 1 });
  }
  for (const flow of script.flows) {
    const defined = new Set<string>();
    const visit = (expression: Expression): void => {
      switch (expression.kind) {
        case 'variable':
          if (!defined.has(expression.name)) {
            fail(
              agentNames.has(expression.name)
                ? `${expression.name} is an agent; call ${expression.name}.run("…")`
                : `variable "${expression.name}" is used before it is set`,
              expression.position,
            );
          }
          return;
        case 'fstring':
          for (const part of expression.parts) {
            if (typeof part !== 'string' && !defined.has(part.name)) {
              fail(`variable "${part.name}" is used before it is set`, part.position);
            }
          }
          return;
        case 'run':
          if (!agentNames.has(expression.agent)) {
            fail(
              `there is no agent named ${expression.agent}${agentNames.size ? ` (agents: ${[...agentNames].join(', ')})` : ''}`,
              expression.position,
            );
          }
          visit(expression.argument);
          return;
        case 'concat':
          visit(expression.left);
          visit(expression.right);
          return;
        default:
          return;
      }
    };
    for (const statement of flow.body) {
      if (statement.kind === 'assign') {
        visit(statement.value);
        defined.add(statement.name);
      } else if (statement.kind === 'print') statement.arguments.forEach(visit);
      else visit(statement.expression);
    }
  }
}
