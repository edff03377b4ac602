/**
 * Hot words for a sherpa-onnx streaming transducer (contextual biasing with modified beam
 * search). sherpa-onnx reads a file of one phrase per line and cuts each phrase into the model's
 * tokens itself, by the model's modelling unit: `cjkchar` (one token per Chinese character, an
 * English word a token of its own) or `cjkchar+bpe` (Chinese characters, English words through
 * the model's bpe.vocab). A phrase with a piece the model has no token for would be dropped by
 * the engine with a line on stderr; this module keeps only phrases the model can spell, so the
 * count the class reports is the count the engine uses.
 */

/** The modelling unit of a transducer folder: with a bpe.vocab, English goes through BPE. */
export type SherpaModelingUnit = 'cjkchar' | 'cjkchar+bpe';

/** The token set of a tokens.txt (`<token> <id>` per line). */
export function readTokens(text: string): Set<string> {
  const tokens = new Set<string>();
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === '') continue;
    const space = trimmed.lastIndexOf(' ');
    tokens.add(space > 0 ? trimmed.slice(0, space) : trimmed);
  }
  return tokens;
}

const LATIN = /[A-Za-z]/;
const LATIN_RUN = /^[\x21-\x7e]+$/;

/**
 * The pieces sherpa-onnx cuts a word into under `cjkchar`: one per non-ASCII character, runs of
 * ASCII kept whole.
 */
function cjkcharPieces(word: string): string[] {
  const pieces: string[] = [];
  let ascii = '';
  for (const char of word) {
    if (LATIN_RUN.test(char)) {
      ascii += char;
      continue;
    }
    if (ascii !== '') pieces.push(ascii);
    ascii = '';
    pieces.push(char);
  }
  if (ascii !== '') pieces.push(ascii);
  return pieces;
}

/** The hot words a model can use, and the file text sherpa-onnx reads. */
export interface SherpaHotwords {
  /** The phrases kept, as written to the file. */
  phrases: string[];
  /** The hot-words file: one phrase per line. */
  text: string;
}

/**
 * The hot words of a class that a transducer can spell with its tokens, at most `limit`:
 * English is upper-cased when the model's English tokens are (the bilingual zh-en models are).
 *
 * @example
 * sherpaHotwords(['链表', 'pointer'], readTokens(tokensTxt), 'cjkchar+bpe').phrases; // ['链表', 'POINTER']
 */
export function sherpaHotwords(
  words: readonly string[],
  tokens: ReadonlySet<string>,
  unit: SherpaModelingUnit,
  limit = 200,
): SherpaHotwords {
  let upper = 0;
  let lower = 0;
  for (const token of tokens) {
    // <blk>, <unk>, <sos/eos> say nothing about the case of the model's words.
    if (!LATIN.test(token) || token.startsWith('<')) continue;
    if (token === token.toUpperCase()) upper += 1;
    else if (token === token.toLowerCase()) lower += 1;
  }
  const upperCase = upper > lower;
  const phrases: string[] = [];
  const seen = new Set<string>();
  for (const raw of words) {
    const phrase = raw.replace(/\s+/g, ' ').trim();
    const written = upperCase ? phrase.toUpperCase() : phrase;
    if (written === '' || seen.has(written) || written.includes(':')) continue;
    const spelled = written
      .split(' ')
      .flatMap(cjkcharPieces)
      .every((piece) =>
        // With BPE, English words are cut by the model's own vocabulary and always spell.
        unit === 'cjkchar+bpe' && LATIN_RUN.test(piece) ? true : tokens.has(piece),
      );
    if (!spelled) continue;
    seen.add(written);
    phrases.push(written);
    if (phrases.length >= limit) break;
  }
  return { phrases, text: phrases.map((phrase) => `${phrase}\n`).join('') };
}
