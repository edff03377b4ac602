// The tool policy of the `class-agent` command line: its flags, the `--policy` file, and how
// refusals name policy options in the CLI's terms (a flag, or a key of the policy file).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ToolPolicy } from './policy.ts';
import { POLICY_OPTIONS, type PolicyOption } from './policy-options.ts';

/** A command-line mistake: shown with the usage hint, exit code 2. */
export class UsageError extends Error {}

/** The policy flags' values, as `parseArgs` returns them. */
export interface PolicyFlags {
  root?: string | undefined;
  'read-only'?: boolean | undefined;
  'allow-hard-links'?: boolean | undefined;
  'allow-shell'?: boolean | undefined;
  'unsandboxed-shell'?: boolean | undefined;
  'allow-shell-network'?: boolean | undefined;
  'allow-private-network'?: boolean | undefined;
  'allowed-hosts'?: string | undefined;
  timezone?: string | undefined;
  policy?: string | undefined;
}

/** The flag that sets each option, as a refusal names it. */
const FLAG_WORDS: Partial<Record<PolicyOption, string>> = {
  'policy.fs.root': '--root',
  'policy.fs.readOnly': 'the --read-only flag',
  'policy.fs.allowHardLinks': 'the --allow-hard-links flag',
  'policy.shell.enabled': 'the --allow-shell flag',
  'policy.shell.unsandboxed': 'the --unsandboxed-shell flag',
  'policy.shell.allowNetwork': 'the --allow-shell-network flag',
  'policy.http.allowPrivateNetwork': 'the --allow-private-network flag',
  'policy.http.allowedHosts': '--allowed-hosts',
  'policy.time.timezone': '--timezone',
  'policy.askHuman.handler':
    'policy.askHuman.handler (a library option: class-agent asks on its terminal)',
};

/** Options whose values are functions or streams: no JSON file can give them. */
const CODE_ONLY = new Set<PolicyOption>([
  'policy.http.resolve',
  'policy.time.now',
  'policy.askHuman.handler',
  'policy.askHuman.input',
  'policy.askHuman.output',
]);

/**
 * How a refusal under `class-agent` names a policy option: its flag, or its key in the
 * `--policy` file (`"fs": { "maxReadBytes": … }` is written `fs.maxReadBytes in the --policy
 * file`).
 */
export function describeOptionForCli(option: PolicyOption): string | undefined {
  const flag = FLAG_WORDS[option];
  if (flag) return flag;
  if (CODE_ONLY.has(option)) return undefined;
  return `${option.slice('policy.'.length)} in the --policy file`;
}

/** Reads a `--policy` file: a JSON object shaped like the library's `ToolPolicy`. */
async function readPolicyFile(path: string, cwd: string): Promise<ToolPolicy> {
  let text: string;
  try {
    text = await readFile(resolve(cwd, path), 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read the --policy file ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `the --policy file ${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const isRecord = (entry: unknown): entry is Record<string, unknown> =>
    typeof entry === 'object' && entry !== null && !Array.isArray(entry);
  if (!isRecord(value)) {
    throw new UsageError(`the --policy file ${path} must hold one JSON object, like {"fs": {…}}`);
  }
  const allowed = POLICY_OPTIONS.filter((option) => !CODE_ONLY.has(option));
  for (const [section, fields] of Object.entries(value)) {
    if (!isRecord(fields)) {
      throw new UsageError(`${path}: "${section}" must be an object`);
    }
    for (const key of Object.keys(fields)) {
      if (!allowed.includes(`policy.${section}.${key}` as PolicyOption)) {
        throw new UsageError(
          `${path}: unknown policy option "${section}.${key}" (known: ${allowed.map((option) => option.slice(7)).join(', ')})`,
        );
      }
    }
  }
  return value as ToolPolicy;
}

/**
 * The policy of a `class-agent` command: the `--policy` file if given, with the flags on top.
 * The fs root is `--root`, else the file's `fs.root`, else the current folder (relative paths
 * are read from the current folder).
 */
export async function policyFromFlags(flags: PolicyFlags, cwd: string): Promise<ToolPolicy> {
  const file = flags.policy ? await readPolicyFile(flags.policy, cwd) : {};
  const when = <T>(value: T | undefined, set: (value: T) => object) =>
    value === undefined || value === false ? {} : set(value);
  const hosts = flags['allowed-hosts']
    ?.split(',')
    .map((host) => host.trim())
    .filter(Boolean);
  if (hosts !== undefined && hosts.length === 0) {
    throw new UsageError('--allowed-hosts needs host names, e.g. --allowed-hosts example.com');
  }
  const shellEnabled = flags['allow-shell'] === true || file.shell?.enabled === true;
  for (const flag of ['unsandboxed-shell', 'allow-shell-network'] as const) {
    if (flags[flag] && !shellEnabled) {
      throw new UsageError(`--${flag} only applies to the shell: add --allow-shell`);
    }
  }
  return {
    ...file,
    fs: {
      ...file.fs,
      root: resolve(cwd, flags.root ?? file.fs?.root ?? '.'),
      ...when(flags['read-only'], () => ({ readOnly: true })),
      ...when(flags['allow-hard-links'], () => ({ allowHardLinks: true })),
    },
    shell: {
      ...file.shell,
      ...when(flags['allow-shell'], () => ({ enabled: true })),
      ...when(flags['unsandboxed-shell'], () => ({ unsandboxed: true })),
      ...when(flags['allow-shell-network'], () => ({ allowNetwork: true })),
    },
    http: {
      ...file.http,
      ...when(flags['allow-private-network'], () => ({ allowPrivateNetwork: true })),
      ...when(hosts, (allowedHosts) => ({ allowedHosts })),
    },
    time: { ...file.time, ...when(flags.timezone, (timezone) => ({ timezone })) },
  };
}
