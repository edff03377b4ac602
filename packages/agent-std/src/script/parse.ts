import { isNamespace } from '../registry.ts';
import { NAMESPACES, type Namespace } from '../tool.ts';
import type {
  AgentDeclaration,
  AgentField,
  AgentMember,
  AgentScript,
  Constant,
  Contract,
  Decorator,
  Expression,
  MatchArm,
  Parameter,
  Pattern,
  ScriptDialect,
  Statement,
  TypeExpression,
  UseReference,
} from './ast.ts';
import { bindings, checkAgentScript } from './check.ts';
import { describeToken, type Token, tokenize } from './lexer.ts';
import { AgentScriptError, type Position } from './script-error.ts';

export type { AgentScript, ScriptDialect } from './ast.ts';
export { AgentScriptError, isAgentScriptError } from './script-error.ts';

/** Options of {@link parseAgentScript}. */
export interface ParseAgentScriptOptions {
  /** The rules to check by; default: `nexa` for `.nx` and `.nxlib` files, `agent` otherwise. */
  dialect?: ScriptDialect;
}

/** The dialect a file name implies: `nexa` for `.nx` and `.nxlib`, `agent` for anything else. */
export function dialectOf(fileName: string): ScriptDialect {
  return /\.nx(lib)?$/i.test(fileName) ? 'nexa' : 'agent';
}

/** Agent fields the `agent` dialect accepts besides role, prompt and model. */
export const AGENT_FIELDS = [
  'role',
  'prompt',
  'model',
  'description',
  'uses',
  'memory',
  'stream',
  'cache',
  'output_format',
  'output_schema',
  'max_tokens',
  'timeout',
  'retry',
  'fallback',
  'tool_call_strategy',
  'max_tool_calls',
  'experience',
  'max_history_turns',
  'input_type',
  'output_type',
] as const;

/** Decorators an agent may carry (`@tool(…)` goes before a `fn`). */
const AGENT_DECORATORS = ['limit', 'timeout', 'retry', 'temperature'];
const HTTP_METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS']);
const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);
/** Expressions that do something, so they may stand alone as a statement. */
const STATEMENT_EXPRESSIONS = new Set<Expression['kind']>([
  'call',
  'run',
  'pipeline',
  'pipe',
  'fork',
  'merge',
  'branch',
  'match',
  'propagate',
  'fallback',
  'unsupported',
]);

/**
 * Parses an agent script and checks it before anything runs. The language: the agent-file shape
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
 * plus the Nexa language's constructs: `/* … *\/` comments, number, list and record literals,
 * `@decorators`, `>>` pipelines and `|>>`, `&>>`, `||`, `&&`, `??` operators, `if`, `while`,
 * `for each`, `loop … until`, `match`, `semantic_if`, `try`/`catch`, `tool`, `protocol`,
 * `include`, `test`, `let`, flows with parameters, extra agent fields, `uses` lists and files,
 * return types, and the declarations that parse but cannot run yet (see the README).
 * Problems are {@link AgentScriptError}s with line and column. Which problems are found here and
 * which when the run reaches them depends on the dialect (see {@link ScriptDialect}).
 */
export function parseAgentScript(
  source: string,
  fileName = '<script>',
  options: ParseAgentScriptOptions = {},
): AgentScript {
  const script = parseScriptSyntax(source, fileName, options.dialect ?? dialectOf(fileName));
  checkAgentScript(script);
  return script;
}

/** Parses without the checks that need the whole program (for a file that is `include`d). */
export function parseScriptSyntax(
  source: string,
  fileName: string,
  dialect: ScriptDialect,
): AgentScript {
  return new Parser(tokenize(source, fileName, dialect), fileName, dialect).program();
}

class Parser {
  private index = 0;
  private readonly script: AgentScript;
  private readonly tokens: Token[];
  private readonly fileName: string;
  private readonly dialect: ScriptDialect;

  constructor(tokens: Token[], fileName: string, dialect: ScriptDialect) {
    this.tokens = tokens;
    this.fileName = fileName;
    this.dialect = dialect;
    this.script = {
      fileName,
      dialect,
      agents: [],
      flows: [],
      tests: [],
      tools: [],
      protocols: [],
      functions: [],
      declarations: [],
      statements: [],
      includes: [],
    };
  }

