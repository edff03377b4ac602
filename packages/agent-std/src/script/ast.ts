import type { Namespace } from '../tool.ts';
import type { Position } from './script-error.ts';

/**
 * Which rules a script is checked by. Both parse the same language; they differ in what is an
 * error before the run and what is left to the run:
 * - `agent` (every file but `.nx`/`.nxlib`): names are checked before anything runs (variables set
 *   before use, agents and flows that exist), agents need a `prompt`, only known agent fields,
 *   `flow main` is required; strings are literal (no `#{…}`).
 * - `nexa` (`.nx`, `.nxlib`): the Nexa language's rules: names are resolved when the run reaches
 *   them, `prompt` is optional, any agent field parses, a script without `flow main` runs all its
 *   flows in order, and `"…#{expression}…"` strings interpolate.
 */
export type ScriptDialect = 'agent' | 'nexa';

/** A piece of an f-string: literal text or a `{name}` placeholder. */
export type FStringPart = string | { name: string; position: Position };

/** A constant in a declaration (agent fields, decorator arguments, tool parameters, …). */
export type Constant = string | number | boolean | null | Constant[] | ConstantRecord;
/** A `{ key: value }` constant; a Map, so any key is just a key. */
type ConstantRecord = Map<string, Constant>;

/** A type written in a declaration: `str`, `list[str]`, `str | int`, `str?`, `"string"`. */
export type TypeExpression =
  | { kind: 'named'; name: string; arguments: TypeExpression[]; position: Position }
  | { kind: 'union'; members: TypeExpression[]; position: Position }
  | { kind: 'optional'; inner: TypeExpression; position: Position };

/** Operators of {@link Expression} `binary` (`+` is `concat`). */
type BinaryOperator = '-' | '*' | '/' | '%' | '==' | '!=' | '<' | '<=' | '>' | '>=' | 'and' | 'or';

/** A named argument of a call: `f(name = value)` or `f(name: value)`. */
export interface NamedArgument {
  name: string;
  value: Expression;
  position: Position;
}

/** An expression. */
export type Expression =
  | { kind: 'string'; value: string; position: Position }
  | { kind: 'fstring'; parts: FStringPart[]; position: Position }
  /** A Nexa string with `#{expression}` parts. */
  | { kind: 'interpolation'; parts: Array<string | Expression>; position: Position }
  | { kind: 'number'; value: number; position: Position }
  | { kind: 'boolean'; value: boolean; position: Position }
  | { kind: 'null'; position: Position }
  | { kind: 'list'; items: Expression[]; position: Position }
  | {
      kind: 'record';
      entries: Array<{ key: string; value: Expression; position: Position }>;
      position: Position;
    }
  | { kind: 'variable'; name: string; position: Position }
  /** `Agent.run(argument)`; several arguments become one `words` argument. */
  | { kind: 'run'; agent: string; argument: Expression; position: Position }
  /** Several values joined with spaces (the arguments of `Agent.run(a, b)`). */
  | { kind: 'words'; parts: Expression[]; position: Position }
  /** `left + right`: joins text, adds numbers, concatenates lists. */
  | { kind: 'concat'; left: Expression; right: Expression; position: Position }
  | {
      kind: 'binary';
      operator: BinaryOperator;
      left: Expression;
      right: Expression;
      position: Position;
    }
  | { kind: 'not'; operand: Expression; position: Position }
  | { kind: 'negate'; operand: Expression; position: Position }
  | {
      kind: 'member';
      object: Expression;
      name: string;
      namePosition: Position;
      position: Position;
    }
  | { kind: 'index'; object: Expression; index: Expression; position: Position }
  | {
      kind: 'call';
      callee: Expression;
      arguments: Expression[];
      named: NamedArgument[];
      position: Position;
    }
  /** `input >> Stage`: the stage (an agent or a flow) runs with the input. */
  | { kind: 'pipeline'; input: Expression; stage: Expression; position: Position }
  /** `input |> target`: `target(input)`, or `target(input, a, b)` for `|> target(a, b)`. */
  | { kind: 'pipe'; input: Expression; target: Expression; position: Position }
  /** `input |>> [A, B]` (wait: all run in parallel) or `input || [A, B]` (do not wait). */
  | { kind: 'fork'; input: Expression; targets: Expression[]; wait: boolean; position: Position }
  /** `answers &>> Merger` or `answers && Judge` (consensus). */
  | {
      kind: 'merge';
      input: Expression;
      merger: Expression;
      consensus: boolean;
      position: Position;
    }
  /** `left ?? right`: right when left is null. */
  | { kind: 'coalesce'; left: Expression; right: Expression; position: Position }
  /** `input ?? Then : Otherwise`: Then runs with input when it is present, else Otherwise. */
  | {
      kind: 'branch';
      input: Expression;
      whenPresent: Expression;
      otherwise: Expression;
      position: Position;
    }
  /** `primary otherwise backup` / `primary fallback backup`: backup when primary fails. */
  | { kind: 'fallback'; primary: Expression; backup: Expression; position: Position }
  /** `expression?`: a failure goes on to the caller (as every failure does here). */
  | { kind: 'propagate'; operand: Expression; position: Position }
  | { kind: 'match'; subject: Expression; arms: MatchArm[]; position: Position }
  /** A construct that parses but cannot run yet (a run-time error naming it). */
  | { kind: 'unsupported'; construct: string; position: Position };

