/**
 * Stable codes of {@link ToolError}.
 * - `TOOL_UNKNOWN`: no tool (or namespace) of that name exists in the library.
 * - `TOOL_NOT_DECLARED`: the tool exists, but its namespace is not in the toolbox's `uses`.
 * - `TOOL_BAD_INPUT`: arguments missing, of the wrong type, extra, or invalid (`field` names which).
 * - `TOOL_BAD_POLICY`: the policy handed to `createToolbox` is invalid (`field` names which).
 * - `TOOL_BAD_DEFINITION`: a host tool's definition is unusable (its name is invalid or taken, its
 *   input schema is not a zod object, or strict mode cannot express it); `field` names which.
 * - `TOOL_POLICY_DENIED`: the policy refuses the call (path outside the root, private address,
 *   shell disabled, dangerous command, value above a policy cap, …).
 * - `TOOL_NOT_FOUND`: the file, directory, JSON path or command does not exist.
 * - `TOOL_LIMIT_EXCEEDED`: a size limit was hit (file, response, redirects, matches).
 * - `TOOL_TIMEOUT`: the call ran out of time (HTTP, shell, human answer).
 * - `TOOL_ABORTED`: the caller's `AbortSignal` fired.
 * - `TOOL_SANDBOX_UNAVAILABLE`: the shell is enabled but no OS sandbox works on this machine
 *   (the message says why); `policy.shell.unsandboxed: true` runs commands without one.
 * - `TOOL_FAILED`: the operation itself failed (I/O error, network error, HTTP error status, …).
 */
export type ToolErrorCode =
  | 'TOOL_UNKNOWN'
  | 'TOOL_NOT_DECLARED'
  | 'TOOL_BAD_INPUT'
  | 'TOOL_BAD_POLICY'
  | 'TOOL_BAD_DEFINITION'
  | 'TOOL_POLICY_DENIED'
  | 'TOOL_NOT_FOUND'
  | 'TOOL_LIMIT_EXCEEDED'
  | 'TOOL_TIMEOUT'
  | 'TOOL_ABORTED'
  | 'TOOL_SANDBOX_UNAVAILABLE'
  | 'TOOL_FAILED';

/** Every {@link ToolErrorCode}, for exhaustive checks and documentation. */
export const TOOL_ERROR_CODES: readonly ToolErrorCode[] = [
  'TOOL_UNKNOWN',
  'TOOL_NOT_DECLARED',
  'TOOL_BAD_INPUT',
  'TOOL_BAD_POLICY',
  'TOOL_BAD_DEFINITION',
  'TOOL_POLICY_DENIED',
  'TOOL_NOT_FOUND',
  'TOOL_LIMIT_EXCEEDED',
  'TOOL_TIMEOUT',
  'TOOL_ABORTED',
  'TOOL_SANDBOX_UNAVAILABLE',
  'TOOL_FAILED',
];

const marker = Symbol.for('@class-assistant/agent-std/ToolError');

/** Options of {@link ToolError}. */
export interface ToolErrorOptions {
  /** The tool the error belongs to, when known. */
  tool?: string | undefined;
  /** The argument (or policy field) at fault, dotted for nested ones: `headers.X-Trace`. */
  field?: string | undefined;
  /** Extra facts for library callers, e.g. `{ status: 404 }` or partial shell output. */
  details?: Record<string, unknown> | undefined;
  cause?: unknown;
}

/**
 * The error every tool call fails with. Library callers branch on `code`; models receive
 * {@link formatToolError}'s text instead.
 */
export class ToolError extends Error {
  readonly code: ToolErrorCode;
  readonly tool: string | undefined;
  readonly field: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly [marker] = true;

  constructor(code: ToolErrorCode, message: string, options: ToolErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ToolError';
    this.code = code;
    this.tool = options.tool;
    this.field = options.field;
    this.details = options.details;
  }
}

/**
 * True for a {@link ToolError}, also one thrown by another copy of this package
 * (no reliance on `instanceof`).
 *
 * @example
 * try {
 *   await toolbox.call('file_read', { path: '../secret' });
 * } catch (error) {
 *   if (isToolError(error) && error.code === 'TOOL_POLICY_DENIED') console.warn(error.message);
 * }
 */
export function isToolError(error: unknown): error is ToolError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { [marker]?: unknown })[marker] === true &&
    typeof (error as { code?: unknown }).code === 'string'
  );
}

/**
 * The message a model receives for a failed call: one line naming the code, the tool and what
 * went wrong, e.g. `Error [TOOL_NOT_DECLARED] shell_exec: …`.
 */
export function formatToolError(error: ToolError): string {
  return `Error [${error.code}]${error.tool ? ` ${error.tool}` : ''}: ${error.message}`;
}
