import { isAbsolute, resolve } from 'node:path';
import { ToolError } from './errors.ts';
import { buildAllowList } from './tools/net-guard.ts';

/** What {@link AskHumanHandler} receives. */
export interface AskHumanRequest {
  /** The question the model asks. */
  prompt: string;
  /** The answer used when the human enters nothing. */
  default: string;
  /** Fires when the call is aborted or the wait limit is reached. */
  signal: AbortSignal;
}

/**
 * Answers `ask_human` (e.g. from a UI). Return the text the human entered; an empty or blank
 * answer makes the tool return the request's default.
 */
export type AskHumanHandler = (request: AskHumanRequest) => string | Promise<string>;

/** Resolves a host name to IP addresses (all of them). Injectable for tests and custom DNS. */
export type HostResolver = (hostname: string) => Promise<readonly string[]>;

/**
 * What the tools may do. Every field is optional; what is left out takes the safe default shown
 * in {@link DEFAULT_TOOL_POLICY} (the README has the table). Values above a policy cap (a longer
 * `timeout`, `time_sleep`) are refused with `TOOL_POLICY_DENIED`, never silently lowered.
 */
export interface ToolPolicy {
  fs?: {
    /** The folder the fs tools are confined to (default: the working folder). */
    root?: string;
    /**
     * Read only (default `false`): the toolbox lists only `file_read`, `file_exists` and
     * `file_list` of std.fs, `file_write`, `file_append` and `file_delete` are refused with
     * `TOOL_POLICY_DENIED`, and the shell's sandbox (when the shell is enabled) mounts the root
     * read-only. An unsandboxed shell could write anyway, so it is refused with this setting.
     */
    readOnly?: boolean;
    /**
     * Let `file_read` and `file_append` open a regular file that has more than one hard link
     * (default `false`). A hard link inside the root may be the same file as one outside it, and
     * a link count says nothing about where the other names are, so such files are refused.
     */
    allowHardLinks?: boolean;
    /** Largest file `file_read` reads, in bytes. */
    maxReadBytes?: number;
    /** Largest content one `file_write`/`file_append` writes, and largest file an append makes. */
    maxWriteBytes?: number;
    /** Most entries `file_list` returns (more are cut and `truncated` is set). */
    maxListEntries?: number;
  };
  http?: {
    /**
     * Allow private, loopback, link-local, multicast and unspecified addresses: `true` for all,
     * or a list of addresses and CIDR ranges (`['127.0.0.1', '10.1.0.0/16']`). Default: none.
     */
    allowPrivateNetwork?: boolean | readonly string[];
    /** When set, only these host names may be reached (`example.com`, `*.example.com`). */
    allowedHosts?: readonly string[];
    /** Largest `timeout` argument accepted, in seconds. */
    maxTimeoutSeconds?: number;
    /** Largest response body read (after decompression), in bytes. */
    maxResponseBytes?: number;
    /** Largest request body sent, in bytes. */
    maxRequestBytes?: number;
    /** Most redirects followed per request; each hop is checked again. */
    maxRedirects?: number;
    /** Host name resolution (default: the system resolver, all addresses). */
    resolve?: HostResolver;
  };
  shell?: {
    /** The shell tools are refused unless this is `true`. */
    enabled?: boolean;
    /** Working folder of commands (default: the fs root). */
    cwd?: string;
    /** Largest `timeout` argument accepted, in seconds. */
    maxTimeoutSeconds?: number;
    /** Bytes kept of each of stdout and stderr; the rest is dropped and marked. */
    maxOutputBytes?: number;
    /** Extra command names refused, on top of the built-in deny list. */
    denyCommands?: readonly string[];
    /**
     * When set, only these command names may run, and command substitution (`$(…)`, backticks),
     * `eval`, `exec`, `source` are refused because they would hide what runs.
     */
    allowCommands?: readonly string[];
    /** Extra environment variables for commands (the environment is otherwise clean). */
    env?: Readonly<Record<string, string>>;
    /**
     * Let commands in the sandbox use the network (default `false`: the sandbox has its own
     * network namespace with nothing but a loopback interface). Unsandboxed commands always can.
     */
    allowNetwork?: boolean;
    /**
     * More folders or files commands may read inside the sandbox, besides the system folders and
     * the fs root (e.g. a language runtime installed in a home folder). Absolute paths.
     */
    readOnlyPaths?: readonly string[];
    /**
     * Run commands without an OS sandbox (default `false`). Without it, the shell runs every
     * command in bubblewrap (Linux) or sandbox-exec (macOS) and is refused with
     * `TOOL_SANDBOX_UNAVAILABLE` where neither works.
     */
    unsandboxed?: boolean;
  };
  time?: {
    /**
     * IANA time zone of `time_now`, and of ISO strings that carry no offset
     * (default: the system's zone).
     */
    timezone?: string;
    /** Longest `time_sleep`, in seconds. */
    maxSleepSeconds?: number;
    /**
     * The clock, in milliseconds since the epoch (default `Date.now`); a fraction of a
     * millisecond shows as microseconds in `%f`.
     */
    now?: () => number;
  };
  askHuman?: {
    /** Answers questions (default: ask on the terminal). */
    handler?: AskHumanHandler;
    /** Longest wait for an answer, in seconds. */
    timeoutSeconds?: number;
    /** Terminal streams to use instead of the process's TTY (or /dev/tty). */
    input?: NodeJS.ReadableStream;
    output?: NodeJS.WritableStream;
  };
  regex?: {
    /** Longest pattern, in characters. */
    maxPatternLength?: number;
    /** Longest text searched, in characters. */
    maxTextLength?: number;
    /** Most matches `regex_match` returns (more are counted but cut, `truncated` set). */
    maxMatches?: number;
    /** Longest `replacement` of `regex_replace`, in characters. */
    maxReplacementLength?: number;
    /** Longest result of `regex_replace`, in characters (checked before it is built). */
    maxOutputLength?: number;
  };
  text?: {
    /** Longest `new` of `text_replace`, in characters. */
    maxReplacementLength?: number;
    /**
     * Longest result of `text_replace`, `text_upper` and `text_lower`, in characters (checked
     * before it is built).
     */
    maxOutputLength?: number;
  };
  json?: {
    /** Longest text `json_parse` and `json_stringify` return, in characters (checked first). */
    maxOutputLength?: number;
    /** Deepest nesting of arrays and objects the JSON tools read. */
    maxDepth?: number;
  };
}

