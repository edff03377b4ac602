import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import type { AgentEvent } from './agent.ts';
import { isAgentError } from './agent-error.ts';
import { describeOptionForCli, policyFromFlags, UsageError } from './cli-policy.ts';
import { isToolError } from './errors.ts';
import type { ToolPolicy } from './policy.ts';
import { renamePolicyOptions } from './policy-options.ts';
import { isNamespace, STD_TOOLS, TOOLS_BY_NAMESPACE } from './registry.ts';
import type { AgentScript } from './script/ast.ts';
import { unsupportedUses } from './script/check.ts';
import { loadAgentScript } from './script/load.ts';
import { type AgentScriptError, isAgentScriptError } from './script/parse.ts';
import { NAMESPACES, type Namespace } from './tool.ts';
import { VERSION } from './version.ts';

const USAGE = `class-agent ${VERSION} — run agent scripts and serve the agent standard library

Usage:
  class-agent run FILE [options]     run the "flow main" of an agent script
  class-agent check FILE             parse and check a script (and its includes) without running it
  class-agent mcp --uses NS[,NS…]    serve tools over MCP on stdin/stdout
  class-agent tools [--uses NS,…]    list the tools (of the given namespaces)

Script (check, run):
  --dialect agent|nexa the script's rules (default: nexa for .nx/.nxlib files, agent otherwise)

Model (run):
  --base-url URL       OpenAI-compatible API base URL   (env LLM_BASE_URL)
  --api-key KEY        API key                          (env LLM_API_KEY; prefer the env)
  --model NAME         model for agents that name none  (env LLM_MODEL)
  --max-steps N        most model calls per agent run   (default 16)
  --time-budget SEC    longest agent run in seconds     (default 300)
  --verbose            log model and tool calls to stderr

Tool policy (run, mcp):
  --root DIR                 folder the fs tools are confined to (default: current folder)
  --read-only                the fs tools only read: no file_write, file_append, file_delete
  --allow-hard-links         let the fs tools read files that have several hard links
  --allow-shell              enable std.shell (off by default; commands run in an OS sandbox)
  --unsandboxed-shell        with --allow-shell: run commands without the sandbox (they can do
                             anything your user can; only in a disposable environment)
  --allow-shell-network      with --allow-shell: let sandboxed commands use the network
  --allow-private-network    let std.http reach private and loopback addresses
  --allowed-hosts H[,H…]     let std.http reach only these hosts (example.com, *.example.com)
  --timezone ZONE            IANA time zone of std.time (default: the system's)
  --policy FILE              any other policy option, as JSON: {"fs": {"maxReadBytes": 1000}}
                             (the flags above win over the file)

Exit codes: 0 ok, 1 the run failed, 2 usage or script error (also a construct that cannot run
yet), 130 interrupted.`;

/** Where the CLI writes and what environment it reads; replaceable for tests. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  signal?: AbortSignal;
}

const OPTIONS = {
  'base-url': { type: 'string' },
  'api-key': { type: 'string' },
  model: { type: 'string' },
  'max-steps': { type: 'string' },
  'time-budget': { type: 'string' },
  verbose: { type: 'boolean' },
  root: { type: 'string' },
  'read-only': { type: 'boolean' },
  'allow-hard-links': { type: 'boolean' },
  'allow-shell': { type: 'boolean' },
  'unsandboxed-shell': { type: 'boolean' },
  'allow-shell-network': { type: 'boolean' },
  'allow-private-network': { type: 'boolean' },
  'allowed-hosts': { type: 'string' },
  timezone: { type: 'string' },
  policy: { type: 'string' },
  uses: { type: 'string' },
  dialect: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const satisfies ParseArgsOptionsConfig;

function parseUses(value: string | undefined): Namespace[] {
  if (!value)
    throw new UsageError(
      `--uses is required, e.g. --uses std.time,std.math (known: ${NAMESPACES.join(', ')})`,
    );
  const uses = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const namespace of uses) {
    if (!isNamespace(namespace)) {
      throw new UsageError(`unknown namespace "${namespace}" (known: ${NAMESPACES.join(', ')})`);
    }
  }
  return uses as Namespace[];
}

function positiveNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0)
    throw new UsageError(`${flag} must be a positive number, got "${value}"`);
  return number;
}

/** Shows the offending line of a script with a caret under the column. */
function excerpt(source: string, line: number, column: number): string {
  const text = source.split('\n')[line - 1] ?? '';
  const gutter = `${line} | `;
  return `${gutter}${text}\n${' '.repeat(gutter.length + Math.max(0, column - 1))}^`;
}

/** `file:line:column: error: reason` and the line with a caret (when the file can be read). */
async function describeScriptError(error: AgentScriptError, cwd: string): Promise<string> {
  let shown = '';
  try {
    const source = await readFile(resolve(cwd, error.fileName), 'utf8');
    shown = `${excerpt(source, error.line, error.column)}\n`;
  } catch {
    // The excerpt is a courtesy; the position is in the first line already.
  }
  return `${error.fileName}:${error.line}:${error.column}: error: ${error.reason}\n${shown}`;
}

function describeEvent(event: AgentEvent): string {
  if (event.type === 'model-call') return `[${event.agent}] step ${event.step}: asking the model`;
  if (event.type === 'answer') return `[${event.agent}] answered after ${event.step} step(s)`;
  const shown = event.content.length > 200 ? `${event.content.slice(0, 200)}…` : event.content;
  return `[${event.agent}] ${event.name}(${event.arguments}) -> ${event.ok ? '' : 'refused: '}${shown}`;
}

