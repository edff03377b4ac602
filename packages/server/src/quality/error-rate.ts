/**
 * Character and word error rates of recognised text against a reference: the edits (see
 * edit-distance.ts) per reference token (see scoring-text.ts for the normalisation and the
 * tokens). Chinese is scored as CER, English as WER; the tokens are the same rule for both (a
 * CJK character or a word of another script each count as one).
 */
import { type EditCounts, editCounts } from './edit-distance.ts';
import { scoringTokens } from './scoring-text.ts';

/** `cer` for Chinese, `wer` for English. */
export type ErrorMetric = 'cer' | 'wer';

/** The metric that fits a class language. */
export function metricOf(language: 'zh' | 'en'): ErrorMetric {
  return language === 'zh' ? 'cer' : 'wer';
}

/** The edits of one text against its reference, and the rate. */
export interface ErrorRate extends EditCounts {
  /** Tokens of the reference (the denominator). */
  referenceTokens: number;
  /**
   * edits / referenceTokens. An empty reference counts as one token: 0 when the hypothesis is
   * empty too, else the number of inserted tokens.
   */
  rate: number;
}

/**
 * Scores `hypothesis` against `reference`.
 *
 * @example
 * errorRate('今天讲二叉树。', '今天讲二茶树').rate; // 1/6 (one character of six)
 * errorRate('good morning everyone', 'good morning every one').rate; // 2/3 (1 sub + 1 ins)
 */
export function errorRate(reference: string, hypothesis: string): ErrorRate {
  const expected = scoringTokens(reference);
  const counts = editCounts(expected, scoringTokens(hypothesis));
  return {
    ...counts,
    referenceTokens: expected.length,
    rate: counts.edits / Math.max(1, expected.length),
  };
}

/** The rate of several texts together: their edits over their reference tokens. */
export function combinedRate(
  rates: readonly Pick<ErrorRate, 'edits' | 'referenceTokens'>[],
): number {
  let edits = 0;
  let tokens = 0;
  for (const rate of rates) {
    edits += rate.edits;
    tokens += rate.referenceTokens;
  }
  return edits / Math.max(1, tokens);
}

/**
 * How much worse the live pipeline recognises than the engine alone: pipeline rate / engine
 * rate. Both perfect (0/0) is 1 (no worse); an engine without an error and a pipeline with some
 * (x/0) has no finite ratio: null.
 *
 * @example
 * pipelineToEngine(0.2, 0.1); // 2
 * pipelineToEngine(0, 0);     // 1
 * pipelineToEngine(0.1, 0);   // null
 */
export function pipelineToEngine(pipelineRate: number, engineRate: number): number | null {
  if (engineRate === 0) return pipelineRate === 0 ? 1 : null;
  return pipelineRate / engineRate;
}
