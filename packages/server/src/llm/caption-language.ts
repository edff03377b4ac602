// Whether a line needs translating into the student's language: a Chinese line is not sent for
// Chinese captions, nor an English one for English captions; a line mixing both (a Chinese
// sentence around English terms, say) is translated, and a line of neither (numbers, a marker of
// a gap) is not.
import type { CaptionLanguage } from '../settings/translation-cost.ts';

const HAN = /\p{Script=Han}/gu;
const LATIN = /[A-Za-z]/g;
/** The marker line of a gap in a class (`—— 中断 12 秒 ——`): no speech to translate. */
const GAP_MARKER = /^—— .* ——$/;

/**
 * True when `text` should be translated into `target`: it holds words of another language than
 * the target. A line counts as Chinese when at least four in five of its letters are Chinese
 * characters, as English when it has no Chinese character.
 *
 * @example
 * needsTranslation('我们今天讲链表', 'zh') // false
 * needsTranslation('我们今天讲 binary search tree', 'zh') // true (mixed)
 * needsTranslation('Today we talk about stacks.', 'en') // false
 */
export function needsTranslation(text: string, target: CaptionLanguage): boolean {
  if (GAP_MARKER.test(text.trim())) return false;
  const han = text.match(HAN)?.length ?? 0;
  const latin = text.match(LATIN)?.length ?? 0;
  if (han + latin === 0) return false;
  const chinese = han > 0 && han / (han + latin) >= 0.8;
  const english = han === 0;
  return target === 'zh' ? !chinese : !english;
}
