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
