import { readFile } from 'node:fs/promises';

/** Reads a UTF-8 file, or returns undefined when it does not exist. */
export async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** A promise-chain lock: calls run one after another, in order. */
export function createSerialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

/**
 * True for a plain file name with the given extension, safe to join to a data folder: no path
 * separators, control characters, `..` or surrounding spaces (names come from API clients).
 */
export function isPlainFileName(name: string, extension: string): boolean {
  return (
    name !== '' &&
    name === name.trim() &&
    !/[/\\\p{Cc}]/u.test(name) &&
    !name.includes('..') &&
    name.toLowerCase().endsWith(extension)
  );
}

/**
 * A name from outside (an uploaded file's name, a name in a request) as a message may show it:
 * without control, format (bidirectional overrides, zero-width characters) or line-separator
 * characters — which could reorder or hide what the student reads — and at most `maxLength`
 * characters.
 *
 * @example
 * displayName('report\u202Etxt.exe'); // 'reporttxt.exe'
 */
export function displayName(name: string, maxLength = 120): string {
  const clean = name.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu, '');
  const characters = Array.from(clean);
  return characters.length > maxLength ? `${characters.slice(0, maxLength).join('')}…` : clean;
}
