import { RE2JS } from 're2js';
import { AgentError, type AgentRunOptions, isAgentError } from '../agent.ts';
import type {
  AgentScript,
  Expression,
  FlowDeclaration,
  FunctionDeclaration,
  NamedArgument,
  Parameter,
  ProtocolDeclaration,
  ScriptDialect,
  Statement,
  TypeExpression,
} from './ast.ts';
import { BUILTIN_FUNCTIONS } from './check.ts';
import { matchPattern } from './match-pattern.ts';
import { parseAgentScript } from './parse.ts';
import { ScriptAgent, typeText } from './script-agent.ts';
import {
  AgentScriptError,
  type AgentScriptErrorCode,
  isAgentScriptError,
  type Position,
} from './script-error.ts';
import { chooseIntent, conditionHolds, UnreadableAnswer } from './semantic.ts';
import {
  equals,
  fromConstant,
  isRecord,
  kindOf,
  ScriptReference,
  type ScriptValue,
  textOf,
  toPlain,
  truthy,
  type Value,
} from './values.ts';

/** Limits of a script run; each can be changed in {@link AgentScriptRunOptions}. */
export const DEFAULT_SCRIPT_LIMITS = {
  /** Most rounds of a `loop { … } until (…)` before the run fails (each round asks the model). */
  maxLoopRounds: 10,
  /** Most rounds of a `while` loop before the run fails. */
  maxWhileRounds: 100_000,
} as const;

/**
 * Options of {@link runAgentScript}: the model endpoint and tool policy, plus where print goes.
 * The meaning of the std tools follows the dialect (Nexa's built-ins' in the nexa dialect).
 */
export interface AgentScriptRunOptions extends Omit<AgentRunOptions, 'semantics'> {
  /** Name shown in error positions (default `<script>`); also picks the dialect of a source. */
  fileName?: string;
  /** The dialect of a source given as text (default: from `fileName`). */
  dialect?: ScriptDialect;
  /** Receives each `print(…)` line (default: standard output). */
  print?: (line: string) => void;
  /** Receives warnings, e.g. a failed `x || [A, B]` run nobody waited for (default: stderr). */
  warn?: (line: string) => void;
  /** Default {@link DEFAULT_SCRIPT_LIMITS}.maxLoopRounds. */
  maxLoopRounds?: number;
  /** Default {@link DEFAULT_SCRIPT_LIMITS}.maxWhileRounds. */
  maxWhileRounds?: number;
}

/** What a script run leaves behind. */
export interface AgentScriptResult {
  /** The variables of `flow main` at the end (the top-level variables when there is none). */
  variables: Record<string, ScriptValue>;
  /** Every printed line, in order. */
  output: string[];
}

/**
 * Parses (see `parseAgentScript`) and runs an agent script: its top-level statements, then
 * `flow main` (in the nexa dialect, every flow in order when there is no `flow main`). Each
 * `Agent.run("…")` runs that agent's tool-calling loop with `options` (model endpoint, policy,
 * limits); `semantic_if`, `match … intent(…)`, `loop … until` and `assert … against` ask the
 * model (`options.model`). A construct that cannot run yet stops the run with an
 * `AGENT_SCRIPT_UNSUPPORTED` error at its line and column; nothing runs if the script has a
 * syntax error.
 *
 * @example
 * await runAgentScript(await loadAgentScript('hello.agent'), {
 *   baseURL: process.env.LLM_BASE_URL,
 *   apiKey: process.env.LLM_API_KEY,
 *   model: process.env.LLM_MODEL,
 * });
 */
export async function runAgentScript(
  script: string | AgentScript,
  options: AgentScriptRunOptions = {},
): Promise<AgentScriptResult> {
  const parsed =
    typeof script === 'string'
      ? parseAgentScript(
          script,
          options.fileName,
          options.dialect ? { dialect: options.dialect } : {},
        )
      : script;
  const interpreter = new Interpreter(parsed, options);
  const variables = await interpreter.start();
  return {
    variables: Object.fromEntries([...variables].map(([name, value]) => [name, toPlain(value)])),
    output: interpreter.output,
  };
}

interface Frame {
  variables: Map<string, Value>;
  file: string;
  defers: Array<() => Promise<unknown>>;
}

type Signal = { kind: 'break' } | { kind: 'continue' } | { kind: 'return'; value: Value };

/** Instruction prefix for `answers && Judge`. */
const CONSENSUS_INSTRUCTION = (count: number) =>
  `Here are ${count} answers to the same question. Give the answer they agree on, or the best-supported one, with a short reason.`;

class Interpreter {
  readonly output: string[] = [];
  private readonly script: AgentScript;
  private readonly options: AgentRunOptions;
  private readonly write: (line: string) => void;
  private readonly warn: (line: string) => void;
  private readonly limits: { maxLoopRounds: number; maxWhileRounds: number };
  private readonly agents = new Map<string, ScriptAgent>();
  private readonly flows = new Map<string, FlowDeclaration>();
  private readonly functions = new Map<string, FunctionDeclaration>();
  private readonly protocols = new Map<string, ProtocolDeclaration>();
  private readonly typeNames = new Map<string, string>();
  private readonly globals = new Map<string, Value>();
  private readonly pending: Array<Promise<void>> = [];

