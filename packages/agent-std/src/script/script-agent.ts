import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { type Agent, type AgentRunOptions, defineAgent, isAgentError } from '../agent.ts';
import type {
  AgentDeclaration,
  Constant,
  ProtocolDeclaration,
  ScriptDialect,
  TypeExpression,
} from './ast.ts';
import type { Position } from './script-error.ts';
import { fromPlain, parseJsonAnswer, type Value } from './values.ts';

/** What a script agent needs from the run it belongs to. */
export interface ScriptAgentHost {
  dialect: ScriptDialect;
  protocols: ReadonlyMap<string, ProtocolDeclaration>;
  /** Fails the run with a `line:column` error that `catch` can catch. */
  fail(reason: string, at: Position, fileName: string): never;
  /** Fails the run at a construct that cannot run yet (not caught by `catch`). */
  unsupported(construct: string, at: Position, fileName: string): never;
  /** Asks the model whether a condition holds for a text (see `conditionHolds`). */
  holds(
    construct: string,
    condition: string,
    subject: string,
    at: Position,
    fileName: string,
  ): Promise<boolean>;
}

interface Settings {
  agent: Agent;
  keepsHistory: boolean;
  maxHistoryTurns: number | undefined;
  cache: boolean;
  json: boolean;
  fallbackModel: string | undefined;
  options: Partial<AgentRunOptions>;
}

/** Text of a type for an instruction to the model (`list[str]`, `str | int`). */
export function typeText(type: TypeExpression): string {
  switch (type.kind) {
    case 'named':
      return type.arguments.length
        ? `${type.name}[${type.arguments.map(typeText).join(', ')}]`
        : type.name;
    case 'union':
      return type.members.map(typeText).join(' | ');
    case 'optional':
      return `${typeText(type.inner)}?`;
  }
}

const flag = (value: Constant): boolean | undefined =>
  value === true || value === 'true'
    ? true
    : value === false || value === 'false'
      ? false
      : undefined;

/**
 * An agent of a script as the run uses it: the declaration's fields and decorators become run
 * options (model, fallback model, max tokens, temperature, time budget, retries), `cache` reuses
 * answers to the same instruction, `memory` (always, in the nexa dialect) continues the agent's
 * conversation from run to run, `output_format: "json"`/`output_schema`/`implements` ask for a
 * JSON object and hand back a record, `requires`/`ensures` "conditions" are judged by the model.
 * Everything that cannot run yet fails at its own `line:column` when the agent first runs.
 */
export class ScriptAgent {
  readonly declaration: AgentDeclaration;
  private readonly host: ScriptAgentHost;
  private readonly fileName: string;
  private settings: Settings | undefined;
  private history: ChatCompletionMessageParam[] = [];
  private readonly answers = new Map<string, Value>();

  constructor(declaration: AgentDeclaration, host: ScriptAgentHost, fileName: string) {
    this.declaration = declaration;
    this.host = host;
    this.fileName = declaration.fileName ?? fileName;
  }

