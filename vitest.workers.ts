import { availableParallelism } from 'node:os';

/**
 * How many test files of a project run at a time. Each project resolves its own maxWorkers (the
 * root's is not inherited), and vitest's default, cores - 1, is one on a 2-core machine: every
 * file then ran alone while its backend, Chromium or recognizer left the other core idle. Every
 * project of the default group must say the same number.
 */
export const TEST_WORKERS = Math.max(2, availableParallelism() - 1);