  constructor(script: AgentScript, options: AgentScriptRunOptions) {
    const {
      fileName: _fileName,
      dialect: _dialect,
      print,
      warn,
      maxLoopRounds,
      maxWhileRounds,
      ...runOptions
    } = options;
    this.script = script;
    this.options = runOptions;
    this.write = print ?? ((line: string) => void process.stdout.write(`${line}\n`));
    this.warn = warn ?? ((line: string) => void process.stderr.write(`${line}\n`));
    this.limits = {
      maxLoopRounds: maxLoopRounds ?? DEFAULT_SCRIPT_LIMITS.maxLoopRounds,
      maxWhileRounds: maxWhileRounds ?? DEFAULT_SCRIPT_LIMITS.maxWhileRounds,
    };
    for (const protocol of script.protocols) this.protocols.set(protocol.name, protocol);
    const host = {
      dialect: script.dialect,
      protocols: this.protocols,
      fail: (reason: string, at: Position, file: string) => this.fail(reason, at, file),
      unsupported: (construct: string, at: Position, file: string) =>
        this.unsupported(construct, at, file),
      holds: (construct: string, condition: string, subject: string, at: Position, file: string) =>
        this.holds(construct, condition, subject, at, file),
    };
    for (const agent of script.agents)
      this.agents.set(agent.name, new ScriptAgent(agent, host, script.fileName));
    for (const flow of script.flows) this.flows.set(flow.name, flow);
    for (const fn of script.functions) this.functions.set(fn.name, fn);
    for (const declaration of script.declarations) {
      this.typeNames.set(declaration.name.split(' ')[0] as string, declaration.kind);
    }
  }

  // ── errors ────────────────────────────────────────────────────────────────────────────────

  private fail(
    reason: string,
    at: Position,
    file: string,
    code: AgentScriptErrorCode = 'AGENT_SCRIPT_RUNTIME',
  ): never {
    throw new AgentScriptError(reason, at, file, code);
  }
  private unsupported(construct: string, at: Position, file: string): never {
    return this.fail(`${construct}: not supported yet`, at, file, 'AGENT_SCRIPT_UNSUPPORTED');
  }
  /** Failures a `try`/`catch`, `otherwise` or `fallback` recovers from. */
  private catchable(error: unknown): boolean {
    if (isAgentScriptError(error)) return error.code === 'AGENT_SCRIPT_RUNTIME';
    return isAgentError(error) && error.code !== 'AGENT_ABORTED' && error.code !== 'AGENT_CONFIG';
  }
  private async holds(
    construct: string,
    condition: string,
    subject: string,
    at: Position,
    file: string,
  ) {
    try {
      return await conditionHolds(construct, condition, subject, this.options);
    } catch (error) {
      if (error instanceof UnreadableAnswer)
        this.fail(`${construct} "${condition}": ${error.message}`, at, file);
      throw error;
    }
  }

  // ── entry ─────────────────────────────────────────────────────────────────────────────────

  async start(): Promise<Map<string, Value>> {
    const top: Frame = { variables: this.globals, file: this.script.fileName, defers: [] };
    try {
      await this.topLevel(this.script.statements, top);
      const main = this.flows.get('main');
      if (main) return (await this.callFlow(main, [], [], main.position)).variables;
      if (this.script.dialect === 'nexa') {
        // Without flow main, every flow that takes no parameters runs, in order (flows with
        // parameters are there to be called).
        for (const flow of this.script.flows) {
          if (!flow.parameters?.length) await this.callFlow(flow, [], [], flow.position);
        }
      }
      return this.globals;
    } finally {
      await Promise.all(this.pending);
    }
  }

  private async topLevel(statements: Statement[], frame: Frame): Promise<void> {
    for (const statement of statements) {
      if (statement.kind === 'include') {
        if (!statement.included) {
          if (/\.nxs$/i.test(statement.path)) {
            this.unsupported(
              `include of a secrets file ("${statement.path}"); give the model endpoint with --base-url / LLM_BASE_URL and LLM_API_KEY`,
              statement.position,
              frame.file,
            );
          }
          this.unsupported(
            `include "${statement.path}" without reading files (run the script with loadAgentScript or class-agent run)`,
            statement.position,
            frame.file,
          );
        }
        await this.topLevel(statement.included.statements, {
          ...frame,
          file: statement.included.fileName,
        });
        continue;
      }
      const signal = await this.statement(statement, frame);
      if (signal) this.fail(`"${signal.kind}" outside a flow`, statement.position, frame.file);
    }
  }

  // ── statements ────────────────────────────────────────────────────────────────────────────

  private async block(statements: Statement[], frame: Frame): Promise<Signal | undefined> {
    for (const statement of statements) {
      const signal = await this.statement(statement, frame);
      if (signal) return signal;
    }
    return undefined;
  }