/**
 * Loads the module of a command that needs an optional peer dependency, or says which package to
 * install when it is missing.
 */
async function loadAdapter<Module>(
  load: () => Promise<Module>,
  packageName: string,
  command: string,
): Promise<Module> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const message = error instanceof Error ? error.message : '';
    if (code === 'ERR_MODULE_NOT_FOUND' && message.includes(`'${packageName}`)) {
      throw new UsageError(
        `the ${command} command needs the ${packageName} package next to @class-assistant/agent-std: npm install ${packageName}`,
      );
    }
    throw error;
  }
}

/**
 * Runs the `class-agent` command line; resolves to the exit code.
 * (`mcp` resolves once the server is connected; the process then serves until stdin closes.)
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<
    typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; strict: true }>
  >;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: OPTIONS });
  } catch (error) {
    io.stderr(
      `class-agent: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}\n`,
    );
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.version) {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') {
    io.stdout(`${USAGE}\n`);
    return command === undefined && !values.help ? 2 : 0;
  }

  try {
    const policy: ToolPolicy = await policyFromFlags(values, io.cwd);
    switch (command) {
      case 'tools': {
        const uses = values.uses ? parseUses(values.uses) : [...NAMESPACES];
        for (const namespace of uses) {
          io.stdout(`${namespace}\n`);
          for (const name of TOOLS_BY_NAMESPACE[namespace]) {
            io.stdout(`  ${name.padEnd(16)} ${STD_TOOLS[name].description}\n`);
          }
        }
        return 0;
      }
      case 'mcp': {
        const uses = parseUses(values.uses);
        const { serveMcpOverStdio } = await loadAdapter(
          () => import('./mcp-server.ts'),
          '@modelcontextprotocol/sdk',
          'mcp',
        );
        await serveMcpOverStdio({ uses, policy, describePolicyOption: describeOptionForCli });
        io.stderr(`class-agent: serving ${values.uses} over MCP on stdio\n`);
        return 0;
      }
      case 'check':
      case 'run': {
        if (rest.length !== 1) throw new UsageError(`${command} takes one FILE`);
        const file = rest[0] as string;
        const dialect = values.dialect;
        if (dialect !== undefined && dialect !== 'agent' && dialect !== 'nexa') {
          throw new UsageError(`--dialect must be agent or nexa, got "${dialect}"`);
        }
        let script: AgentScript;
        try {
          script = await loadAgentScript(file, {
            ...(dialect ? { dialect } : {}),
            readFile: (path) => readFile(resolve(io.cwd, path), 'utf8'),
          });
        } catch (error) {
          if (isAgentScriptError(error)) {
            io.stderr(await describeScriptError(error, io.cwd));
            return 2;
          }
          throw new UsageError(
            `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
        if (command === 'check') {
          io.stdout(
            `${file}: ok (${script.agents.length} agent(s), ${script.flows.length} flow(s))\n`,
          );
          for (const use of unsupportedUses(script)) {
            io.stdout(
              `  note: ${use.fileName}:${use.position.line}:${use.position.column}: ${use.construct} cannot run yet\n`,
            );
          }
          return 0;
        }
        const maxSteps = positiveNumber(values['max-steps'], '--max-steps');
        if (maxSteps !== undefined && !Number.isInteger(maxSteps)) {
          throw new UsageError('--max-steps must be a whole number');
        }
        const budgetSeconds = positiveNumber(values['time-budget'], '--time-budget');
        const baseURL = values['base-url'] ?? io.env.LLM_BASE_URL;
        const apiKey = values['api-key'] ?? io.env.LLM_API_KEY;
        const model = values.model ?? io.env.LLM_MODEL;
        const { runAgentScript } = await loadAdapter(
          () => import('./script/run.ts'),
          'openai',
          'run',
        );
        await runAgentScript(script, {
          ...(baseURL ? { baseURL } : {}),
          ...(apiKey ? { apiKey } : {}),
          ...(model ? { model } : {}),
          ...(maxSteps !== undefined ? { maxSteps } : {}),
          ...(budgetSeconds !== undefined ? { timeBudgetMs: budgetSeconds * 1000 } : {}),
          ...(io.signal ? { signal: io.signal } : {}),
          policy,
          describePolicyOption: describeOptionForCli,
          print: (line) => io.stdout(`${line}\n`),
          ...(values.verbose
            ? { onEvent: (event: AgentEvent) => io.stderr(`${describeEvent(event)}\n`) }
            : {}),
        });
        return 0;
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (isAgentScriptError(error)) {
      io.stderr(await describeScriptError(error, io.cwd));
      return error.code === 'AGENT_SCRIPT_RUNTIME' ? 1 : 2;
    }
    if (error instanceof UsageError) {
      io.stderr(`class-agent: ${error.message}\n`);
      return 2;
    }
    if (isAgentError(error)) {
      io.stderr(`class-agent: ${error.message} [${error.code}]\n`);
      return error.code === 'AGENT_ABORTED' ? 130 : 1;
    }
    if (isToolError(error)) {
      io.stderr(
        `class-agent: ${renamePolicyOptions(error.message, describeOptionForCli)} [${error.code}]\n`,
      );
      return 2;
    }
    throw error;
  }
}
