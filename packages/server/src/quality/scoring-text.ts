/**
 * How a reference and a recognised text are made comparable before counting errors, and how
 * they are cut into the units an error rate counts.
 *
 * Normalisation (both sides alike): NFKC, so full-width letters, digits and punctuation become
 * their half-width forms (`ＡＢＣ１２` → `abc12`, `，` → `,`); case folded; apostrophes inside
 * words dropped (`don't` → `dont`, as recognisers spell it either way); every other punctuation
 * mark and symbol, ASCII or CJK (`。，、「」《》！？` …), becomes a space; whitespace collapsed; and
 * no space left next to a CJK character (`今天 我们` → `今天我们`).
 *
 * Tokens: every CJK character (Han, kana, Hangul) is one token; every run of other letters and
 * digits (a Latin word, a number) is one token. So a Chinese text is scored per character (CER),
 * an English one per word (WER), and in mixed text `我们用python写代码` is 7 tokens: 我 们 用
 * python 写 代 码 — an English word counts once, like one character, not once per letter.
 */

const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}';
const APOSTROPHE_IN_WORD = /(?<=[\p{L}\p{N}])['’](?=[\p{L}\p{N}])/gu;
const PUNCTUATION_OR_SYMBOL = /[\p{P}\p{S}]+/gu;
const SPACE_NEXT_TO_CJK = new RegExp(`\\s+(?=[${CJK}])|(?<=[${CJK}])\\s+`, 'gu');
const TOKEN = new RegExp(`[${CJK}]|[^\\s${CJK}]+`, 'gu');

/**
 * The scoring form of a text (see the module comment).
 *
 * @example
 * normalizeForScoring('今天 我们讲，Binary Tree！'); // '今天我们讲binary tree'
 * normalizeForScoring('ＧＯＯＤ　ｍｏｒｎｉｎｇ。');   // 'good morning'
 */
export function normalizeForScoring(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(APOSTROPHE_IN_WORD, '')
    .replace(PUNCTUATION_OR_SYMBOL, ' ')
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(SPACE_NEXT_TO_CJK, '');
}

/**
 * The tokens an error rate counts: each CJK character, and each word or number of other
 * scripts, of the normalised text.
 *
 * @example
 * scoringTokens('我们用 Python 写代码。'); // ['我','们','用','python','写','代','码']
 */
export function scoringTokens(text: string): string[] {
  return normalizeForScoring(text).match(TOKEN) ?? [];
}
