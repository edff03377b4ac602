import { openSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { ReadStream, WriteStream } from 'node:tty';
import { z } from 'zod';
import { isToolError, ToolError } from '../errors.ts';
import type { ResolvedToolPolicy } from '../policy.ts';
import { defineTool } from '../tool.ts';

interface Terminal {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  close(): void;
}

/**
 * The terminal to ask on: the policy's streams, else the process's own TTY, else the controlling
 * terminal (/dev/tty) — so questions reach the human even when stdout is piped.
 */
function openTerminal(policy: ResolvedToolPolicy): Terminal | undefined {
  const { input, output } = policy.askHuman;
  if (input && output) return { input, output, close() {} };
  if (process.stdin.isTTY) {
    return {
      input: process.stdin,
      output: process.stderr.isTTY ? process.stderr : process.stdout,
      close() {},
    };
  }
  try {
    const fd = openSync('/dev/tty', 'r+');
    const ttyInput = new ReadStream(fd);
    const ttyOutput = new WriteStream(fd);
    return {
      input: ttyInput,
      output: ttyOutput,
      close() {
        ttyInput.destroy();
      },
    };
  } catch {
    return undefined;
  }
}

async function askOnTerminal(
  prompt: string,
  fallback: string,
  policy: ResolvedToolPolicy,
  signal: AbortSignal,
): Promise<string> {
  const terminal = openTerminal(policy);
  if (!terminal) {
    throw new ToolError(
      'TOOL_FAILED',
      'there is no terminal to ask the human on; give an answer handler in policy.askHuman.handler',
      { tool: 'ask_human' },
    );
  }
  const readline = createInterface({ input: terminal.input, output: terminal.output });
  try {
    const question = `${prompt}${fallback ? ` [${fallback}]` : ''}\n> `;
    return await new Promise<string>((resolve, reject) => {
      // End of input (Ctrl-D) counts as an empty answer.
      readline.once('close', () => resolve(''));
      readline.question(question, { signal }).then(resolve, reject);
    });
  } finally {
    readline.close();
    terminal.close();
  }
}

export const askHuman = defineTool({
  name: 'ask_human',
  namespace: 'std.ask_human',
  title: 'Ask the human',
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  description:
    'Ask the human user a question and wait for the typed answer. If they enter nothing, the default is returned. Use only when you cannot proceed without them.',
  schemas: () => ({
    input: z
      .object({
        prompt: z.string().min(1).describe('The question to show.'),
        default: z.string().default('').describe('Answer used when the user enters nothing.'),
      })
      .strict(),
    output: z.string().describe("The user's answer (or the default)."),
  }),
  async execute({ prompt, default: fallback }, { policy, signal }) {
    const tool = 'ask_human';
    const seconds = policy.askHuman.timeoutSeconds;
    const deadline = AbortSignal.timeout(seconds * 1000);
    const combined = AbortSignal.any([signal, deadline]);
    const failure = (cause: unknown) =>
      deadline.aborted
        ? new ToolError('TOOL_TIMEOUT', `the human did not answer within ${seconds} s`, { tool })
        : signal.aborted
          ? new ToolError('TOOL_ABORTED', 'the call was aborted', { tool })
          : isToolError(cause)
            ? cause
            : new ToolError(
                'TOOL_FAILED',
                `asking the human failed: ${cause instanceof Error ? cause.message : String(cause)}`,
                { tool, cause },
              );
    let answer: unknown;
    try {
      const handler = policy.askHuman.handler;
      const pending = handler
        ? Promise.resolve(handler({ prompt, default: fallback, signal: combined }))
        : askOnTerminal(prompt, fallback, policy, combined);
      // The wait is bounded even when a handler ignores its signal.
      answer = await new Promise((resolve, reject) => {
        if (combined.aborted) reject(combined.reason);
        combined.addEventListener('abort', () => reject(combined.reason), { once: true });
        pending.then(resolve, reject);
      });
    } catch (error) {
      throw failure(error);
    }
    if (typeof answer !== 'string') {
      throw new ToolError('TOOL_FAILED', 'the answer handler returned something other than text', {
        tool,
      });
    }
    const trimmed = answer.replace(/\r?\n$/, '');
    return trimmed.trim() === '' ? fallback : trimmed;
  },
});
