// pinyin-pro, loaded the first time homophone matching needs it. It is the largest part of this
// package (its dictionaries take tens of milliseconds to load and several MB of memory), and a
// program that keeps homophones off, or has not started a class yet, should not pay for it.
import { createRequire } from 'node:module';
import type { pinyin, polyphonic } from 'pinyin-pro';
import { TranscriptCoreError } from './errors.ts';

/** The two pinyin-pro functions homophone matching uses. */
export interface PinyinPro {
  pinyin: typeof pinyin;
  polyphonic: typeof polyphonic;
}

let loaded: PinyinPro | null = null;
let loading: Promise<void> | null = null;

/**
 * Loads what homophone matching needs (the pinyin-pro dictionaries) without blocking the event
 * loop. Await it before `createKeywordMatcher(…, { homophones: 'pinyin' | 'fuzzy-pinyin' })` in a
 * server; without it, the first such matcher loads them synchronously, which Node does but a
 * bundle that inlines its dependencies (esbuild, a single executable) cannot. Calling it again
 * is free.
 *
 * @example
 * await loadHomophoneSupport();
 * const matcher = createKeywordMatcher(keywords, { homophones: 'pinyin' });
 */
export function loadHomophoneSupport(): Promise<void> {
  loading ??= import('pinyin-pro').then(
    (module) => {
      loaded = { pinyin: module.pinyin, polyphonic: module.polyphonic };
    },
    (error: unknown) => {
      loading = null;
      throw unavailable(error);
    },
  );
  return loading;
}

/** True once {@link loadHomophoneSupport} has finished (or a matcher has loaded it). */
export function isHomophoneSupportLoaded(): boolean {
  return loaded !== null;
}

/** pinyin-pro, loaded synchronously when {@link loadHomophoneSupport} did not run. */
export function pinyinPro(): PinyinPro {
  if (loaded) return loaded;
  try {
    const module = createRequire(import.meta.url)('pinyin-pro') as PinyinPro;
    loaded = { pinyin: module.pinyin, polyphonic: module.polyphonic };
  } catch (error) {
    throw unavailable(error);
  }
  return loaded;
}

function unavailable(cause: unknown): TranscriptCoreError {
  return new TranscriptCoreError(
    'TRANSCRIPT_HOMOPHONES_UNAVAILABLE',
    `homophone matching needs pinyin-pro, which could not be loaded (${cause instanceof Error ? cause.message : String(cause)}); in a bundle, await loadHomophoneSupport() before creating a matcher with homophones`,
    { cause },
  );
}