/** A {@link ToolPolicy} with every default filled in, as tools see it. */
export interface ResolvedToolPolicy {
  readonly fs: {
    readonly root: string;
    readonly readOnly: boolean;
    readonly allowHardLinks: boolean;
    readonly maxReadBytes: number;
    readonly maxWriteBytes: number;
    readonly maxListEntries: number;
  };
  readonly http: {
    readonly allowPrivateNetwork: boolean | readonly string[];
    readonly allowedHosts: readonly string[] | undefined;
    readonly maxTimeoutSeconds: number;
    readonly maxResponseBytes: number;
    readonly maxRequestBytes: number;
    readonly maxRedirects: number;
    readonly resolve: HostResolver | undefined;
  };
  readonly shell: {
    readonly enabled: boolean;
    readonly cwd: string;
    readonly maxTimeoutSeconds: number;
    readonly maxOutputBytes: number;
    readonly denyCommands: readonly string[];
    readonly allowCommands: readonly string[] | undefined;
    readonly env: Readonly<Record<string, string>>;
    readonly allowNetwork: boolean;
    readonly readOnlyPaths: readonly string[];
    readonly unsandboxed: boolean;
  };
  readonly time: {
    readonly timezone: string;
    readonly maxSleepSeconds: number;
    readonly now: () => number;
  };
  readonly askHuman: {
    readonly handler: AskHumanHandler | undefined;
    readonly timeoutSeconds: number;
    readonly input: NodeJS.ReadableStream | undefined;
    readonly output: NodeJS.WritableStream | undefined;
  };
  readonly regex: {
    readonly maxPatternLength: number;
    readonly maxTextLength: number;
    readonly maxMatches: number;
    readonly maxReplacementLength: number;
    readonly maxOutputLength: number;
  };
  readonly text: {
    readonly maxReplacementLength: number;
    readonly maxOutputLength: number;
  };
  readonly json: {
    readonly maxOutputLength: number;
    readonly maxDepth: number;
  };
}

const MiB = 1024 * 1024;

/**
 * The defaults of every limit. `fs.root` defaults to the working folder and `time.timezone` to
 * the system's zone; both are filled in by {@link resolveToolPolicy}.
 */
export const DEFAULT_TOOL_POLICY = Object.freeze({
  fs: Object.freeze({
    readOnly: false,
    allowHardLinks: false,
    maxReadBytes: 10 * MiB,
    maxWriteBytes: 10 * MiB,
    maxListEntries: 1000,
  }),
  http: Object.freeze({
    allowPrivateNetwork: false,
    maxTimeoutSeconds: 120,
    maxResponseBytes: 5 * MiB,
    maxRequestBytes: 5 * MiB,
    maxRedirects: 5,
  }),
  shell: Object.freeze({
    enabled: false,
    maxTimeoutSeconds: 300,
    maxOutputBytes: MiB,
    allowNetwork: false,
    unsandboxed: false,
  }),
  time: Object.freeze({ maxSleepSeconds: 60 }),
  askHuman: Object.freeze({ timeoutSeconds: 300 }),
  regex: Object.freeze({
    maxPatternLength: 10_000,
    maxTextLength: 1_000_000,
    maxMatches: 10_000,
    maxReplacementLength: 10_000,
    maxOutputLength: 10_000_000,
  }),
  text: Object.freeze({ maxReplacementLength: 10_000, maxOutputLength: 10_000_000 }),
  json: Object.freeze({ maxOutputLength: 10_000_000, maxDepth: 1000 }),
});

