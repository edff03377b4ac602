// pnpm --filter @class-assistant/agent-std nexa-conformance /path/to/a/Nexa/checkout [--verbose]
//
// Measures how much of the Nexa language's published examples this package handles: every
// examples/**/*.nx of a checkout of github.com/ouyangyipeng/Nexa goes through `loadAgentScript`
// (what `class-agent check` does); each that passes is run against the fake OpenAI-compatible
// server over a real socket. Prints the counts and each failure with its reason (`--verbose`: also
// what each run printed). Asserts nothing;
// not part of `pnpm test` (the checkout is not in this repository).
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { isAgentScriptError, loadAgentScript } from '../src/index.ts';
import { isAgentError, runAgentScript } from '../src/index-agent.ts';
import { CONDITION_PROMPT, INTENT_PROMPT } from '../src/script/semantic.ts';
import { createFakeOpenAIServer, type RecordedChatRequest } from '../src/testing/index.ts';

const verbose = process.argv.includes('--verbose');
const checkout = process.argv.slice(2).find((argument) => !argument.startsWith('--'));
if (!checkout) {
  process.stderr.write(
    'usage: node bench/nexa-conformance.ts <path to a Nexa checkout> [--verbose]\n',
  );
  process.exit(2);
}

async function findScripts(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const found: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...(await findScripts(path)));
    else if (entry.name.endsWith('.nx')) found.push(path);
  }
  return found;
}

/** A placeholder JSON value for a field type named in an instruction. */
function sample(type: string): unknown {
  if (/^(int|integer)\b/i.test(type)) return 1;
  if (/^(float|number)\b/i.test(type)) return 0.5;
  if (/^(bool|boolean)\b/i.test(type)) return true;
  if (/^list\b/i.test(type)) return [];
  if (/^dict\b/i.test(type)) return {};
  return 'text';
}

/** The fake model: yes to conditions, the first intent, JSON where asked, an echo otherwise. */
function reply(request: RecordedChatRequest) {
  const messages = request.body.messages ?? [];
  const system = String(messages[0]?.content ?? '');
  const last = String(messages.at(-1)?.content ?? '');
  if (system === CONDITION_PROMPT) return { type: 'text' as const, content: 'yes' };
  if (system === INTENT_PROMPT) return { type: 'text' as const, content: '1' };
  const fields =
    /Answer with only a JSON object(?: with the fields (.*?))?, and nothing else\./.exec(system);
  if (fields) {
    const entries = (fields[1] ?? '')
      .split(/,\s*(?=\w+ \()/)
      .filter(Boolean)
      .map((field) => {
        const [, name = field, type = 'string'] = /^(\w+) \((.*)\)$/.exec(field.trim()) ?? [];
        return [name, sample(type)];
      });
    return { type: 'text' as const, content: JSON.stringify(Object.fromEntries(entries)) };
  }
  return { type: 'text' as const, content: `(fake answer to: ${last.slice(0, 60)})` };
}

const describe = (error: unknown): string => {
  if (isAgentScriptError(error)) return `${error.message} [${error.code}]`;
  if (isAgentError(error)) return `${error.message} [${error.code}]`;
  return error instanceof Error ? error.message : String(error);
};

const scripts = await findScripts(join(checkout, 'examples'));
const server = await createFakeOpenAIServer({ chat: reply, apiKey: 'conformance' });
const root = await mkdtemp(join(tmpdir(), 'nexa-conformance-'));
const failures: string[] = [];
let checked = 0;
let ran = 0;
try {
  for (const path of scripts) {
    const name = relative(checkout, path);
    let script: Awaited<ReturnType<typeof loadAgentScript>>;
    try {
      script = await loadAgentScript(path);
      checked++;
    } catch (error) {
      failures.push(`check  ${name}\n         ${describe(error)}`);
      continue;
    }
    const printed: string[] = [];
    try {
      await runAgentScript(script, {
        baseURL: server.baseURL,
        apiKey: 'conformance',
        model: 'fake-model',
        maxRetries: 0,
        timeBudgetMs: 20_000,
        policy: { fs: { root } },
        print: (line) => printed.push(line),
        warn: (line) => printed.push(`warning: ${line}`),
      });
      ran++;
    } catch (error) {
      failures.push(`run    ${name}\n         ${describe(error)}`);
    }
    if (verbose) {
      process.stdout.write(`── ${name}\n${printed.map((line) => `   | ${line}\n`).join('')}`);
    }
  }
} finally {
  await server.close();
  await rm(root, { recursive: true, force: true });
}

process.stdout.write(
  [
    `Nexa checkout: ${checkout}`,
    `example scripts found (examples/**/*.nx): ${scripts.length}`,
    `pass class-agent check:                   ${checked} of ${scripts.length}`,
    `run against the fake LLM server:          ${ran} of ${checked} checked`,
    `model requests made:                      ${server.chatRequests.length}`,
    '',
    failures.length ? `failures (${failures.length}):` : 'no failures',
    ...failures.map((failure) => `  ${failure}`),
    '',
  ].join('\n'),
);
