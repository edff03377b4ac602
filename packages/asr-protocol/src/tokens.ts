// The protocol limits hot words (100 tokens on the bidirectional endpoints) and dialog context
// (800 tokens) in "tokens" without publishing the tokenizer. This estimate leans high, so that
// text it accepts is within the service's limit:
// - each CJK character (Han, Hiragana, Katakana, Hangul) is one token;
// - each run of other letters, digits and combining marks is ceil(length / 4) tokens
//   (a subword tokenizer splits long Latin words; 4 characters per token is the usual average);
// - each other visible character (punctuation, symbols) is one token; whitespace is none.

const CJK_SCRIPTS = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
const CJK = new RegExp(`^[${CJK_SCRIPTS}]$`, 'u');
const WORD = /^[\p{L}\p{N}\p{M}]/u;
// One CJK character | a run of non-CJK letters, digits and marks | any other visible character.
const PIECES = new RegExp(
  `[${CJK_SCRIPTS}]|(?:(?![${CJK_SCRIPTS}])[\\p{L}\\p{N}\\p{M}])+|\\S`,
  'gu',
);

/**
 * Estimates the service's token count of `text` (see the rules above; errs on the high side).
 *
 * @example
 * estimateTokens('光合作用'); // 4
 * estimateTokens('photosynthesis in plants'); // 4 + 1 + 2 = 7
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  for (const match of text.matchAll(PIECES)) {
    const piece = match[0];
    tokens += CJK.test(piece) || !WORD.test(piece) ? 1 : Math.ceil([...piece].length / 4);
  }
  return tokens;
}
