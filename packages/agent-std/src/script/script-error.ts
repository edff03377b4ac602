/** A place in a script, 1-based. */
export interface Position {
  line: number;
  column: number;
}

const marker = Symbol.for('@class-assistant/agent-std/AgentScriptError');

/**
 * Codes of {@link AgentScriptError}:
 * - `AGENT_SCRIPT_SYNTAX`: a syntax or meaning problem found before anything runs (`check`);
 * - `AGENT_SCRIPT_UNSUPPORTED`: the run reached a construct that parses but cannot run yet
 *   (a `python!` block, an MCP tool, `autoloop`, …); `try`/`catch` does not catch it;
 * - `AGENT_SCRIPT_RUNTIME`: the run failed at a place in the script (a variable never set, a
 *   failed `assert`, a contract not met, `+` on a list and a number, …); `try`/`catch` catches it.
 */
export type AgentScriptErrorCode =
  | 'AGENT_SCRIPT_SYNTAX'
  | 'AGENT_SCRIPT_UNSUPPORTED'
  | 'AGENT_SCRIPT_RUNTIME';

/** A problem in an agent script, with the file, line and column where it is. */
export class AgentScriptError extends Error {
  readonly code: AgentScriptErrorCode;
  readonly line: number;
  readonly column: number;
  readonly fileName: string;
  /** The message without the `file:line:column:` prefix. */
  readonly reason: string;
  readonly [marker] = true;

  constructor(
    reason: string,
    position: Position,
    fileName: string,
    code: AgentScriptErrorCode = 'AGENT_SCRIPT_SYNTAX',
    options: { cause?: unknown } = {},
  ) {
    super(
      `${fileName}:${position.line}:${position.column}: ${reason}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'AgentScriptError';
    this.code = code;
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