function positiveInteger(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new ToolError('TOOL_BAD_POLICY', `${field} must be a positive integer, got ${value}`, {
      field,
    });
  }
  return value;
}

function flag(value: boolean | undefined, fallback: boolean, field: string): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    throw new ToolError('TOOL_BAD_POLICY', `${field} must be true or false, got ${String(value)}`, {
      field,
    });
  }
  return value;
}

function stringList(
  value: readonly string[] | undefined,
  field: string,
): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string' || entry === '')) {
    throw new ToolError('TOOL_BAD_POLICY', `${field} must be a list of non-empty strings`, {
      field,
    });
  }
  return Object.freeze([...value]);
}

/** The system's IANA time zone (falls back to UTC). */
export function systemTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** True when `zone` is an IANA time zone (or `UTC`) this runtime knows. */
function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Fills every default of a {@link ToolPolicy} and checks its values; an invalid value fails with
 * `TOOL_BAD_POLICY` naming the field.
 */
export function resolveToolPolicy(policy: ToolPolicy = {}): ResolvedToolPolicy {
  const root = resolve(policy.fs?.root ?? process.cwd());
  const timezone = policy.time?.timezone ?? systemTimeZone();
  if (!isValidTimeZone(timezone)) {
    throw new ToolError(
      'TOOL_BAD_POLICY',
      `policy.time.timezone "${timezone}" is not an IANA time zone (e.g. "Europe/Paris", "UTC")`,
      { field: 'policy.time.timezone' },
    );
  }
  const allowPrivateNetwork = policy.http?.allowPrivateNetwork ?? false;
  if (typeof allowPrivateNetwork !== 'boolean') {
    stringList(allowPrivateNetwork, 'policy.http.allowPrivateNetwork');
    try {
      buildAllowList(allowPrivateNetwork);
    } catch (cause) {
      throw new ToolError(
        'TOOL_BAD_POLICY',
        `policy.http.allowPrivateNetwork: ${cause instanceof Error ? cause.message : String(cause)}`,
        { field: 'policy.http.allowPrivateNetwork', cause },
      );
    }
  }
  const env = policy.shell?.env ?? {};
  for (const [key, value] of Object.entries(env)) {
    if (
      !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ||
      typeof value !== 'string' ||
      value.includes('\0')
    ) {
      throw new ToolError('TOOL_BAD_POLICY', `policy.shell.env has an invalid entry "${key}"`, {
        field: 'policy.shell.env',
      });
    }
  }
  const readOnlyPaths = stringList(policy.shell?.readOnlyPaths, 'policy.shell.readOnlyPaths') ?? [];
  const relativeReadOnly = readOnlyPaths.find((path) => !isAbsolute(path));
  if (relativeReadOnly !== undefined) {
    throw new ToolError(
      'TOOL_BAD_POLICY',
      `policy.shell.readOnlyPaths must hold absolute paths, got "${relativeReadOnly}"`,
      { field: 'policy.shell.readOnlyPaths' },
    );
  }
  const defaults = DEFAULT_TOOL_POLICY;
  const readOnly = flag(policy.fs?.readOnly, defaults.fs.readOnly, 'policy.fs.readOnly');
  const unsandboxed = flag(
    policy.shell?.unsandboxed,
    defaults.shell.unsandboxed,
    'policy.shell.unsandboxed',
  );
  if (readOnly && unsandboxed && policy.shell?.enabled === true) {
    throw new ToolError(
      'TOOL_BAD_POLICY',
      'policy.fs.readOnly cannot be kept by an unsandboxed shell, which can write anywhere your user can; drop policy.shell.unsandboxed or policy.fs.readOnly',
      { field: 'policy.shell.unsandboxed' },
    );
  }
  return Object.freeze({
    fs: Object.freeze({
      root,
      readOnly,
      allowHardLinks: flag(
        policy.fs?.allowHardLinks,
        defaults.fs.allowHardLinks,
        'policy.fs.allowHardLinks',
      ),
      maxReadBytes: positiveInteger(
        policy.fs?.maxReadBytes,
        defaults.fs.maxReadBytes,
        'policy.fs.maxReadBytes',
      ),
      maxWriteBytes: positiveInteger(
        policy.fs?.maxWriteBytes,
        defaults.fs.maxWriteBytes,
        'policy.fs.maxWriteBytes',
      ),
      maxListEntries: positiveInteger(
        policy.fs?.maxListEntries,
        defaults.fs.maxListEntries,
        'policy.fs.maxListEntries',
      ),
    }),
    http: Object.freeze({
      allowPrivateNetwork:
        typeof allowPrivateNetwork === 'boolean'
          ? allowPrivateNetwork
          : Object.freeze([...allowPrivateNetwork]),
      allowedHosts: stringList(policy.http?.allowedHosts, 'policy.http.allowedHosts')?.map((host) =>
        host.toLowerCase(),
      ),
      maxTimeoutSeconds: positiveInteger(
        policy.http?.maxTimeoutSeconds,
        defaults.http.maxTimeoutSeconds,
        'policy.http.maxTimeoutSeconds',
      ),
      maxResponseBytes: positiveInteger(
        policy.http?.maxResponseBytes,
        defaults.http.maxResponseBytes,
        'policy.http.maxResponseBytes',
      ),
      maxRequestBytes: positiveInteger(
        policy.http?.maxRequestBytes,
        defaults.http.maxRequestBytes,
        'policy.http.maxRequestBytes',
      ),
      maxRedirects:
        policy.http?.maxRedirects === 0
          ? 0
          : positiveInteger(
              policy.http?.maxRedirects,
              defaults.http.maxRedirects,
              'policy.http.maxRedirects',
            ),
      resolve: policy.http?.resolve,
    }),
    shell: Object.freeze({
      enabled: policy.shell?.enabled === true,
      cwd: resolve(root, policy.shell?.cwd ?? root),
      maxTimeoutSeconds: positiveInteger(
        policy.shell?.maxTimeoutSeconds,
        defaults.shell.maxTimeoutSeconds,
        'policy.shell.maxTimeoutSeconds',
      ),
      maxOutputBytes: positiveInteger(
        policy.shell?.maxOutputBytes,
        defaults.shell.maxOutputBytes,
        'policy.shell.maxOutputBytes',
      ),
      denyCommands: stringList(policy.shell?.denyCommands, 'policy.shell.denyCommands') ?? [],
      allowCommands: stringList(policy.shell?.allowCommands, 'policy.shell.allowCommands'),
      env: Object.freeze({ ...env }),
      allowNetwork: flag(
        policy.shell?.allowNetwork,
        defaults.shell.allowNetwork,
        'policy.shell.allowNetwork',
      ),
      readOnlyPaths: Object.freeze(readOnlyPaths.map((path) => resolve(path))),
      unsandboxed,
    }),
    time: Object.freeze({
      timezone,
      maxSleepSeconds: positiveInteger(
        policy.time?.maxSleepSeconds,
        defaults.time.maxSleepSeconds,
        'policy.time.maxSleepSeconds',
      ),
      now: policy.time?.now ?? Date.now,
    }),
    askHuman: Object.freeze({
      handler: policy.askHuman?.handler,
      timeoutSeconds: positiveInteger(
        policy.askHuman?.timeoutSeconds,
        defaults.askHuman.timeoutSeconds,
        'policy.askHuman.timeoutSeconds',
      ),
      input: policy.askHuman?.input,
      output: policy.askHuman?.output,
    }),
    regex: Object.freeze({
      maxPatternLength: positiveInteger(
        policy.regex?.maxPatternLength,
        defaults.regex.maxPatternLength,
        'policy.regex.maxPatternLength',
      ),
      maxTextLength: positiveInteger(
        policy.regex?.maxTextLength,
        defaults.regex.maxTextLength,
        'policy.regex.maxTextLength',
      ),
      maxMatches: positiveInteger(
        policy.regex?.maxMatches,
        defaults.regex.maxMatches,
        'policy.regex.maxMatches',
      ),
      maxReplacementLength: positiveInteger(
        policy.regex?.maxReplacementLength,
        defaults.regex.maxReplacementLength,
        'policy.regex.maxReplacementLength',
      ),
      maxOutputLength: positiveInteger(
        policy.regex?.maxOutputLength,
        defaults.regex.maxOutputLength,
        'policy.regex.maxOutputLength',
      ),
    }),
    text: Object.freeze({
      maxReplacementLength: positiveInteger(
        policy.text?.maxReplacementLength,
        defaults.text.maxReplacementLength,
        'policy.text.maxReplacementLength',
      ),
      maxOutputLength: positiveInteger(
        policy.text?.maxOutputLength,
        defaults.text.maxOutputLength,
        'policy.text.maxOutputLength',
      ),
    }),
    json: Object.freeze({
      maxOutputLength: positiveInteger(
        policy.json?.maxOutputLength,
        defaults.json.maxOutputLength,
        'policy.json.maxOutputLength',
      ),
      maxDepth: positiveInteger(
        policy.json?.maxDepth,
        defaults.json.maxDepth,
        'policy.json.maxDepth',
      ),
    }),
  });
}
