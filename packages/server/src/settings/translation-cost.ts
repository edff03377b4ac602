/**
 * What translated captions (TRANSLATE_CAPTIONS) cost per class hour, in LLM tokens (input +
 * output), from the assumptions below. The settings form shows it under the switch (the help of
 * each choice), so a student knows the price before turning it on.
 *
 * Assumptions, stated so they can be checked:
 * - a Chinese lecture is spoken at about 200 characters a minute (12,000 an hour) in lines of
 *   about 34 characters (the bundled mock lecture's Chinese lines average 33.6), so ~350 lines
 *   an hour; an English one at about 140 words a minute (8,400 words, ~11,000 tokens an hour) in
 *   lines of ~15 words, ~560 lines an hour;
 * - a Chinese character is about one token, an English word about 1.3;
 * - translated, 1,000 Chinese characters become ~800 English tokens; 1,000 English words become
 *   ~1,600 Chinese characters;
 * - lines come one every few seconds, so most requests carry one or two lines: one request per
 *   1.5 lines on average, each repeating the instructions and the glossary
 *   ({@link REQUEST_OVERHEAD_TOKENS}; the caption translator's test checks the bundled prompt
 *   stays within it).
 */

/** The languages captions are translated into. */
export type CaptionLanguage = 'zh' | 'en';

/** Tokens each request repeats: the instructions, the glossary, the numbering and the roles. */
export const REQUEST_OVERHEAD_TOKENS = 400;

/** The lecture heard in an hour and the translation of it, in tokens, by target language. */
const HOUR = {
  // Into English: a Chinese lecture.
  en: { lines: 350, input: 12_000, output: 9_600 },
  // Into Chinese: an English lecture.
  zh: { lines: 560, input: 11_000, output: 13_400 },
} as const satisfies Record<CaptionLanguage, { lines: number; input: number; output: number }>;

/** Lines per request, on average. */
const LINES_PER_REQUEST = 1.5;

/**
 * The estimated tokens (input + output) of one class hour translated into `target`, rounded to
 * thousands.
 *
 * @example
 * estimateTokensPerHour('en') // 115000
 */
export function estimateTokensPerHour(target: CaptionLanguage): number {
  const hour = HOUR[target];
  const requests = hour.lines / LINES_PER_REQUEST;
  const total = hour.input + hour.output + requests * REQUEST_OVERHEAD_TOKENS;
  return Math.round(total / 1000) * 1000;
}

/** "约 11.5 万 tokens / 课时…" and "about 115k tokens per class hour…". */
export function costLabel(target: CaptionLanguage): { zh: string; en: string } {
  const tokens = estimateTokensPerHour(target);
  const wan = Math.round(tokens / 1000) / 10;
  return {
    zh: `约 ${wan} 万 tokens / 课时（每小时课堂的估计用量）`,
    en: `about ${Math.round(tokens / 1000)}k tokens per class hour (estimate)`,
  };
}
