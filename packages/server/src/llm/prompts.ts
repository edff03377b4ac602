// The prompt files of the LLM features: assets/prompts/<name>.md, or a folder given by the host
// (buildApp's `promptsDir`). Read once each, on first use.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assetPath } from '../assets.ts';

/** Names of the prompt files under assets/prompts (or the `promptsDir` option). */
export type PromptName =
  | 'rescue'
  | 'rescue-chat'
  | 'catchup'
  | 'catchup-chat'
  | 'notes'
  | 'fold'
  | 'ask'
  | 'class-agent'
  | 'translate';

/** Reads a prompt by name. */
export type PromptLoader = (name: PromptName) => Promise<string>;

/**
 * A loader of prompt files from `promptsDir`, or the bundled ones. Each file is read once; a
 * failed read is tried again next time.
 *
 * @example
 * const prompt = createPromptLoader();
 * const system = await prompt('rescue');
 */
export function createPromptLoader(promptsDir?: string): PromptLoader {
  const cache = new Map<PromptName, Promise<string>>();
  return (name) => {
    let text = cache.get(name);
    if (!text) {
      const path = promptsDir ? join(promptsDir, `${name}.md`) : assetPath(`prompts/${name}.md`);
      text = readFile(path, 'utf8');
      text.catch(() => cache.delete(name));
      cache.set(name, text);
    }
    return text;
  };
}