/** A pattern of a `match` arm, a `let` or a `for`. */
export type Pattern =
  | { kind: 'wildcard'; position: Position }
  | { kind: 'literal'; value: string | number | boolean | null; position: Position }
  | { kind: 'bind'; name: string; position: Position }
  | { kind: 'tuple'; items: Pattern[]; position: Position }
  | { kind: 'array'; items: Pattern[]; rest: string | undefined; position: Position }
  | {
      kind: 'record';
      entries: Array<{ key: string; pattern: Pattern; position: Position }>;
      rest: string | undefined;
      position: Position;
    }
  /** `Enum::Variant(…)`: parses; matching it is not supported yet. */
  | { kind: 'variant'; path: string; items: Pattern[]; position: Position }
  /** `intent("…")`: the model decides which intent the subject expresses. */
  | { kind: 'intent'; description: string; position: Position };

/** One arm of a `match`: `pattern [if guard] => expression | { statements }`. */
export interface MatchArm {
  pattern: Pattern;
  guard: Expression | undefined;
  body: Expression | Statement[];
  position: Position;
}

/** A statement. */
export type Statement =
  | { kind: 'assign'; name: string; value: Expression; position: Position }
  | { kind: 'let'; pattern: Pattern; value: Expression; position: Position }
  /** `record.field = value` or `list[index] = value`. */
  | { kind: 'set'; target: Expression; value: Expression; position: Position }
  | { kind: 'print'; arguments: Expression[]; position: Position }
  | { kind: 'expression'; expression: Expression; position: Position }
  | {
      kind: 'if';
      condition: Expression;
      body: Statement[];
      otherwise: Statement[] | undefined;
      position: Position;
    }
  /** `semantic_if "condition" [fast_match r"regex"] against subject { … } [else { … }]`. */
  | {
      kind: 'semantic-if';
      condition: string;
      fastMatch: string | undefined;
      subject: Expression;
      body: Statement[];
      otherwise: Statement[] | undefined;
      position: Position;
    }
  | { kind: 'while'; condition: Expression; body: Statement[]; position: Position }
  /** `for each x in list`, `for each i, x in list`, `for (a, b) in pairs`. */
  | {
      kind: 'for';
      index: string | undefined;
      pattern: Pattern;
      iterable: Expression;
      body: Statement[];
      position: Position;
    }
  /** `loop { … } until ("condition")`: the model judges the condition after each round. */
  | { kind: 'loop-until'; body: Statement[]; condition: Expression; position: Position }
  | {
      kind: 'try';
      body: Statement[];
      error: string | undefined;
      handler: Statement[];
      position: Position;
    }
  | { kind: 'break'; position: Position }
  | { kind: 'continue'; position: Position }
  | { kind: 'return'; value: Expression | undefined; position: Position }
  /** `assert condition` or `assert "condition" against subject` (judged by the model). */
  | { kind: 'assert'; condition: Expression; against: Expression | undefined; position: Position }
  /** `verify subject satisfies Type` or `verify "condition" against subject`. */
  | {
      kind: 'verify';
      subject: Expression;
      type: TypeExpression | undefined;
      condition: string | undefined;
      position: Position;
    }
  | { kind: 'defer'; expression: Expression; position: Position }
  /**
   * `include "file"` (top level only); `included` is set once the file is read: its name and its
   * own top-level statements, which run in its place.
   */
  | {
      kind: 'include';
      path: string;
      included: { fileName: string; statements: Statement[] } | undefined;
      position: Position;
    }
  /** A construct that parses but cannot run yet; `blocks` are its nested statements. */
  | { kind: 'unsupported'; construct: string; blocks: Statement[][]; position: Position };