  /** Runs the agent with an instruction; the answer as text, or a record for JSON agents. */
  async run(instruction: string, base: AgentRunOptions): Promise<Value> {
    const settings = this.prepare();
    const { declaration, host, fileName } = this;
    if (settings.cache && this.answers.has(instruction))
      return this.answers.get(instruction) as Value;
    for (const contract of declaration.contracts ?? []) {
      if (contract.kind !== 'requires' || contract.condition.kind !== 'string') continue;
      const condition = contract.condition.value;
      if (!(await host.holds('requires', condition, instruction, contract.position, fileName))) {
        host.fail(
          `agent ${declaration.name}: requires "${condition}" does not hold for its instruction`,
          contract.position,
          fileName,
        );
      }
    }
    const options: AgentRunOptions = {
      ...base,
      ...settings.options,
      ...(settings.keepsHistory ? { history: this.recentHistory(settings.maxHistoryTurns) } : {}),
    };
    let result: Awaited<ReturnType<Agent['run']>>;
    try {
      result = await settings.agent.run(instruction, options);
    } catch (error) {
      if (!(settings.fallbackModel && isAgentError(error) && error.code === 'AGENT_LLM_FAILED'))
        throw error;
      result = await settings.agent.run(instruction, { ...options, model: settings.fallbackModel });
    }
    if (settings.keepsHistory) this.history = result.messages.slice(1);
    let answer: Value = result.text;
    if (settings.json) {
      const parsed = parseJsonAnswer(result.text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        host.fail(
          `agent ${declaration.name} was asked for a JSON object and answered ${JSON.stringify(result.text.slice(0, 200))}`,
          declaration.position,
          fileName,
        );
      }
      answer = fromPlain(parsed);
    }
    for (const contract of declaration.contracts ?? []) {
      if (contract.kind !== 'ensures' || contract.condition.kind !== 'string') continue;
      const condition = contract.condition.value;
      if (!(await host.holds('ensures', condition, result.text, contract.position, fileName))) {
        host.fail(
          `agent ${declaration.name}: ensures "${condition}" does not hold for its answer`,
          contract.position,
          fileName,
        );
      }
    }
    if (settings.cache) this.answers.set(instruction, answer);
    return answer;
  }

  /** The last `turns` turns of the conversation (a turn starts with a user message). */
  private recentHistory(turns: number | undefined): ChatCompletionMessageParam[] {
    if (turns === undefined) return this.history;
    const starts = this.history.flatMap((message, index) =>
      message.role === 'user' ? [index] : [],
    );
    if (starts.length <= turns) return this.history;
    return turns === 0 ? [] : this.history.slice(starts[starts.length - turns]);
  }

