import type { ToolPolicy } from './policy.ts';

/** A policy option by its dotted name, as messages write it: `policy.http.allowPrivateNetwork`. */
export type PolicyOption = {
  [Section in keyof ToolPolicy]-?: `policy.${Section}.${keyof NonNullable<ToolPolicy[Section]> & string}`;
}[keyof ToolPolicy];

/**
 * How refusals name a policy option for whoever runs the tools: a command-line flag, a settings
 * field. Return `undefined` to keep the library's name.
 *
 * @example
 * const describePolicyOption = (option: PolicyOption) =>
 *   option === 'policy.http.allowPrivateNetwork' ? 'the --allow-private-network flag' : undefined;
 */
export type DescribePolicyOption = (option: PolicyOption) => string | undefined;

const OPTIONS = {
  'policy.fs.root': true,
  'policy.fs.readOnly': true,
  'policy.fs.allowHardLinks': true,
  'policy.fs.maxReadBytes': true,
  'policy.fs.maxWriteBytes': true,
  'policy.fs.maxListEntries': true,
  'policy.http.allowPrivateNetwork': true,
  'policy.http.allowedHosts': true,
  'policy.http.maxTimeoutSeconds': true,
  'policy.http.maxResponseBytes': true,
  'policy.http.maxRequestBytes': true,
  'policy.http.maxRedirects': true,
  'policy.http.resolve': true,
  'policy.shell.enabled': true,
  'policy.shell.cwd': true,
  'policy.shell.maxTimeoutSeconds': true,
  'policy.shell.maxOutputBytes': true,
  'policy.shell.denyCommands': true,
  'policy.shell.allowCommands': true,
  'policy.shell.env': true,
  'policy.shell.allowNetwork': true,
  'policy.shell.readOnlyPaths': true,
  'policy.shell.unsandboxed': true,
  'policy.time.timezone': true,
  'policy.time.maxSleepSeconds': true,
  'policy.time.now': true,
  'policy.askHuman.handler': true,
  'policy.askHuman.timeoutSeconds': true,
  'policy.askHuman.input': true,
  'policy.askHuman.output': true,
  'policy.regex.maxPatternLength': true,
  'policy.regex.maxTextLength': true,
  'policy.regex.maxMatches': true,
  'policy.regex.maxReplacementLength': true,
  'policy.regex.maxOutputLength': true,
  'policy.text.maxReplacementLength': true,
  'policy.text.maxOutputLength': true,
  'policy.json.maxOutputLength': true,
  'policy.json.maxDepth': true,
} as const satisfies Record<PolicyOption, true>;

/** Every policy option, by its dotted name. */
export const POLICY_OPTIONS = Object.freeze(Object.keys(OPTIONS) as PolicyOption[]);

const isPolicyOption = (name: string): name is PolicyOption => Object.hasOwn(OPTIONS, name);

/**
 * `message` with every policy option it names (`policy.http.allowPrivateNetwork`, also written
 * `policy.shell.unsandboxed: true`) replaced by what `describe` calls it.
 */
export function renamePolicyOptions(message: string, describe: DescribePolicyOption): string {
  return message.replace(/\bpolicy\.[A-Za-z]+\.[A-Za-z]+(?:: true)?/g, (written) => {
    const name = written.replace(/: true$/, '');
    if (!isPolicyOption(name)) return written;
    return describe(name) ?? written;
  });
}