  // ── tokens ────────────────────────────────────────────────────────────────────────────────

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.index + offset, this.tokens.length - 1)] as Token;
  }
  private next(): Token {
    const token = this.peek();
    if (this.index < this.tokens.length - 1) this.index++;
    return token;
  }
  private fail(reason: string, at: Position): never {
    throw new AgentScriptError(reason, at, this.fileName);
  }
  private isPunctuation(token: Token, value: string): boolean {
    return token.kind === 'punctuation' && token.value === value;
  }
  private isWord(token: Token, value: string): boolean {
    return token.kind === 'identifier' && token.value === value;
  }
  private accept(value: string): boolean {
    if (!this.isPunctuation(this.peek(), value)) return false;
    this.next();
    return true;
  }
  private expect(value: string, context: string): Token {
    const token = this.next();
    if (!this.isPunctuation(token, value)) {
      this.fail(`expected "${value}" ${context}, found ${describeToken(token)}`, token.position);
    }
    return token;
  }
  private expectWord(value: string, context: string): Token {
    const token = this.next();
    if (!this.isWord(token, value)) {
      this.fail(`expected "${value}" ${context}, found ${describeToken(token)}`, token.position);
    }
    return token;
  }
  private identifier(context: string): Token & { kind: 'identifier' } {
    const token = this.next();
    if (token.kind !== 'identifier') {
      return this.fail(`expected ${context}, found ${describeToken(token)}`, token.position);
    }
    return token;
  }
  private string(context: string): Token & { kind: 'string' } {
    const token = this.next();
    if (token.kind !== 'string') {
      return this.fail(`expected ${context}, found ${describeToken(token)}`, token.position);
    }
    return token;
  }
  private skip(...values: string[]): void {
    while (values.some((value) => this.isPunctuation(this.peek(), value))) this.next();
  }
  // ── program ───────────────────────────────────────────────────────────────────────────────

  program(): AgentScript {
    for (;;) {
      this.skip(';');
      const token = this.peek();
      if (token.kind === 'end') break;
      if (this.isPunctuation(token, '@')) {
        this.decorated();
        continue;
      }
      if (token.kind === 'identifier' && this.declaration(token)) continue;
      const canStart =
        token.kind === 'identifier' ||
        token.kind === 'number' ||
        this.isPunctuation(token, '[') ||
        this.isPunctuation(token, '(');
      if (!canStart) this.declarationExpected(token);
      const statement = this.statement(false, true);
      if (statement.kind === 'expression' && !STATEMENT_EXPRESSIONS.has(statement.expression.kind))
        this.declarationExpected(token);
      this.script.statements.push(statement);
    }
    return this.script;
  }

  private declarationExpected(token: Token): never {
    return this.fail(
      `expected "agent" or "flow" (or another declaration, or a statement), found ${describeToken(token)}`,
      token.position,
    );
  }

  /** Parses the declaration `token` starts, if it starts one. */
  private declaration(token: Token & { kind: 'identifier' }): boolean {
    const after = this.peek(1);
    const third = this.peek(2);
    const named = after.kind === 'identifier';
    switch (token.value) {
      case 'agent':
        this.next();
        this.agent([], token.position);
        return true;
      case 'flow':
        this.next();
        this.flow(token.position);
        return true;
      case 'tool':
        if (!named || !this.isPunctuation(third, '{')) return false;
        this.next();
        this.tool(token.position);
        return true;
      case 'protocol':
        if (!named) return false;
        this.next();
        this.protocol(token.position);
        return true;
      case 'test':
        if (after.kind !== 'string') return false;
        this.next();
        this.test(token.position);
        return true;
      case 'include': {
        if (after.kind !== 'string') return false;
        this.next();
        const path = this.string('the file to include');
        this.script.statements.push({
          kind: 'include',
          path: path.value,
          included: undefined,
          position: token.position,
        });
        this.script.includes.push({
          path: path.value,
          position: path.position,
          fileName: this.fileName,
        });
        return true;
      }
      case 'fn':
        if (!named) return false;
        this.next();
        this.functionDeclaration([], token.position);
        return true;
      case 'type':
        if (!named || !this.isPunctuation(third, '=')) return false;
        this.next();
        this.typeDeclaration(token.position);
        return true;
      case 'struct':
      case 'enum':
      case 'trait':
      case 'impl':
        if (!named) return false;
        this.next();
        this.typeLikeDeclaration(token.value, token.position);
        return true;
      case 'job':
        if (!named) return false;
        this.next();
        this.job(token.position);
        return true;
      case 'server':
        if ((after.kind !== 'number' && !named) || !this.isPunctuation(third, '{')) return false;
        this.next();
        this.server(token.position);
        return true;
      case 'db':
      case 'auth':
      case 'kv': {
        if (!named || !this.isPunctuation(third, '=')) return false;
        this.next();
        this.next();
        this.next();
        this.expression();
        this.script.statements.push({
          kind: 'unsupported',
          construct: `${token.value} declarations`,
          blocks: [],
          position: token.position,
        });
        return true;
      }
      default:
        return false;
    }
  }

  /** `@decorator(…)`s, then the agent or `fn` they belong to. */
  private decorated(): void {
    const decorators: Decorator[] = [];
    while (this.isPunctuation(this.peek(), '@')) {
      const at = this.next();
      const name = this.peek();
      if (name.kind !== 'identifier') {
        this.fail('unexpected character "@": a decorator is @name(…) before an agent', at.position);
      }
      this.next();
      const known = [...AGENT_DECORATORS, 'tool'];
      if (!known.includes(name.value)) {
        this.fail(
          `unknown decorator @${name.value}; known: ${known.map((known) => `@${known}`).join(', ')}`,
          name.position,
        );
      }
      const decorator: Decorator = {
        name: name.value,
        arguments: new Map(),
        positional: [],
        position: at.position,
      };
      if (this.accept('(')) {
        while (!this.isPunctuation(this.peek(), ')')) {
          const key = this.peek();
          const separator = this.peek(1);
          if (
            key.kind === 'identifier' &&
            (this.isPunctuation(separator, '=') || this.isPunctuation(separator, ':'))
          ) {
            this.next();
            this.next();
            decorator.arguments.set(key.value, this.constant(`@${name.value}(${key.value})`));
          } else {
            decorator.positional.push(this.constant(`@${name.value}(…)`));
          }
          if (!this.accept(',')) break;
        }
        this.expect(')', `to close @${name.value}(…)`);
      }
      decorators.push(decorator);
    }
    const target = this.next();
    const isTool = decorators.some((decorator) => decorator.name === 'tool');
    if (this.isWord(target, 'agent') && !isTool) {
      this.agent(decorators, decorators[0]?.position ?? target.position);
    } else if (this.isWord(target, 'fn') && isTool) {
      this.functionDeclaration(decorators, decorators[0]?.position ?? target.position);
    } else {
      this.fail(
        isTool
          ? `@tool(…) goes before "fn", found ${describeToken(target)}`
          : `a decorator goes before "agent", found ${describeToken(target)}`,
        target.position,
      );
    }
  }

  // ── declarations ──────────────────────────────────────────────────────────────────────────

  private agent(decorators: Decorator[], start: Position): void {
    const nameToken = this.identifier('the agent name after "agent"');
    const name = nameToken.value;
    if (this.script.agents.some((agent) => agent.name === name)) {
      this.fail(`agent ${name} is defined twice`, nameToken.position);
    }
    const uses: Namespace[] = [];
    const tools: UseReference[] = [];
    const contracts: Contract[] = [];
    let implementsProtocol: AgentDeclaration['implements'];
    let returnType: TypeExpression | undefined;
    for (;;) {
      const token = this.peek();
      if (this.isPunctuation(token, '->')) {
        this.next();
        returnType = this.type();
      } else if (this.isWord(token, 'uses')) {
        this.next();
        this.uses(uses, tools);
      } else if (this.isWord(token, 'implements')) {
        this.next();
        const protocol = this.identifier('a protocol name after "implements"');
        implementsProtocol = { name: protocol.value, position: protocol.position };
      } else if (this.isWord(token, 'requires') || this.isWord(token, 'ensures')) {
        contracts.push(this.contract());
      } else break;
    }
    this.expect('{', `to open the body of agent ${name}`);
    const seen = new Map<string, AgentField>();
    const members: AgentMember[] = [];
    for (;;) {
      this.skip(',', ';');
      const token = this.peek();
      if (this.isPunctuation(token, '}')) break;
      if (token.kind === 'end') this.fail(`agent ${name} is not closed with "}"`, token.position);
      const key = this.identifier('a field name (role, prompt, model, …)');
      const following = this.peek();
      if ((key.value === 'fn' || key.value === 'flow') && following.kind === 'identifier') {
        this.next();
        if (key.value === 'fn') this.functionSignatureAndBody(following.value);
        else this.flowSignatureAndBody(following.value);
        members.push({ kind: 'method', name: following.value, position: key.position });
        continue;
      }
      if (key.value === 'let') {
        this.index--;
        const statement = this.statement(false, false);
        const bound = statement.kind === 'let' ? bindings(statement.pattern) : [];
        members.push({ kind: 'let', name: bound.join(', '), position: key.position });
        continue;
      }
      if (this.accept('=')) {
        this.expression();
        members.push({ kind: 'assign', name: key.value, position: key.position });
        continue;
      }
      if (following.kind !== 'string') this.expect(':', `after "${key.value}"`);
      if (this.dialect === 'agent' && !(AGENT_FIELDS as readonly string[]).includes(key.value)) {
        this.fail(
          `unknown field "${key.value}" in agent ${name}; fields: ${AGENT_FIELDS.join(', ')}`,
          key.position,
        );
      }
      if (seen.has(key.value)) this.fail(`field "${key.value}" is given twice`, key.position);
      const valueToken = this.peek();
      if (valueToken.kind === 'fstring') {
        this.fail(
          'f-strings are only allowed inside flows, where variables exist',
          valueToken.position,
        );
      }
      const value = this.constant(`"${key.value}"`);
      if (['role', 'prompt', 'model'].includes(key.value) && typeof value !== 'string') {
        this.fail(
          `expected a string for "${key.value}", found ${describeToken(valueToken)}`,
          valueToken.position,
        );
      }
      if (key.value === 'uses') {
        for (const entry of Array.isArray(value) ? value : [value]) {
          if (typeof entry !== 'string') {
            this.fail(
              '"uses" takes a namespace, a tool or a file, or a list of them',
              valueToken.position,
            );
          }
          if (isNamespace(entry)) {
            if (!uses.includes(entry)) uses.push(entry);
          } else if (entry.startsWith('std.')) {
            this.fail(
              `unknown namespace "${entry}"; known: ${NAMESPACES.join(', ')}`,
              valueToken.position,
            );
          } else {
            tools.push({
              kind: /[./\\]/.test(entry) ? 'file' : 'tool',
              name: entry,
              position: valueToken.position,
            });
          }
        }
      }
      seen.set(key.value, { name: key.value, value, position: key.position });
    }
    this.next();
    const fieldValue = (field: string) => seen.get(field)?.value as string | undefined;
    if (this.dialect === 'agent' && !seen.has('prompt')) {
      this.fail(`agent ${name} has no prompt`, nameToken.position);
    }
    const fields = [...seen.values()].filter(
      (field) => !['role', 'prompt', 'model', 'uses'].includes(field.name),
    );
    const agent: AgentDeclaration = {
      name,
      uses,
      role: fieldValue('role') ?? '',
      prompt: fieldValue('prompt') ?? '',
      model: fieldValue('model'),
      position: start,
    };
    if (fields.length) agent.fields = fields;
    if (decorators.length) agent.decorators = decorators;
    if (tools.length) agent.tools = tools;
    if (implementsProtocol) agent.implements = implementsProtocol;
    if (returnType) agent.returnType = returnType;
    if (contracts.length) agent.contracts = contracts;
    if (members.length) agent.members = members;
    this.script.agents.push(agent);
  }

  /** `uses std.fs, SomeTool, "skills.md", mcp:"https://…"` (also in `[…]`). */
  private uses(uses: Namespace[], tools: UseReference[]): void {
    const bracketed = this.accept('[');
    for (;;) {
      const first = this.next();
      if (first.kind === 'string') {
        if (isNamespace(first.value)) {
          if (!uses.includes(first.value)) uses.push(first.value);
        } else if (first.value.startsWith('std.')) {
          this.fail(
            `unknown namespace "${first.value}"; known: ${NAMESPACES.join(', ')}`,
            first.position,
          );
        } else {
          tools.push({ kind: 'file', name: first.value, position: first.position });
        }
      } else if (first.kind === 'identifier' && first.value === 'mcp' && this.accept(':')) {
        const address = this.string('the MCP server address after "mcp:"');
        tools.push({ kind: 'mcp', name: address.value, position: first.position });
      } else if (first.kind === 'identifier') {
        let name = first.value;
        const dotted = this.isPunctuation(this.peek(), '.');
        while (this.accept('.')) name += `.${this.identifier('the rest of the namespace').value}`;
        if (dotted && !isNamespace(name)) {
          this.fail(`unknown namespace "${name}"; known: ${NAMESPACES.join(', ')}`, first.position);
        }
        if (dotted) {
          if (!uses.includes(name as Namespace)) uses.push(name as Namespace);
        } else tools.push({ kind: 'tool', name, position: first.position });
      } else {
        this.fail(
          `expected a namespace such as std.fs after "uses", found ${describeToken(first)}`,
          first.position,
        );
      }
      if (!this.accept(',')) break;
    }
    if (bracketed) this.expect(']', 'to close the uses list');
  }

  private contract(): Contract {
    const keyword = this.next() as Token & { kind: 'identifier' };
    return {
      kind: keyword.value as Contract['kind'],
      condition: this.expression(),
      position: keyword.position,
    };
  }

  private flow(start: Position): void {
    const nameToken = this.identifier('the flow name after "flow"');
    if (this.script.flows.some((flow) => flow.name === nameToken.value)) {
      this.fail(`flow ${nameToken.value} is defined twice`, nameToken.position);
    }
    const { parameters, returnType, contracts, body } = this.flowSignatureAndBody(nameToken.value);
    const flow: AgentScript['flows'][number] = { name: nameToken.value, body, position: start };
    if (parameters) flow.parameters = parameters;
    if (returnType) flow.returnType = returnType;
    if (contracts.length) flow.contracts = contracts;
    this.script.flows.push(flow);
  }

  private flowSignatureAndBody(name: string) {
    const parameters = this.isPunctuation(this.peek(), '(') ? this.parameters() : undefined;
    const returnType = this.accept('->') ? this.type() : undefined;
    const contracts: Contract[] = [];
    while (this.isWord(this.peek(), 'requires') || this.isWord(this.peek(), 'ensures')) {
      contracts.push(this.contract());
    }
    const body = this.block(`flow ${name}`, `to open flow ${name}`, false);
    return { parameters, returnType, contracts, body };
  }

  private parameters(): Parameter[] {
    this.expect('(', 'to open the parameters');
    const parameters: Parameter[] = [];
    while (!this.isPunctuation(this.peek(), ')')) {
      const name = this.identifier('a parameter name');
      if (parameters.some((parameter) => parameter.name === name.value)) {
        this.fail(`parameter "${name.value}" is given twice`, name.position);
      }
      const type = this.accept(':') ? this.type() : undefined;
      const fallback = this.accept('=') ? this.constant(`parameter ${name.value}`) : undefined;
      parameters.push({ name: name.value, type, default: fallback, position: name.position });
      if (!this.accept(',')) break;
    }
    this.expect(')', 'to close the parameters');
    return parameters;
  }

  private functionDeclaration(decorators: Decorator[], start: Position): void {
    const name = this.identifier('the function name after "fn"');
    const duplicate =
      this.script.functions.some((declared) => declared.name === name.value) ||
      this.script.flows.some((declared) => declared.name === name.value);
    if (duplicate) this.fail(`fn ${name.value} is defined twice`, name.position);
    const { parameters, body } = this.functionSignatureAndBody(name.value);
    this.script.functions.push({ name: name.value, parameters, body, decorators, position: start });
  }

  private functionSignatureAndBody(name: string) {
    const parameters = this.parameters();
    if (this.accept(':') || this.accept('->')) this.type();
    const body = this.block(`fn ${name}`, `to open fn ${name}`, true);
    return { parameters, body };
  }

  private tool(start: Position): void {
    const name = this.identifier('the tool name after "tool"');
    this.expect('{', `to open tool ${name.value}`);
    const fields = this.fields(`tool ${name.value}`);
    this.script.tools.push({ name: name.value, fields, position: start });
  }

  /** `key: constant` entries (commas optional) up to and including the closing brace. */
  private fields(owner: string): AgentField[] {
    const fields: AgentField[] = [];
    for (;;) {
      this.skip(',', ';');
      const token = this.peek();
      if (this.accept('}')) return fields;
      if (token.kind === 'end') this.fail(`${owner} is not closed with "}"`, token.position);
      const key = this.identifier('a field name');
      this.expect(':', `after "${key.value}"`);
      fields.push({
        name: key.value,
        value: this.constant(`"${key.value}"`),
        position: key.position,
      });
    }
  }

  private protocol(start: Position): void {
    const name = this.identifier('the protocol name after "protocol"');
    this.expect('{', `to open protocol ${name.value}`);
    const fields: AgentScript['protocols'][number]['fields'] = [];
    for (;;) {
      this.skip(',', ';');
      const token = this.peek();
      if (this.accept('}')) break;
      if (token.kind === 'end')
        this.fail(`protocol ${name.value} is not closed with "}"`, token.position);
      const field = this.identifier('a field name');
      this.expect(':', `after "${field.value}"`);
      const typeToken = this.peek();
      let type: TypeExpression;
      if (typeToken.kind === 'string') {
        this.next();
        type = {
          kind: 'named',
          name: typeToken.value,
          arguments: [],
          position: typeToken.position,
        };
      } else type = this.type();
      fields.push({ name: field.value, type, position: field.position });
    }
    this.script.protocols.push({ name: name.value, fields, position: start });
  }

  private test(start: Position): void {
    const name = this.string('the test name');
    const body = this.block(`test "${name.value}"`, `to open test "${name.value}"`, false);
    this.script.tests.push({ name: name.value, body, position: start });
  }

  private typeDeclaration(start: Position): void {
    const name = this.identifier('the type name');
    this.expect('=', `after type ${name.value}`);
    this.type();
    if (this.accept('@')) this.string('a constraint string after "@"');
    this.script.declarations.push({ kind: 'type', name: name.value, position: start });
  }

  /** `struct`, `enum`, `trait` and `impl` declarations. */
  private typeLikeDeclaration(kind: string, start: Position): void {
    const name = this.identifier(`the ${kind} name`);
    let declared = name.value;
    if (kind === 'impl') {
      this.expectWord('for', `after impl ${name.value}`);
      declared = `${name.value} for ${this.identifier('a type name after "for"').value}`;
    }
    this.expect('{', `to open ${kind} ${declared}`);
    for (;;) {
      this.skip(',', ';');
      const token = this.peek();
      if (this.accept('}')) break;
      if (token.kind === 'end')
        this.fail(`${kind} ${declared} is not closed with "}"`, token.position);
      if (kind === 'trait' || kind === 'impl') {
        this.expectWord('fn', `in ${kind} ${declared}`);
        const method = this.identifier('a method name');
        this.parameters();
        if (this.accept(':') || this.accept('->')) this.type();
        if (kind === 'impl') this.block(`fn ${method.value}`, `to open fn ${method.value}`, true);
        continue;
      }
      this.identifier(kind === 'enum' ? 'a variant name' : 'a field name');
      if (kind === 'struct' && this.accept(':')) this.type();
      if (kind === 'enum' && this.accept('(')) {
        while (!this.isPunctuation(this.peek(), ')')) {
          this.type();
          if (!this.accept(',')) break;
        }
        this.expect(')', 'to close the variant fields');
      }
    }
    this.script.declarations.push({
      kind: kind as 'struct' | 'enum' | 'trait' | 'impl',
      name: declared,
      position: start,
    });
  }

  /** `job Name on "queue" [(options)] { key: value … perform(…) { … } [on_failure(…) { … }] }`. */
  private job(start: Position): void {
    const name = this.identifier('the job name');
    this.expectWord('on', `after job ${name.value}`);
    this.string('the queue name');
    if (this.accept('(')) {
      while (!this.isPunctuation(this.peek(), ')')) {
        const option = this.identifier('a job option');
        if (!this.accept(':')) this.expect('=', `after "${option.value}"`);
        this.constant(`"${option.value}"`);
        if (!this.accept(',')) break;
      }
      this.expect(')', 'to close the job options');
    }
    this.expect('{', `to open job ${name.value}`);
    for (;;) {
      this.skip(',', ';');
      const token = this.peek();
      if (this.accept('}')) break;
      if (token.kind === 'end')
        this.fail(`job ${name.value} is not closed with "}"`, token.position);
      const key = this.identifier('a job setting or handler (perform, on_failure)');
      if (this.isPunctuation(this.peek(), '(')) {
        this.parameters();
        this.block(`${key.value}(…)`, `to open ${key.value}(…)`, false);
      } else {
        this.expect(':', `after "${key.value}"`);
        this.constant(`"${key.value}"`);
      }
    }
    this.script.declarations.push({ kind: 'job', name: name.value, position: start });
  }

  /** `server <port|name> { static … cors … route GET "/x" => Handler … group "/g" { … } }`. */
  private server(start: Position): void {
    const target = this.next();
    this.expect('{', 'to open the server');
    this.serverBody(target.kind === 'number' ? `server ${target.text}` : 'server');
    this.script.statements.push({
      kind: 'unsupported',
      construct: 'server declarations',
      blocks: [],
      position: start,
    });
  }

  private serverBody(owner: string): void {
    for (;;) {
      this.skip(',', ';');
      const token = this.peek();
      if (this.accept('}')) return;
      if (token.kind === 'end') this.fail(`${owner} is not closed with "}"`, token.position);
      const directive = this.identifier(
        'a server directive (route, semantic route, static, cors, middleware, require_auth, group)',
      );
      switch (directive.value) {
        case 'static':
          this.string('the URL path after "static"');
          this.expectWord('from', 'after the static path');
          this.string('the folder after "from"');
          break;
        case 'cors':
          this.expression();
          break;
        case 'middleware':
          this.expression();
          break;
        case 'require_auth':
          this.string('the protected path after "require_auth"');
          break;
        case 'semantic':
          this.expectWord('route', 'after "semantic"');
          this.string('the route path');
          this.routeHandler();
          break;
        case 'route': {
          const method = this.identifier('an HTTP method after "route"');
          if (!HTTP_METHODS.has(method.value)) {
            this.fail(
              `unknown HTTP method "${method.value}"; known: ${[...HTTP_METHODS].join(', ')}`,
              method.position,
            );
          }
          this.string('the route path');
          this.routeHandler();
          break;
        }
        case 'group':
          this.string('the group path');
          this.expect('{', 'to open the group');
          this.serverBody('group');
          break;
        default:
          this.fail(`unknown server directive "${directive.value}"`, directive.position);
      }
    }
  }

  private routeHandler(): void {
    this.expect('=>', 'before the route handler');
    this.identifier('a handler (a flow or an agent)');
    while (this.accept('|>>') || this.accept('>>')) this.identifier('a handler');
  }

  // ── types and constants ───────────────────────────────────────────────────────────────────

  /** `str`, `list[str]`, `dict[str, int]`, `Name<Inner>`, `str | int`, `str?`. */
  private type(): TypeExpression {
    const first = this.optionalType();
    if (!this.isPunctuation(this.peek(), '|')) return first;
    const members = [first];
    while (this.accept('|')) members.push(this.optionalType());
    return { kind: 'union', members, position: first.position };
  }

  private optionalType(): TypeExpression {
    const name = this.identifier('a type');
    const named: TypeExpression = {
      kind: 'named',
      name: name.value,
      arguments: [],
      position: name.position,
    };
    const close = this.accept('[') ? ']' : this.accept('<') ? '>' : undefined;
    if (close) {
      while (!this.isPunctuation(this.peek(), close)) {
        named.arguments.push(this.type());
        if (!this.accept(',')) break;
      }
      this.expect(close, `to close ${name.value}${close === ']' ? '[…]' : '<…>'}`);
    }
    if (this.accept('?')) return { kind: 'optional', inner: named, position: name.position };
    return named;
  }

  /** A constant: a string, a number, true/false/null, a word, a list or a `{ key: value }`. */
  private constant(context: string): Constant {
    const token = this.next();
    switch (token.kind) {
      case 'string':
        return token.value;
      case 'number':
        return token.value;
      case 'identifier': {
        if (token.value === 'true' || token.value === 'false') return token.value === 'true';
        if (token.value === 'null' || token.value === 'None') return null;
        if (token.value === 'map' && this.isPunctuation(this.peek(), '{'))
          return this.constant(context);
        let word = token.value;
        while (this.isPunctuation(this.peek(), '.') && this.peek(1).kind === 'identifier') {
          this.next();
          word += `.${(this.next() as Token & { kind: 'identifier' }).value}`;
        }
        return word;
      }
      case 'punctuation':
        if (token.value === '-' && this.peek().kind === 'number') {
          return -(this.next() as Token & { kind: 'number' }).value;
        }
        if (token.value === '[') {
          const items: Constant[] = [];
          while (!this.isPunctuation(this.peek(), ']')) {
            items.push(this.constant(context));
            if (!this.accept(',')) break;
          }
          this.expect(']', `to close the list of ${context}`);
          return items;
        }
        if (token.value === '{') {
          const record = new Map<string, Constant>();
          while (!this.isPunctuation(this.peek(), '}')) {
            const key = this.next();
            if (key.kind !== 'string' && key.kind !== 'identifier') {
              this.fail(`expected a key in ${context}, found ${describeToken(key)}`, key.position);
            }
            this.expect(':', `after the key "${key.value}"`);
            record.set(key.value, this.constant(context));
            if (!this.accept(',')) this.skip(';');
          }
          this.expect('}', `to close the record of ${context}`);
          return record;
        }
        break;
      default:
        break;
    }
    return this.fail(
      `expected a value for ${context}, found ${describeToken(token)}`,
      token.position,
    );
  }

  // ── statements ────────────────────────────────────────────────────────────────────────────

  /** `{ statements }`; in a function body the last statement may be a bare value (returned). */
  private block(owner: string, opening: string, tail: boolean): Statement[] {
    this.expect('{', opening);
    const body: Statement[] = [];
    for (;;) {
      this.skip(';');
      const token = this.peek();
      if (this.accept('}')) return body;
      if (token.kind === 'end') this.fail(`${owner} is not closed with "}"`, token.position);
      body.push(this.statement(tail, false));
    }
  }

  private statement(tail: boolean, topLevel: boolean): Statement {
    const token = this.peek();
    const after = this.peek(1);
    const position = token.position;
    if (token.kind === 'identifier' && !this.isPunctuation(after, '=')) {
      const keyword = this.keywordStatement(token, after);
      if (keyword) return keyword;
    }
    const expression = this.expression();
    if (this.isPunctuation(this.peek(), '=')) {
      const equals = this.next();
      const value = this.expression();
      if (expression.kind === 'variable')
        return { kind: 'assign', name: expression.name, value, position };
      if (expression.kind === 'member' || expression.kind === 'index')
        return { kind: 'set', target: expression, value, position };
      this.fail(
        'only a variable, a field (x.name) or an item (x[i]) can be assigned',
        equals.position,
      );
    }
    if (!STATEMENT_EXPRESSIONS.has(expression.kind) && !topLevel) {
      if (tail && this.isPunctuation(this.peek(), '}')) {
        return { kind: 'return', value: expression, position };
      }
      this.fail(
        'a statement must assign (x = …), print(…), call something or run an agent (Agent.run(…))',
        expression.position,
      );
    }
    return { kind: 'expression', expression, position };
  }

  /** Statements that start with a keyword; undefined when `token` does not start one. */
  private keywordStatement(
    token: Token & { kind: 'identifier' },
    after: Token,
  ): Statement | undefined {
    const position = token.position;
    const unsupported = (construct: string, ...blocks: Statement[][]): Statement => ({
      kind: 'unsupported',
      construct,
      blocks,
      position,
    });
    const punctuation = (value: string) => this.isPunctuation(after, value);
    switch (token.value) {
      case 'print': {
        this.next();
        const args: Expression[] = [];
        if (this.isPunctuation(this.peek(), '(')) {
          this.next();
          while (!this.isPunctuation(this.peek(), ')')) {
            args.push(this.expression());
            if (!this.accept(',')) break;
          }
          this.expect(')', 'to close print(…)');
        } else if (!this.peek().newline && !this.endsStatement(this.peek())) {
          args.push(this.expression());
        }
        return { kind: 'print', arguments: args, position };
      }
      case 'let': {
        this.next();
        const pattern = this.pattern();
        if (this.accept(':')) this.type();
        this.expect('=', 'after the name in "let"');
        return { kind: 'let', pattern, value: this.expression(), position };
      }
      case 'if':
        return this.ifStatement();
      case 'while': {
        this.next();
        const condition = this.expression();
        return { kind: 'while', condition, body: this.loopBody('while'), position };
      }
      case 'for':
        return this.forStatement();
      case 'loop': {
        if (!punctuation('{')) return undefined;
        this.next();
        const body = this.block('loop', 'to open the loop', false);
        this.expectWord('until', 'after the loop body (loop { … } until ("condition"))');
        return { kind: 'loop-until', body, condition: this.expression(), position };
      }
      case 'semantic_if':
        return this.semanticIf();
      case 'try': {
        if (!punctuation('{')) return undefined;
        this.next();
        const body = this.block('try', 'to open try', false);
        this.expectWord('catch', 'after the try block');
        let error: string | undefined;
        if (this.accept('(')) {
          const first = this.identifier('the error variable in catch (…)');
          error = first.value;
          if (this.peek().kind === 'identifier') error = (this.next() as typeof first).value;
          this.expect(')', 'to close catch (…)');
        }
        const handler = this.block('catch', 'to open catch', false);
        return { kind: 'try', body, error, handler, position };
      }
      case 'break':
      case 'continue':
        if (!this.endsStatement(after) && !after.newline) return undefined;
        this.next();
        return { kind: token.value, position };
      case 'return': {
        this.next();
        const value =
          this.peek().newline || this.endsStatement(this.peek()) ? undefined : this.expression();
        return { kind: 'return', value, position };
      }
      case 'assert': {
        this.next();
        const condition = this.expression();
        const against = this.wordThenExpression('against');
        return { kind: 'assert', condition, against, position };
      }
      case 'verify': {
        if (after.newline || this.endsStatement(after) || punctuation('(')) return undefined;
        this.next();
        const subject = this.expression();
        if (this.isWord(this.peek(), 'satisfies')) {
          this.next();
          return { kind: 'verify', subject, type: this.type(), condition: undefined, position };
        }
        if (this.isWord(this.peek(), 'against') && subject.kind === 'string') {
          this.next();
          const against = this.expression();
          return {
            kind: 'verify',
            subject: against,
            type: undefined,
            condition: subject.value,
            position,
          };
        }
        return unsupported('verify of a method result');
      }
      case 'defer':
        if (after.newline || this.endsStatement(after)) return undefined;
        this.next();
        return { kind: 'defer', expression: this.expression(), position };
      case 'python':
        if (!punctuation('!')) return undefined;
        this.next();
        this.next();
        this.string('the Python code (a """…""" string) after python!');
        return unsupported('python! blocks');
      case 'autoloop':
      case 'with_context': {
        if (!(after.kind === 'identifier' || punctuation('{'))) return undefined;
        this.next();
        while (this.peek().kind === 'identifier') {
          const setting = this.identifier('a setting');
          this.expect(':', `after "${setting.value}"`);
          this.constant(`"${setting.value}"`);
          this.accept(',');
        }
        return unsupported(token.value, this.block(token.value, `to open ${token.value}`, false));
      }
      case 'try_agent': {
        if (!punctuation('{')) return undefined;
        this.next();
        const blocks = [this.block('try_agent', 'to open try_agent', false)];
        if (!this.isWord(this.peek(), 'catch_correction')) {
          this.expectWord('catch_correction', 'after the try_agent block');
        }
        while (this.isWord(this.peek(), 'catch_correction')) {
          this.next();
          this.expect('(', 'after catch_correction');
          this.identifier('the error variable');
          if (this.accept(':')) this.type();
          this.expect(')', 'to close catch_correction(…)');
          blocks.push(this.block('catch_correction', 'to open catch_correction', false));
        }
        return unsupported('try_agent / catch_correction', ...blocks);
      }
      case 'reflect':
        if (after.kind !== 'string') return undefined;
        this.next();
        this.next();
        return unsupported('reflect');
      case 'before_step':
      case 'after_step':
      case 'context_policy':
        if (!punctuation('{')) return undefined;
        this.next();
        if (token.value === 'context_policy') {
          this.expect('{', 'to open context_policy');
          this.fields('context_policy');
          return unsupported('context_policy');
        }
        return unsupported(
          `${token.value} hooks`,
          this.block(token.value, `to open ${token.value}`, false),
        );
      case 'on_error':
      case 'before_tool':
      case 'after_tool': {
        if (!punctuation('(')) return undefined;
        const saved = this.index;
        this.next();
        this.next();
        while (!this.isPunctuation(this.peek(), ')') && this.peek().kind !== 'end') this.next();
        this.next();
        if (!this.isPunctuation(this.peek(), '{')) {
          this.index = saved;
          return undefined;
        }
        return unsupported(
          `${token.value} hooks`,
          this.block(token.value, `to open ${token.value}`, false),
        );
      }
      case 'unharnessed': {
        if (!(punctuation('(') || punctuation('{'))) return undefined;
        this.next();
        if (this.accept('(')) {
          this.string('the reason');
          this.expect(')', 'to close unharnessed(…)');
        }
        return unsupported('unharnessed', this.block('unharnessed', 'to open unharnessed', false));
      }
      case 'fork': {
        if (!punctuation('[')) return undefined;
        this.next();
        this.expression();
        this.expectWord('merge', 'after the fork branches (fork [ … ] merge strategy)');
        this.identifier('a merge strategy');
        return unsupported('fork … merge');
      }
      case 'pass': {
        if (after.newline || this.endsStatement(after)) return undefined;
        this.next();
        this.expression();
        this.expectWord('to', 'after the message in "pass … to"');
        this.identifier('the actor after "to"');
        return unsupported('pass … to (actors)');
      }
      case 'requires':
      case 'ensures':
        if (after.newline || this.endsStatement(after)) return undefined;
        this.next();
        this.expression();
        return unsupported(`${token.value} inside a body`);
      default:
        return undefined;
    }
  }

  /** The expression after `word` when `word` comes next; undefined otherwise. */
  private wordThenExpression(word: string): Expression | undefined {
    if (!this.isWord(this.peek(), word)) return undefined;
    this.next();
    return this.expression();
  }

  private endsStatement(token: Token): boolean {
    return this.isPunctuation(token, ';') || this.isPunctuation(token, '}') || token.kind === 'end';
  }

  private loopBody(owner: string): Statement[] {
    return this.block(owner, `to open the ${owner} body`, false);
  }

  private ifStatement(): Statement {
    const position = this.next().position;
    const condition = this.expression();
    const body = this.block('if', 'to open the if block', false);
    let otherwise: Statement[] | undefined;
    if (this.isWord(this.peek(), 'else')) {
      this.next();
      otherwise = this.isWord(this.peek(), 'if')
        ? [this.ifStatement()]
        : this.block('else', 'to open the else block', false);
    }
    return { kind: 'if', condition, body, otherwise, position };
  }

  private forStatement(): Statement {
    const position = this.next().position;
    let index: string | undefined;
    let pattern: Pattern;
    if (this.isWord(this.peek(), 'each')) {
      this.next();
      const first = this.identifier('a variable name after "for each"');
      pattern = { kind: 'bind', name: first.value, position: first.position };
      if (this.accept(',')) {
        index = first.value;
        const second = this.identifier('the item variable after the index');
        pattern = { kind: 'bind', name: second.value, position: second.position };
      }
    } else {
      pattern = this.pattern();
    }
    this.expectWord('in', 'after the loop variable (for each x in list)');
    const iterable = this.expression();
    return { kind: 'for', index, pattern, iterable, body: this.loopBody('for'), position };
  }

  private semanticIf(): Statement {
    const position = this.next().position;
    const condition = this.string('the condition string after semantic_if');
    let fastMatch: string | undefined;
    if (this.isWord(this.peek(), 'fast_match')) {
      this.next();
      this.accept(':');
      fastMatch = this.string('a regular expression after fast_match').value;
    }
    this.expectWord('against', 'after the semantic_if condition');
    const subject = this.expression();
    const body = this.block('semantic_if', 'to open the semantic_if block', false);
    let otherwise: Statement[] | undefined;
    if (this.isWord(this.peek(), 'else')) {
      this.next();
      otherwise = this.block('else', 'to open the else block', false);
    }
    return {
      kind: 'semantic-if',
      condition: condition.value,
      fastMatch,
      subject,
      body,
      otherwise,
      position,
    };
  }

  // ── patterns ──────────────────────────────────────────────────────────────────────────────

  private pattern(): Pattern {
    const token = this.next();
    const position = token.position;
    switch (token.kind) {
      case 'string':
        return { kind: 'literal', value: token.value, position };
      case 'number':
        return { kind: 'literal', value: token.value, position };
      case 'identifier': {
        const word = token.value;
        if (word === '_') return { kind: 'wildcard', position };
        if (word === 'true' || word === 'false')
          return { kind: 'literal', value: word === 'true', position };
        if (word === 'null' || word === 'None') return { kind: 'literal', value: null, position };
        if (word === 'intent' && this.isPunctuation(this.peek(), '(')) {
          this.next();
          const description = this.string('the intent description in intent("…")');
          this.expect(')', 'to close intent("…")');
          return { kind: 'intent', description: description.value, position };
        }
        if (this.isPunctuation(this.peek(), '::')) {
          let path = word;
          while (this.accept('::'))
            path += `::${this.identifier('a variant name after "::"').value}`;
          const items = this.isPunctuation(this.peek(), '(')
            ? this.patternList('(', ')').items
            : [];
          return { kind: 'variant', path, items, position };
        }
        return { kind: 'bind', name: word, position };
      }
      case 'punctuation':
        if (token.value === '-' && this.peek().kind === 'number') {
          return {
            kind: 'literal',
            value: -(this.next() as Token & { kind: 'number' }).value,
            position,
          };
        }
        if (token.value === '(') {
          this.index--;
          return { kind: 'tuple', items: this.patternList('(', ')').items, position };
        }
        if (token.value === '[') {
          this.index--;
          const { items, rest } = this.patternList('[', ']');
          return { kind: 'array', items, rest, position };
        }
        if (token.value === '{') {
          const entries: Array<{ key: string; pattern: Pattern; position: Position }> = [];
          let rest: string | undefined;
          while (!this.isPunctuation(this.peek(), '}')) {
            if (this.accept('..')) {
              rest = this.identifier('a name after ".."').value;
              break;
            }
            const key = this.next();
            if (key.kind !== 'identifier' && key.kind !== 'string') {
              this.fail(
                `expected a key in the record pattern, found ${describeToken(key)}`,
                key.position,
              );
            }
            const pattern: Pattern = this.accept(':')
              ? this.pattern()
              : { kind: 'bind', name: key.value, position: key.position };
            entries.push({ key: key.value, pattern, position: key.position });
            if (!this.accept(',')) break;
          }
          this.expect('}', 'to close the record pattern');
          return { kind: 'record', entries, rest, position };
        }
        break;
      default:
        break;
    }
    return this.fail(`expected a pattern, found ${describeToken(token)}`, position);
  }

  /** `( p, … )` or `[ p, …, ..rest ]` (also `[a, b..rest]`). */
  private patternList(open: string, close: string): { items: Pattern[]; rest: string | undefined } {
    this.expect(open, 'to open the pattern');
    const items: Pattern[] = [];
    let rest: string | undefined;
    while (!this.isPunctuation(this.peek(), close)) {
      if (this.accept('..')) {
        rest = this.identifier('a name after ".."').value;
        break;
      }
      items.push(this.pattern());
      if (this.accept('..')) {
        rest = this.identifier('a name after ".."').value;
        break;
      }
      if (!this.accept(',')) break;
    }
    this.expect(close, `to close the pattern with "${close}"`);
    return { items, rest };
  }

  // ── expressions ───────────────────────────────────────────────────────────────────────────

  expression(): Expression {
    const primary = this.coalesce();
    const token = this.peek();
    if (this.isWord(token, 'otherwise') || this.isWord(token, 'fallback')) {
      this.next();
      return { kind: 'fallback', primary, backup: this.expression(), position: token.position };
    }
    return primary;
  }

  private coalesce(): Expression {
    let left = this.flowOperators();
    while (this.isPunctuation(this.peek(), '??')) {
      const operator = this.next();
      const right = this.flowOperators();
      if (this.accept(':')) {
        const otherwise = this.flowOperators();
        left = {
          kind: 'branch',
          input: left,
          whenPresent: right,
          otherwise,
          position: operator.position,
        };
      } else {
        left = { kind: 'coalesce', left, right, position: operator.position };
      }
    }
    return left;
  }

  /** `>>`, `|>`, `|>>`, `||`, `&>>`, `&&`: one level, left to right. */
  private flowOperators(): Expression {
    let left = this.or();
    for (;;) {
      const token = this.peek();
      if (token.kind !== 'punctuation') return left;
      const position = token.position;
      switch (token.value) {
        case '>>':
          this.next();
          left = { kind: 'pipeline', input: left, stage: this.or(), position };
          break;
        case '|>':
          this.next();
          left = { kind: 'pipe', input: left, target: this.or(), position };
          break;
        case '|>>':
        case '||': {
          this.next();
          const targets = this.or();
          if (targets.kind !== 'list') {
            this.fail(
              `"${token.value}" sends to a list of agents: input ${token.value} [A, B]`,
              targets.position,
            );
          }
          left = {
            kind: 'fork',
            input: left,
            targets: targets.items,
            wait: token.value === '|>>',
            position,
          };
          break;
        }
        case '&>>':
        case '&&':
          this.next();
          left = {
            kind: 'merge',
            input: left,
            merger: this.or(),
            consensus: token.value === '&&',
            position,
          };
          break;
        default:
          return left;
      }
    }
  }

  private or(): Expression {
    return this.logical('or', () => this.and());
  }

  private and(): Expression {
    return this.logical('and', () => this.not());
  }

  /** `operand (word operand)*`, left to right. */
  private logical(operator: 'and' | 'or', operand: () => Expression): Expression {
    let left = operand();
    while (this.isWord(this.peek(), operator)) {
      const position = this.next().position;
      left = { kind: 'binary', operator, left, right: operand(), position };
    }
    return left;
  }

  private not(): Expression {
    const token = this.peek();
    if (this.isWord(token, 'not') || (this.isPunctuation(token, '!') && !token.newline)) {
      this.next();
      return { kind: 'not', operand: this.not(), position: token.position };
    }
    return this.comparison();
  }

  private comparison(): Expression {
    const left = this.additive();
    const token = this.peek();
    if (token.kind === 'punctuation' && COMPARISONS.has(token.value)) {
      this.next();
      return {
        kind: 'binary',
        operator: token.value as '==',
        left,
        right: this.additive(),
        position: token.position,
      };
    }
    return left;
  }

  private additive(): Expression {
    let left = this.multiplicative();
    for (;;) {
      const token = this.peek();
      if (this.isPunctuation(token, '+')) {
        this.next();
        left = { kind: 'concat', left, right: this.multiplicative(), position: token.position };
      } else if (this.isPunctuation(token, '-')) {
        this.next();
        left = {
          kind: 'binary',
          operator: '-',
          left,
          right: this.multiplicative(),
          position: token.position,
        };
      } else return left;
    }
  }

  private multiplicative(): Expression {
    let left = this.unary();
    for (;;) {
      const token = this.peek();
      if (token.kind === 'punctuation' && ['*', '/', '%'].includes(token.value)) {
        this.next();
        left = {
          kind: 'binary',
          operator: token.value as '*',
          left,
          right: this.unary(),
          position: token.position,
        };
      } else return left;
    }
  }

  private unary(): Expression {
    const token = this.peek();
    if (this.isPunctuation(token, '-')) {
      this.next();
      const operand = this.unary();
      if (operand.kind === 'number')
        return { ...operand, value: -operand.value, position: token.position };
      return { kind: 'negate', operand, position: token.position };
    }
    return this.postfix();
  }

  private postfix(): Expression {
    let expression = this.primary();
    for (;;) {
      const token = this.peek();
      if (this.isPunctuation(token, '.')) {
        this.next();
        const name = this.identifier('a name after "."');
        if (
          name.value === 'run' &&
          expression.kind === 'variable' &&
          this.isPunctuation(this.peek(), '(') &&
          !this.peek().newline
        ) {
          const agent = expression.name;
          const args = this.callArguments(`${agent}.run`);
          if (args.named.length) {
            this.fail(
              `${agent}.run(…) takes no named arguments`,
              args.named[0]?.position ?? name.position,
            );
          }
          const argument: Expression =
            args.positional.length === 1
              ? (args.positional[0] as Expression)
              : {
                  kind: 'words',
                  parts: args.positional,
                  position: args.positional[0]?.position ?? name.position,
                };
          expression = { kind: 'run', agent, argument, position: expression.position };
          continue;
        }
        expression = {
          kind: 'member',
          object: expression,
          name: name.value,
          namePosition: name.position,
          position: expression.position,
        };
      } else if (this.isPunctuation(token, '(') && !token.newline) {
        const args = this.callArguments(describeCallee(expression));
        expression = {
          kind: 'call',
          callee: expression,
          arguments: args.positional,
          named: args.named,
          position: expression.position,
        };
      } else if (this.isPunctuation(token, '[') && !token.newline) {
        this.next();
        const index = this.expression();
        this.expect(']', 'to close the index […]');
        expression = { kind: 'index', object: expression, index, position: expression.position };
      } else if (this.isPunctuation(token, '?') && !token.newline) {
        this.next();
        expression = { kind: 'propagate', operand: expression, position: token.position };
      } else if (this.isPunctuation(token, '::') && expression.kind === 'variable') {
        let path = expression.name;
        while (this.accept('::')) path += `::${this.identifier('a variant name after "::"').value}`;
        expression = {
          kind: 'unsupported',
          construct: `enum variants (${path})`,
          position: expression.position,
        };
      } else return expression;
    }
  }

  private callArguments(callee: string) {
    this.expect('(', `after ${callee}`);
    const positional: Expression[] = [];
    const named: Array<{ name: string; value: Expression; position: Position }> = [];
    while (!this.isPunctuation(this.peek(), ')')) {
      const key = this.peek();
      const separator = this.peek(1);
      if (
        key.kind === 'identifier' &&
        (this.isPunctuation(separator, '=') || this.isPunctuation(separator, ':'))
      ) {
        this.next();
        this.next();
        named.push({ name: key.value, value: this.expression(), position: key.position });
      } else {
        positional.push(this.expression());
      }
      if (!this.accept(',')) break;
    }
    this.expect(')', `to close ${callee}(…)`);
    return { positional, named };
  }

  private primary(): Expression {
    const token = this.next();
    const position = token.position;
    switch (token.kind) {
      case 'string':
        return token.parts
          ? this.interpolation(token.parts, position)
          : { kind: 'string', value: token.value, position };
      case 'fstring':
        return { kind: 'fstring', parts: token.parts, position };
      case 'template':
        return { kind: 'unsupported', construct: 'template strings', position };
      case 'number':
        return { kind: 'number', value: token.value, position };
      case 'identifier':
        return this.word(token);
      case 'punctuation':
        if (token.value === '(') {
          const inner = this.expression();
          this.expect(')', 'to close "("');
          return inner;
        }
        if (token.value === '[') {
          const items: Expression[] = [];
          while (!this.isPunctuation(this.peek(), ']')) {
            items.push(this.expression());
            if (!this.accept(',')) break;
          }
          this.expect(']', 'to close the list');
          return { kind: 'list', items, position };
        }
        if (token.value === '{') return this.record(position);
        if (token.value === '@') {
          this.fail('unexpected character "@": decorators go before "agent" or "fn"', position);
        }
        break;
      default:
        break;
    }
    return this.fail(`expected an expression, found ${describeToken(token)}`, position);
  }

  private word(token: Token & { kind: 'identifier' }): Expression {
    const position = token.position;
    const following = this.peek();
    switch (token.value) {
      case 'true':
      case 'false':
        return { kind: 'boolean', value: token.value === 'true', position };
      case 'null':
      case 'None':
        return { kind: 'null', position };
      case 'map':
        if (this.isPunctuation(following, '{')) {
          this.next();
          return this.record(position);
        }
        break;
      case 'match':
        if (
          following.newline ||
          this.endsStatement(following) ||
          this.isPunctuation(following, '=')
        )
          break;
        return this.match(position);
      case 'fn':
        if (!this.isPunctuation(following, '(')) break;
        this.parameters();
        this.block('fn', 'to open the fn body', true);
        return { kind: 'unsupported', construct: 'fn values (lambdas)', position };
      case 'spawn':
        if (following.kind !== 'identifier' || following.newline) break;
        this.next();
        this.callArguments(following.value);
        return { kind: 'unsupported', construct: 'spawn (actors)', position };
      case 'await':
        if (following.newline || this.endsStatement(following)) break;
        this.unary();
        return { kind: 'unsupported', construct: 'await (actors)', position };
      default:
        break;
    }
    return { kind: 'variable', name: token.value, position };
  }

  /** `{ key: value, "key": value }` after its opening brace. */
  private record(position: Position): Expression {
    const entries: Array<{ key: string; value: Expression; position: Position }> = [];
    while (!this.isPunctuation(this.peek(), '}')) {
      const key = this.next();
      if (key.kind !== 'string' && key.kind !== 'identifier') {
        this.fail(`expected a key ("name" or name), found ${describeToken(key)}`, key.position);
      }
      if (entries.some((entry) => entry.key === key.value)) {
        this.fail(`key "${key.value}" is given twice`, key.position);
      }
      this.expect(':', `after the key "${key.value}"`);
      entries.push({ key: key.value, value: this.expression(), position: key.position });
      if (!this.accept(',')) this.skip(';');
    }
    this.expect('}', 'to close the record');
    return { kind: 'record', entries, position };
  }

  /** `match subject { pattern [if guard] => body [if guard], … }` after `match`. */
  private match(position: Position): Expression {
    const subject = this.expression();
    this.expect('{', 'to open the match arms');
    const arms: MatchArm[] = [];
    for (;;) {
      this.skip(',', ';');
      const token = this.peek();
      if (this.accept('}')) break;
      if (token.kind === 'end') this.fail('match is not closed with "}"', token.position);
      const pattern = this.pattern();
      let guard = this.wordThenExpression('if');
      this.expect('=>', 'after the match pattern');
      const body = this.isPunctuation(this.peek(), '{')
        ? this.block('match arm', 'to open the arm', true)
        : this.expression();
      if (!guard && this.isWord(this.peek(), 'if') && !this.peek().newline) {
        this.next();
        guard = this.expression();
      }
      arms.push({ pattern, guard, body, position: token.position });
    }
    if (arms.length === 0) this.fail('match has no arms', position);
    return { kind: 'match', subject, arms, position };
  }

  /** A nexa string with `#{…}`: each interpolation is parsed as an expression where it stands. */
  private interpolation(
    parts: NonNullable<(Token & { kind: 'string' })['parts']>,
    position: Position,
  ): Expression {
    return {
      kind: 'interpolation',
      parts: parts.map((part) => {
        if (typeof part === 'string') return part;
        const tokens = tokenize(part.source, this.fileName, this.dialect, part.position);
        if (tokens[0]?.kind === 'end')
          this.fail('"#{}" is empty: put an expression inside', part.position);
        const parser = new Parser(tokens, this.fileName, this.dialect);
        const expression = parser.expression();
        const rest = parser.peek();
        if (rest.kind !== 'end') {
          this.fail(`unexpected ${describeToken(rest)} inside "#{…}"`, rest.position);
        }
        return expression;
      }),
      position,
    };
  }
}

function describeCallee(callee: Expression): string {
  if (callee.kind === 'variable') return callee.name;
  if (callee.kind === 'member') return `${describeCallee(callee.object)}.${callee.name}`;
  return 'the call';
}