/** An agent field other than role, prompt and model: `memory: "local"`, `cache: true`, …. */
export interface AgentField {
  name: string;
  value: Constant;
  position: Position;
}

/** `@name(key = value, …)` before an agent, or `@tool("description", …)` before a `fn`. */
export interface Decorator {
  name: string;
  arguments: Map<string, Constant>;
  /** Arguments without a name, in order (`@tool("description")`). */
  positional: Constant[];
  position: Position;
}

/** A `uses` entry that is not a std namespace: a script tool, a file or an MCP server. */
export interface UseReference {
  kind: 'tool' | 'file' | 'mcp';
  name: string;
  position: Position;
}

/** `requires …` / `ensures …` on an agent or a flow: an expression or a "condition" string. */
export interface Contract {
  kind: 'requires' | 'ensures';
  condition: Expression;
  position: Position;
}

/** Something inside an agent body other than a field (`fn`, `flow`, `let`, `x = …`). */
export interface AgentMember {
  kind: 'method' | 'let' | 'assign';
  name: string;
  position: Position;
}

/**
 * `[@decorator(…)] agent <Name> [-> Type] [uses …] [implements P] [requires|ensures …] { … }`.
 * Optional parts are absent (not undefined-valued) when the script does not use them.
 */
export interface AgentDeclaration {
  name: string;
  /** The std namespaces it uses (other `uses` entries are in `tools`). */
  uses: Namespace[];
  /** `''` when not given. */
  role: string;
  /** `''` when not given (allowed in the nexa dialect). */
  prompt: string;
  model: string | undefined;
  position: Position;
  fields?: AgentField[];
  decorators?: Decorator[];
  tools?: UseReference[];
  implements?: { name: string; position: Position };
  returnType?: TypeExpression;
  contracts?: Contract[];
  members?: AgentMember[];
  /** The file it comes from, when that is an included file. */
  fileName?: string;
}

/** A parameter of a flow or a function: `name[: Type][ = default]`. */
export interface Parameter {
  name: string;
  type: TypeExpression | undefined;
  default: Constant | undefined;
  position: Position;
}

/** `flow <name>[(parameters)] [-> Type] [requires|ensures …] { … }`. */
export interface FlowDeclaration {
  name: string;
  body: Statement[];
  position: Position;
  parameters?: Parameter[];
  returnType?: TypeExpression;
  contracts?: Contract[];
  fileName?: string;
}

/** `[@tool("description", …)] fn <name>(parameters) [: Type] { … }`. */
export interface FunctionDeclaration {
  name: string;
  parameters: Parameter[];
  body: Statement[];
  decorators: Decorator[];
  position: Position;
  fileName?: string;
}

/** `tool <Name> { description: …, parameters: { … } }` (or `mcp: …`, `python: …`). */
export interface ToolDeclaration {
  name: string;
  fields: AgentField[];
  position: Position;
  fileName?: string;
}

/** `protocol <Name> { field: Type, … }`: the fields an agent that `implements` it answers with. */
export interface ProtocolDeclaration {
  name: string;
  fields: Array<{ name: string; type: TypeExpression; position: Position }>;
  position: Position;
  fileName?: string;
}

/** `test "<name>" { … }`: parsed and checked; `run` does not run tests. */
export interface TestDeclaration {
  name: string;
  body: Statement[];
  position: Position;
  fileName?: string;
}

/** Other declarations that parse: types (`type`, `struct`, `enum`, `trait`, `impl`) and `job`s. */
export interface OtherDeclaration {
  kind: 'type' | 'struct' | 'enum' | 'trait' | 'impl' | 'job';
  name: string;
  position: Position;
  fileName?: string;
}

/** A parsed (and checked) agent script. */
export interface AgentScript {
  fileName: string;
  dialect: ScriptDialect;
  agents: AgentDeclaration[];
  flows: FlowDeclaration[];
  tests: TestDeclaration[];
  tools: ToolDeclaration[];
  protocols: ProtocolDeclaration[];
  functions: FunctionDeclaration[];
  declarations: OtherDeclaration[];
  /**
   * Top-level statements in order: `let`s and calls, `include`s, and declarations that act when
   * the run starts (`server`, `db`, `kv`, `auth`, which cannot run yet).
   */
  statements: Statement[];
  /** `include`s not yet read (`parseAgentScript` leaves them; `loadAgentScript` reads them). */
  includes: Array<{ path: string; position: Position; fileName: string }>;
}