  private async statement(node: Statement, frame: Frame): Promise<Signal | undefined> {
    const file = frame.file;
    switch (node.kind) {
      case 'assign':
        frame.variables.set(node.name, await this.evaluate(node.value, frame));
        return undefined;
      case 'let': {
        const value = await this.evaluate(node.value, frame);
        this.bind(node.pattern, value, frame, node.position, 'let');
        return undefined;
      }
      case 'set':
        await this.assignInto(node.target, await this.evaluate(node.value, frame), frame);
        return undefined;
      case 'print': {
        const parts: string[] = [];
        for (const argument of node.arguments)
          parts.push(textOf(await this.evaluate(argument, frame)));
        this.print(parts.join(' '));
        return undefined;
      }
      case 'expression':
        await this.evaluate(node.expression, frame);
        return undefined;
      case 'if':
        if (truthy(await this.evaluate(node.condition, frame))) return this.block(node.body, frame);
        return node.otherwise ? this.block(node.otherwise, frame) : undefined;
      case 'semantic-if': {
        const subject = textOf(await this.evaluate(node.subject, frame));
        let holds = false;
        if (node.fastMatch !== undefined) {
          let pattern: RE2JS;
          try {
            pattern = RE2JS.compile(node.fastMatch, RE2JS.CASE_INSENSITIVE);
          } catch (error) {
            this.fail(
              `fast_match ${JSON.stringify(node.fastMatch)} is not a valid regular expression: ${(error as Error).message}`,
              node.position,
              file,
            );
          }
          holds = pattern.matcher(subject).find();
        }
        if (!holds)
          holds = await this.holds('semantic_if', node.condition, subject, node.position, file);
        if (holds) return this.block(node.body, frame);
        return node.otherwise ? this.block(node.otherwise, frame) : undefined;
      }
      case 'while': {
        for (let round = 0; truthy(await this.evaluate(node.condition, frame)); round++) {
          if (round >= this.limits.maxWhileRounds) {
            this.fail(
              `the while loop ran ${this.limits.maxWhileRounds} rounds (maxWhileRounds)`,
              node.position,
              file,
            );
          }
          if (round % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
          this.checkAborted();
          const signal = await this.block(node.body, frame);
          if (signal?.kind === 'break') break;
          if (signal?.kind === 'return') return signal;
        }
        return undefined;
      }
      case 'for': {
        const iterable = await this.evaluate(node.iterable, frame);
        const items: Value[] = Array.isArray(iterable)
          ? [...iterable]
          : isRecord(iterable)
            ? [...iterable.keys()]
            : typeof iterable === 'string'
              ? [...iterable]
              : this.fail(
                  `for … in needs a list, a record or text, got ${kindOf(iterable)}`,
                  node.iterable.position,
                  file,
                );
        for (const [index, item] of items.entries()) {
          if (node.index) frame.variables.set(node.index, index);
          this.bind(node.pattern, item, frame, node.position, 'for');
          const signal = await this.block(node.body, frame);
          if (signal?.kind === 'break') break;
          if (signal?.kind === 'return') return signal;
        }
        return undefined;
      }
      case 'loop-until': {
        for (let round = 1; ; round++) {
          const signal = await this.block(node.body, frame);
          if (signal?.kind === 'break') return undefined;
          if (signal?.kind === 'return') return signal;
          const condition = await this.evaluate(node.condition, frame);
          const done =
            typeof condition === 'string'
              ? await this.holds(
                  'loop until',
                  condition,
                  JSON.stringify(toPlain(new Map(frame.variables))),
                  node.position,
                  file,
                )
              : truthy(condition);
          if (done) return undefined;
          if (round >= this.limits.maxLoopRounds) {
            this.fail(
              `loop … until ${JSON.stringify(textOf(condition))} still did not hold after ${round} rounds (maxLoopRounds)`,
              node.position,
              file,
            );
          }
        }
      }
      case 'try':
        try {
          return await this.block(node.body, frame);
        } catch (error) {
          if (!this.catchable(error)) throw error;
          if (node.error) frame.variables.set(node.error, (error as Error).message);
          return this.block(node.handler, frame);
        }
      case 'break':
      case 'continue':
        return { kind: node.kind };
      case 'return':
        return {
          kind: 'return',
          value: node.value ? await this.evaluate(node.value, frame) : null,
        };
      case 'assert': {
        if (node.against) {
          const condition = textOf(await this.evaluate(node.condition, frame));
          const subject = textOf(await this.evaluate(node.against, frame));
          if (!(await this.holds('assert', condition, subject, node.position, file))) {
            this.fail(`assertion failed: "${condition}" does not hold`, node.position, file);
          }
        } else if (!truthy(await this.evaluate(node.condition, frame))) {
          this.fail('assertion failed', node.position, file);
        }
        return undefined;
      }
      case 'verify': {
        const subject = await this.evaluate(node.subject, frame);
        if (node.type) {
          if (!this.satisfies(subject, node.type, node.position, file)) {
            this.fail(
              `verify: ${kindOf(subject)} does not satisfy ${typeText(node.type)}`,
              node.position,
              file,
            );
          }
        } else if (
          !(await this.holds('verify', node.condition ?? '', textOf(subject), node.position, file))
        ) {
          this.fail(`verify: "${node.condition}" does not hold`, node.position, file);
        }
        return undefined;
      }
      case 'defer':
        frame.defers.push(() => this.evaluate(node.expression, frame));
        return undefined;
      case 'include':
        return this.fail('include only at the top of a script', node.position, file);
      case 'unsupported':
        return this.unsupported(node.construct, node.position, file);
    }
  }

  private print(line: string): void {
    this.output.push(line);
    this.write(line);
  }

  private checkAborted(): void {
    if (this.options.signal?.aborted)
      throw new AgentError('AGENT_ABORTED', 'script', 'the script run was aborted');
  }

  private bind(
    pattern: Parameters<typeof matchPattern>[0],
    value: Value,
    frame: Frame,
    at: Position,
    what: string,
  ) {
    const bound = new Map<string, Value>();
    if (pattern.kind === 'variant')
      this.unsupported('enum variant patterns', pattern.position, frame.file);
    if (!matchPattern(pattern, value, bound)) {
      this.fail(`${what}: ${kindOf(value)} does not match the pattern`, at, frame.file);
    }
    for (const [name, item] of bound) frame.variables.set(name, item);
  }

  private async assignInto(target: Expression, value: Value, frame: Frame): Promise<void> {
    if (target.kind !== 'member' && target.kind !== 'index') return;
    const container = await this.evaluate(target.object, frame);
    if (target.kind === 'member') {
      if (!isRecord(container))
        this.fail(
          `cannot set .${target.name} on ${kindOf(container)}`,
          target.namePosition,
          frame.file,
        );
      container.set(target.name, value);
      return;
    }
    const key = await this.evaluate(target.index, frame);
    if (isRecord(container) && typeof key === 'string') {
      container.set(key, value);
    } else if (Array.isArray(container) && typeof key === 'number' && Number.isInteger(key)) {
      const at = key < 0 ? container.length + key : key;
      if (at < 0 || at >= container.length)
        this.fail(
          `index ${key} is out of range (${container.length} items)`,
          target.position,
          frame.file,
        );
      container[at] = value;
    } else {
      this.fail(`cannot set [${textOf(key)}] on ${kindOf(container)}`, target.position, frame.file);
    }
  }

  private satisfies(value: Value, type: TypeExpression, at: Position, file: string): boolean {
    if (type.kind === 'union')
      return type.members.some((member) => this.satisfies(value, member, at, file));
    if (type.kind === 'optional')
      return value === null || this.satisfies(value, type.inner, at, file);
    switch (type.name) {
      case 'str':
      case 'string':
      case 'String':
        return typeof value === 'string';
      case 'int':
      case 'Int':
        return Number.isInteger(value);
      case 'float':
      case 'number':
      case 'Float':
        return typeof value === 'number';
      case 'bool':
      case 'boolean':
      case 'Bool':
        return typeof value === 'boolean';
      case 'list':
      case 'List':
        return Array.isArray(value);
      case 'dict':
      case 'Map':
        return isRecord(value);
      default: {
        const protocol = this.protocols.get(type.name);
        if (!protocol)
          return this.unsupported(
            `verify … satisfies ${type.name} (types run: str, int, float, bool, list, dict and protocols)`,
            at,
            file,
          );
        return isRecord(value) && protocol.fields.every((field) => value.has(field.name));
      }
    }
  }

  // ── flows and calls ───────────────────────────────────────────────────────────────────────

  private async callFlow(
    flow: FlowDeclaration,
    args: Value[],
    named: Array<{ name: string; value: Value; position: Position }>,
    at: Position,
  ): Promise<{ value: Value; variables: Map<string, Value> }> {
    const file = flow.fileName ?? this.script.fileName;
    const frame: Frame = { variables: new Map(), file, defers: [] };
    this.bindParameters(`flow ${flow.name}`, flow.parameters ?? [], args, named, frame, at);
    const inputs = JSON.stringify(toPlain(new Map(frame.variables)));
    for (const contract of flow.contracts ?? []) {
      if (contract.kind === 'requires')
        await this.contract(`flow ${flow.name}`, contract, frame, inputs);
    }
    let signal: Signal | undefined;
    try {
      signal = await this.block(flow.body, frame);
    } finally {
      await this.runDefers(frame);
    }
    const value = signal?.kind === 'return' ? signal.value : null;
    if (flow.contracts?.some((contract) => contract.kind === 'ensures')) {
      const scope: Frame = { ...frame, variables: new Map(frame.variables) };
      if (signal?.kind === 'return' && !scope.variables.has('result'))
        scope.variables.set('result', value);
      for (const contract of flow.contracts) {
        if (contract.kind === 'ensures')
          await this.contract(`flow ${flow.name}`, contract, scope, textOf(value));
      }
    }
    return { value, variables: frame.variables };
  }

  private async contract(
    owner: string,
    contract: NonNullable<FlowDeclaration['contracts']>[number],
    frame: Frame,
    subject: string,
  ): Promise<void> {
    const { condition, position } = contract;
    const holds =
      condition.kind === 'string'
        ? await this.holds(contract.kind, condition.value, subject, position, frame.file)
        : truthy(await this.evaluate(condition, frame));
    if (!holds) {
      const text = condition.kind === 'string' ? `"${condition.value}"` : 'its condition';
      this.fail(`${owner}: ${contract.kind} ${text} does not hold`, position, frame.file);
    }
  }

  private async runDefers(frame: Frame): Promise<void> {
    while (frame.defers.length) await (frame.defers.pop() as () => Promise<unknown>)();
  }

  private bindParameters(
    owner: string,
    parameters: Parameter[],
    args: Value[],
    named: Array<{ name: string; value: Value; position: Position }>,
    frame: Frame,
    at: Position,
  ): void {
    if (args.length > parameters.length) {
      this.fail(
        `${owner} takes ${parameters.length} argument(s), got ${args.length}`,
        at,
        frame.file,
      );
    }
    parameters.forEach((parameter, index) => {
      frame.variables.set(
        parameter.name,
        index < args.length
          ? (args[index] as Value)
          : parameter.default !== undefined
            ? fromConstant(parameter.default)
            : null,
      );
    });
    for (const argument of named) {
      if (!parameters.some((parameter) => parameter.name === argument.name)) {
        this.fail(`${owner} has no parameter "${argument.name}"`, argument.position, frame.file);
      }
      frame.variables.set(argument.name, argument.value);
    }
  }

  private async callFunction(
    fn: FunctionDeclaration,
    args: Value[],
    named: Array<{ name: string; value: Value; position: Position }>,
    at: Position,
  ): Promise<Value> {
    const frame: Frame = {
      variables: new Map(),
      file: fn.fileName ?? this.script.fileName,
      defers: [],
    };
    this.bindParameters(`fn ${fn.name}`, fn.parameters, args, named, frame, at);
    try {
      const signal = await this.block(fn.body, frame);
      return signal?.kind === 'return' ? signal.value : null;
    } finally {
      await this.runDefers(frame);
    }
  }

  /** Calls what a reference names with already evaluated arguments. */
  private async callReference(
    reference: ScriptReference,
    args: Value[],
    named: Array<{ name: string; value: Value; position: Position }>,
    at: Position,
    frame: Frame,
  ): Promise<Value> {
    if (reference.kind === 'agent') {
      if (named.length)
        this.fail(`agent ${reference.name} takes no named arguments`, at, frame.file);
      return this.runAgent(reference.name, args.map(textOf).join(' '), at, frame);
    }
    if (reference.kind === 'flow') {
      return (
        await this.callFlow(this.flows.get(reference.name) as FlowDeclaration, args, named, at)
      ).value;
    }
    return this.callFunction(
      this.functions.get(reference.name) as FunctionDeclaration,
      args,
      named,
      at,
    );
  }

  private async runAgent(
    name: string,
    instruction: string,
    at: Position,
    frame: Frame,
  ): Promise<Value> {
    const agent = this.agents.get(name);
    if (!agent) this.fail(`there is no agent named ${name}`, at, frame.file);
    this.checkAborted();
    return agent.run(instruction, this.options);
  }

  /** A declaration the name refers to (unless a variable of that name hides it). */
  private reference(name: string, frame: Frame): ScriptReference | undefined {
    const value = frame.variables.get(name) ?? this.globals.get(name);
    if (value instanceof ScriptReference) return value;
    if (frame.variables.has(name) || this.globals.has(name)) return undefined;
    if (this.agents.has(name)) return new ScriptReference('agent', name);
    if (this.flows.has(name)) return new ScriptReference('flow', name);
    if (this.functions.has(name)) return new ScriptReference('function', name);
    return undefined;
  }

  /** The agent or flow a stage of `>>`, `|>>`, `&>>`, `??` names. */
  private async target(
    expression: Expression,
    frame: Frame,
    operator: string,
  ): Promise<ScriptReference> {
    let node = expression;
    while (node.kind === 'propagate') node = node.operand;
    if (node.kind === 'variable') {
      const reference = this.reference(node.name, frame);
      if (reference) return reference;
    }
    if (node.kind === 'member' && node.name === 'run' && node.object.kind === 'variable') {
      const reference = this.reference(node.object.name, frame);
      if (reference?.kind === 'agent') return reference;
    }
    const value = await this.evaluate(node, frame);
    if (value instanceof ScriptReference) return value;
    return this.fail(
      `"${operator}" needs an agent or a flow here, found ${kindOf(value)}`,
      node.position,
      frame.file,
    );
  }

  private async invoke(
    callee: Expression,
    args: Value[],
    named: Array<{ name: string; value: Value; position: Position }>,
    at: Position,
    frame: Frame,
  ): Promise<Value> {
    const file = frame.file;
    if (callee.kind === 'variable') {
      const name = callee.name;
      const reference = this.reference(name, frame);
      if (reference) return this.callReference(reference, args, named, at, frame);
      if (frame.variables.has(name) || this.globals.has(name)) {
        this.fail(
          `${name} is ${kindOf((frame.variables.get(name) ?? this.globals.get(name)) as Value)}, not a flow, a function or an agent`,
          callee.position,
          file,
        );
      }
      if (name === 'join') {
        const call = { kind: 'call' as const, callee, arguments: [], named: [], position: at };
        return (await this.join(call, '', frame, args)).join('\n\n');
      }
      if ((BUILTIN_FUNCTIONS as readonly string[]).includes(name))
        return this.builtin(name, args, named, at, file);
      const kind = this.typeNames.get(name);
      if (kind) this.unsupported(`${kind} values (${name}(…))`, callee.position, file);
      return this.unsupported(
        `${name}(…) is not a flow, fn or agent of the script nor a built-in (${BUILTIN_FUNCTIONS.join(', ')}); other functions`,
        callee.position,
        file,
      );
    }
    if (
      callee.kind === 'member' &&
      callee.object.kind === 'call' &&
      callee.object.callee.kind === 'variable' &&
      callee.object.callee.name === 'join' &&
      !this.reference('join', frame)
    ) {
      // join(A, B).C("task"): A and B do the task in parallel; C gets their answers.
      const answers = await this.join(callee.object, args.map(textOf).join(' '), frame);
      const merger = await this.target(
        { kind: 'variable', name: callee.name, position: callee.namePosition },
        frame,
        'join(…).',
      );
      return this.callReference(merger, [answers.join('\n\n')], named, at, frame);
    }
    if (callee.kind === 'member' && callee.object.kind === 'variable') {
      const owner = callee.object.name;
      const reference = this.reference(owner, frame);
      if (reference?.kind === 'agent') {
        if (callee.name === 'run') return this.callReference(reference, args, named, at, frame);
        this.unsupported(
          `agent methods other than run (${owner}.${callee.name}(…))`,
          callee.namePosition,
          file,
        );
      }
      const kind = this.typeNames.get(owner);
      if (kind && !frame.variables.has(owner) && !this.globals.has(owner)) {
        this.unsupported(`${kind} methods (${owner}.${callee.name}(…))`, callee.namePosition, file);
      }
    }
    if (callee.kind === 'member') {
      const value = await this.evaluate(callee.object, frame);
      return this.unsupported(
        `methods of ${kindOf(value)} (.${callee.name}(…))`,
        callee.namePosition,
        file,
      );
    }
    const value = await this.evaluate(callee, frame);
    if (value instanceof ScriptReference) return this.callReference(value, args, named, at, frame);
    return this.fail(`${kindOf(value)} cannot be called`, callee.position, file);
  }

  /** Runs the agents of `join(A, B)` in parallel on one instruction: `A: answer` for each. */
  private async join(
    call: Expression & { kind: 'call' },
    instruction: string,
    frame: Frame,
    evaluated?: Value[],
  ): Promise<string[]> {
    const references: ScriptReference[] = [];
    if (evaluated) {
      for (const [index, value] of evaluated.entries()) {
        if (!(value instanceof ScriptReference)) {
          this.fail(
            `join(…) takes agents, got ${kindOf(value)} as argument ${index + 1}`,
            call.position,
            frame.file,
          );
        }
        references.push(value);
      }
    } else {
      for (const argument of call.arguments)
        references.push(await this.target(argument, frame, 'join(…)'));
    }
    return Promise.all(
      references.map(async (reference) => {
        const answer = await this.callReference(reference, [instruction], [], call.position, frame);
        return `${reference.name}: ${textOf(answer)}`;
      }),
    );
  }

  private builtin(
    name: string,
    args: Value[],
    named: Array<{ name: string; value: Value; position: Position }>,
    at: Position,
    file: string,
  ): Value {
    if (named.length)
      this.fail(`${name}(…) takes no named arguments`, named[0]?.position ?? at, file);
    if (name === 'print') {
      this.print(args.map(textOf).join(' '));
      return null;
    }
    if (args.length !== 1) this.fail(`${name}(…) takes one argument, got ${args.length}`, at, file);
    const [value] = args as [Value];
    switch (name) {
      case 'str':
        return textOf(value);
      case 'len':
        if (typeof value === 'string') return [...value].length;
        if (Array.isArray(value)) return value.length;
        if (isRecord(value)) return value.size;
        return this.fail(`len(…) needs text, a list or a record, got ${kindOf(value)}`, at, file);
      default: {
        const number =
          typeof value === 'number'
            ? value
            : typeof value === 'string'
              ? Number(value.trim())
              : Number.NaN;
        if (value === '' || !Number.isFinite(number))
          this.fail(
            `${name}(…) cannot read ${JSON.stringify(toPlain(value))} as a number`,
            at,
            file,
          );
        return name === 'int' ? Math.trunc(number) : number;
      }
    }
  }

  // ── expressions ───────────────────────────────────────────────────────────────────────────

  private async evaluateArguments(args: Expression[], named: NamedArgument[], frame: Frame) {
    const values: Value[] = [];
    for (const argument of args) values.push(await this.evaluate(argument, frame));
    const namedValues: Array<{ name: string; value: Value; position: Position }> = [];
    for (const argument of named) {
      namedValues.push({
        name: argument.name,
        value: await this.evaluate(argument.value, frame),
        position: argument.position,
      });
    }
    return { values, namedValues };
  }

  private variable(name: string, at: Position, frame: Frame): Value {
    if (frame.variables.has(name)) return frame.variables.get(name) as Value;
    if (this.globals.has(name)) return this.globals.get(name) as Value;
    const reference = this.reference(name, frame);
    if (reference) return reference;
    return this.fail(`variable "${name}" is not set`, at, frame.file);
  }

  private async evaluate(node: Expression, frame: Frame): Promise<Value> {
    const file = frame.file;
    switch (node.kind) {
      case 'string':
        return node.value;
      case 'number':
        return node.value;
      case 'boolean':
        return node.value;
      case 'null':
        return null;
      case 'fstring':
        return node.parts
          .map((part) =>
            typeof part === 'string'
              ? part
              : textOf(this.variable(part.name, part.position, frame)),
          )
          .join('');
      case 'interpolation': {
        let text = '';
        for (const part of node.parts)
          text += typeof part === 'string' ? part : textOf(await this.evaluate(part, frame));
        return text;
      }
      case 'variable':
        return this.variable(node.name, node.position, frame);
      case 'list': {
        const items: Value[] = [];
        for (const item of node.items) items.push(await this.evaluate(item, frame));
        return items;
      }
      case 'record': {
        const record = new Map<string, Value>();
        for (const entry of node.entries)
          record.set(entry.key, await this.evaluate(entry.value, frame));
        return record;
      }
      case 'run':
        return this.runAgent(
          node.agent,
          textOf(await this.evaluate(node.argument, frame)),
          node.position,
          frame,
        );
      case 'words': {
        const parts: string[] = [];
        for (const part of node.parts) parts.push(textOf(await this.evaluate(part, frame)));
        return parts.join(' ');
      }
      case 'concat': {
        const left = await this.evaluate(node.left, frame);
        const right = await this.evaluate(node.right, frame);
        if (typeof left === 'number' && typeof right === 'number') return left + right;
        if (Array.isArray(left) && Array.isArray(right)) return [...left, ...right];
        // With text on either side, the other side joins as print shows it.
        if (typeof left === 'string' || typeof right === 'string')
          return textOf(left) + textOf(right);
        return this.fail(
          `"+" cannot join ${kindOf(left)} and ${kindOf(right)}`,
          node.position,
          file,
        );
      }
      case 'binary':
        return this.binary(node, frame);
      case 'not':
        return !truthy(await this.evaluate(node.operand, frame));
      case 'negate': {
        const value = await this.evaluate(node.operand, frame);
        if (typeof value !== 'number')
          this.fail(`"-" needs a number, got ${kindOf(value)}`, node.position, file);
        return -value;
      }
      case 'member': {
        if (node.object.kind === 'variable') {
          const reference = this.reference(node.object.name, frame);
          if (reference?.kind === 'agent') {
            if (node.name === 'run') return reference;
            this.unsupported(
              `agent properties (${node.object.name}.${node.name})`,
              node.namePosition,
              file,
            );
          }
        }
        const value = await this.evaluate(node.object, frame);
        if (!isRecord(value))
          this.fail(`${kindOf(value)} has no field "${node.name}"`, node.namePosition, file);
        if (!value.has(node.name)) {
          this.fail(
            `the record has no field "${node.name}" (fields: ${[...value.keys()].join(', ') || 'none'})`,
            node.namePosition,
            file,
          );
        }
        return value.get(node.name) as Value;
      }
      case 'index': {
        const value = await this.evaluate(node.object, frame);
        const key = await this.evaluate(node.index, frame);
        if (isRecord(value) && typeof key === 'string') {
          if (!value.has(key))
            this.fail(`the record has no key ${JSON.stringify(key)}`, node.index.position, file);
          return value.get(key) as Value;
        }
        if (
          (Array.isArray(value) || typeof value === 'string') &&
          typeof key === 'number' &&
          Number.isInteger(key)
        ) {
          const items = typeof value === 'string' ? [...value] : value;
          const at = key < 0 ? items.length + key : key;
          if (at < 0 || at >= items.length)
            this.fail(
              `index ${key} is out of range (${items.length} items)`,
              node.index.position,
              file,
            );
          return items[at] as Value;
        }
        return this.fail(`cannot index ${kindOf(value)} with ${kindOf(key)}`, node.position, file);
      }
      case 'call': {
        const { values, namedValues } = await this.evaluateArguments(
          node.arguments,
          node.named,
          frame,
        );
        return this.invoke(node.callee, values, namedValues, node.position, frame);
      }
      case 'pipeline': {
        const input = await this.evaluate(node.input, frame);
        const stage = await this.target(node.stage, frame, '>>');
        return this.callReference(stage, [input], [], node.stage.position, frame);
      }
      case 'pipe': {
        const input = await this.evaluate(node.input, frame);
        if (node.target.kind === 'call') {
          const { values, namedValues } = await this.evaluateArguments(
            node.target.arguments,
            node.target.named,
            frame,
          );
          return this.invoke(
            node.target.callee,
            [input, ...values],
            namedValues,
            node.target.position,
            frame,
          );
        }
        if (node.target.kind === 'member' && node.target.name === 'run') {
          return this.callReference(
            await this.target(node.target, frame, '|>'),
            [input],
            [],
            node.target.position,
            frame,
          );
        }
        return this.invoke(node.target, [input], [], node.target.position, frame);
      }
      case 'fork': {
        const input = await this.evaluate(node.input, frame);
        const targets: ScriptReference[] = [];
        for (const target of node.targets)
          targets.push(await this.target(target, frame, node.wait ? '|>>' : '||'));
        const runs = targets.map((target, index) =>
          this.callReference(
            target,
            [input],
            [],
            (node.targets[index] as Expression).position,
            frame,
          ),
        );
        if (node.wait) return Promise.all(runs);
        for (const [index, run] of runs.entries()) {
          this.pending.push(
            run.then(
              () => undefined,
              (error: unknown) =>
                this.warn(
                  `${file}:${node.position.line}:${node.position.column}: ${targets[index]?.name} (started by ||) failed: ${error instanceof Error ? error.message : String(error)}`,
                ),
            ),
          );
        }
        return null;
      }
      case 'merge': {
        // `[A, B] &>> C`: agents (or flows) in the list run on their own prompt, in parallel.
        const answers =
          node.input.kind === 'list'
            ? await Promise.all(
                node.input.items.map(async (item) => {
                  const reference =
                    item.kind === 'variable' ? this.reference(item.name, frame) : undefined;
                  const value = reference
                    ? await this.callReference(reference, [''], [], item.position, frame)
                    : await this.evaluate(item, frame);
                  return textOf(value);
                }),
              )
            : [await this.evaluate(node.input, frame)]
                .flatMap((value) => (Array.isArray(value) ? value : [value]))
                .map(textOf);
        const merger = await this.target(node.merger, frame, node.consensus ? '&&' : '&>>');
        const joined = answers.join('\n---\n');
        const instruction = node.consensus
          ? `${CONSENSUS_INSTRUCTION(answers.length)}\n\n${joined}`
          : joined;
        return this.callReference(merger, [instruction], [], node.merger.position, frame);
      }
      case 'coalesce': {
        const left = await this.evaluate(node.left, frame);
        return left === null ? this.evaluate(node.right, frame) : left;
      }
      case 'branch': {
        const input = await this.evaluate(node.input, frame);
        const present = input !== null && input !== '';
        const chosen = present ? node.whenPresent : node.otherwise;
        const reference = await this.target(chosen, frame, '??');
        return this.callReference(reference, [input], [], chosen.position, frame);
      }
      case 'fallback':
        try {
          return await this.evaluate(node.primary, frame);
        } catch (error) {
          if (!this.catchable(error)) throw error;
          return this.evaluate(node.backup, frame);
        }
      case 'propagate':
        return this.evaluate(node.operand, frame);
      case 'match':
        return this.match(node, frame);
      case 'unsupported':
        return this.unsupported(node.construct, node.position, file);
    }
  }

  private async binary(node: Expression & { kind: 'binary' }, frame: Frame): Promise<Value> {
    const file = frame.file;
    const left = await this.evaluate(node.left, frame);
    if (node.operator === 'and') return truthy(left) ? this.evaluate(node.right, frame) : left;
    if (node.operator === 'or') return truthy(left) ? left : this.evaluate(node.right, frame);
    const right = await this.evaluate(node.right, frame);
    switch (node.operator) {
      case '==':
        return equals(left, right);
      case '!=':
        return !equals(left, right);
      case '<':
      case '<=':
      case '>':
      case '>=': {
        const comparable =
          (typeof left === 'number' && typeof right === 'number') ||
          (typeof left === 'string' && typeof right === 'string');
        if (!comparable)
          this.fail(
            `"${node.operator}" cannot compare ${kindOf(left)} with ${kindOf(right)}`,
            node.position,
            file,
          );
        const a = left as number | string;
        const b = right as number | string;
        return node.operator === '<'
          ? a < b
          : node.operator === '<='
            ? a <= b
            : node.operator === '>'
              ? a > b
              : a >= b;
      }
      default: {
        if (typeof left !== 'number' || typeof right !== 'number') {
          return this.fail(
            `"${node.operator}" needs numbers, got ${kindOf(left)} and ${kindOf(right)}`,
            node.position,
            file,
          );
        }
        if ((node.operator === '/' || node.operator === '%') && right === 0) {
          this.fail(`division by zero`, node.position, file);
        }
        if (node.operator === '-') return left - right;
        if (node.operator === '*') return left * right;
        if (node.operator === '/') return left / right;
        // Python's %: the result has the sign of the divisor.
        return ((left % right) + right) % right;
      }
    }
  }

  private async match(node: Expression & { kind: 'match' }, frame: Frame): Promise<Value> {
    const file = frame.file;
    const subject = await this.evaluate(node.subject, frame);
    const intents = node.arms.flatMap((arm) =>
      arm.pattern.kind === 'intent' ? [arm.pattern.description] : [],
    );
    let chosen = -1;
    if (intents.length) {
      try {
        chosen = await chooseIntent(intents, textOf(subject), this.options);
      } catch (error) {
        if (error instanceof UnreadableAnswer)
          this.fail(`match intent: ${error.message}`, node.position, file);
        throw error;
      }
    }
    let intentIndex = 0;
    for (const arm of node.arms) {
      const bound = new Map<string, Value>();
      let matched: boolean;
      if (arm.pattern.kind === 'intent') matched = intentIndex++ === chosen;
      else if (arm.pattern.kind === 'variant')
        return this.unsupported('enum variant patterns', arm.pattern.position, file);
      else matched = matchPattern(arm.pattern, subject, bound);
      if (!matched) continue;
      for (const [name, value] of bound) frame.variables.set(name, value);
      if (arm.guard && !truthy(await this.evaluate(arm.guard, frame))) continue;
      if (!Array.isArray(arm.body)) return this.evaluate(arm.body, frame);
      // A block arm's value is its last bare expression (parsed as a return).
      const signal = await this.block(arm.body, frame);
      if (signal?.kind === 'return') return signal.value;
      if (signal) this.unsupported(`"${signal.kind}" inside a match arm`, arm.position, file);
      return null;
    }
    return null;
  }
}