  /** Reads fields and decorators once; fails at the first that cannot run yet. */
  private prepare(): Settings {
    if (this.settings) return this.settings;
    const { declaration, host, fileName } = this;
    const unsupported = (construct: string, at: Position) =>
      host.unsupported(construct, at, fileName);
    const fail = (reason: string, at: Position) => host.fail(reason, at, fileName);
    for (const tool of declaration.tools ?? []) {
      if (tool.kind === 'mcp')
        unsupported(`agents using MCP servers (mcp:"${tool.name}")`, tool.position);
      if (tool.kind === 'file') unsupported(`agents using files ("${tool.name}")`, tool.position);
      unsupported(
        `agents using tools declared in the script (${tool.name}); agents can use the std namespaces`,
        tool.position,
      );
    }
    for (const member of declaration.members ?? []) {
      unsupported(
        member.kind === 'method'
          ? `methods in agent bodies (${member.name})`
          : `statements in agent bodies (${member.name})`,
        member.position,
      );
    }
    for (const contract of declaration.contracts ?? []) {
      if (contract.condition.kind !== 'string') {
        unsupported(
          'agent contracts that are expressions (use a "condition" string)',
          contract.position,
        );
      }
    }
    if (declaration.returnType) {
      const type = typeText(declaration.returnType);
      if (type !== 'str' && type !== 'string') {
        unsupported(
          `agent return types other than str (-> ${type})`,
          declaration.returnType.position,
        );
      }
    }
    // The std tools mean what Nexa's built-ins mean in Nexa's language, and what the
    // TypeScript API says in the agent language.
    const options: Partial<AgentRunOptions> = {
      semantics: this.host.dialect === 'nexa' ? 'nexa' : 'js',
    };
    let keepsHistory = this.host.dialect === 'nexa';
    let maxHistoryTurns: number | undefined;
    let cache = false;
    let json = false;
    let schema: string[] | undefined;
    let fallbackModel: string | undefined;
    const number = (value: Constant, what: string, at: Position, minimum = 0): number => {
      if (typeof value !== 'number' || !(value >= minimum)) {
        fail(
          `${what} takes a number${minimum > 0 ? ` of at least ${minimum}` : ''}, got ${JSON.stringify(value)}`,
          at,
        );
      }
      return value as number;
    };
    for (const field of declaration.fields ?? []) {
      const { value, position } = field;
      switch (field.name) {
        case 'description':
          break;
        case 'stream':
          // Answers arrive whole; the text is the same as streamed.
          if (flag(value) === undefined)
            fail(`stream takes true or false, got ${JSON.stringify(value)}`, position);
          break;
        case 'cache':
          if (flag(value) === undefined)
            fail(`cache takes true or false, got ${JSON.stringify(value)}`, position);
          cache = flag(value) === true;
          break;
        case 'memory':
          if (value === 'persistent') {
            unsupported(
              'memory: "persistent" (a conversation kept between runs of the script)',
              position,
            );
          }
          keepsHistory = value !== false && value !== 'false' && value !== 'none';
          break;
        case 'max_history_turns':
          maxHistoryTurns = number(Number(value), 'max_history_turns', position);
          break;
        case 'output_format':
          if (value === 'json') json = true;
          else if (value !== 'text')
            unsupported(`output_format ${JSON.stringify(value)} (json and text run)`, position);
          break;
        case 'output_schema':
          if (!(value instanceof Map))
            fail('output_schema takes a record { "field": "type", … }', position);
          json = true;
          schema = [...(value as Map<string, Constant>)].map(
            ([key, type]) => `${key} (${String(type)})`,
          );
          break;
        case 'max_tokens':
          options.maxTokens = number(value, 'max_tokens', position, 1);
          break;
        case 'timeout':
          options.timeBudgetMs = number(value, 'timeout (seconds)', position, 0.001) * 1000;
          break;
        case 'retry':
          options.maxRetries = number(value, 'retry', position);
          break;
        case 'fallback':
          if (typeof value !== 'string') fail('fallback takes a model name', position);
          fallbackModel = value as string;
          break;
        case 'tool_call_strategy':
          if (value !== 'auto')
            unsupported(`tool_call_strategy ${JSON.stringify(value)} (auto runs)`, position);
          break;
        default:
          unsupported(`the agent field "${field.name}"`, position);
      }
    }
    for (const decorator of declaration.decorators ?? []) {
      const argument = (name: string) => {
        const value = decorator.arguments.get(name);
        if (value === undefined) fail(`@${decorator.name} needs ${name}=…`, decorator.position);
        return value as Constant;
      };
      const at = decorator.position;
      if (decorator.name === 'limit')
        options.maxTokens = number(argument('max_tokens'), '@limit(max_tokens)', at, 1);
      if (decorator.name === 'timeout') {
        options.timeBudgetMs = number(argument('seconds'), '@timeout(seconds)', at, 0.001) * 1000;
      }
      if (decorator.name === 'retry') {
        options.maxRetries = number(argument('max_attempts'), '@retry(max_attempts)', at, 1) - 1;
      }
      if (decorator.name === 'temperature') {
        options.temperature = number(argument('value'), '@temperature(value)', at);
      }
    }
    let protocolFields: string[] | undefined;
    if (declaration.implements) {
      const protocol = host.protocols.get(declaration.implements.name);
      if (!protocol)
        fail(
          `there is no protocol named ${declaration.implements.name}`,
          declaration.implements.position,
        );
      protocolFields = (protocol as ProtocolDeclaration).fields.map(
        (field) => `${field.name} (${typeText(field.type)})`,
      );
      json = true;
    }
    const fields = protocolFields ?? schema;
    const jsonInstruction = json
      ? `Answer with only a JSON object${fields?.length ? ` with the fields ${fields.join(', ')}` : ''}, and nothing else.`
      : '';
    const agent = defineAgent({
      name: declaration.name,
      uses: declaration.uses,
      role: declaration.role,
      prompt: [declaration.prompt, jsonInstruction].filter(Boolean).join('\n\n'),
    });
    if (declaration.model) options.model = declaration.model;
    this.settings = { agent, keepsHistory, maxHistoryTurns, cache, json, fallbackModel, options };
    return this.settings;
  }
}
