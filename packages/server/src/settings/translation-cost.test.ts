import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { assetPath } from '../assets.ts';
import { costLabel, estimateTokensPerHour, REQUEST_OVERHEAD_TOKENS } from './translation-cost.ts';

/** About one token a Chinese character (or full-width mark), one per four other characters. */
function roughTokens(text: string): number {
  const wide = text.match(/[\p{Script=Han}\u3000-\u303f\uff00-\uffef]/gu)?.length ?? 0;
  return wide + (text.length - wide) / 4;
}

describe('the cost of translated captions', () => {
  it('estimates tokens per class hour for each language, as the settings show it', () => {
    expect(estimateTokensPerHour('en')).toBe(115_000);
    expect(estimateTokensPerHour('zh')).toBe(174_000);
    expect(costLabel('en')).toEqual({
      zh: '约 11.5 万 tokens / 课时（每小时课堂的估计用量）',
      en: 'about 115k tokens per class hour (estimate)',
    });
  });

  it('counts what every request repeats: the bundled prompt and a full glossary fit the overhead', async () => {
    const prompt = await readFile(assetPath('prompts/translate.md'), 'utf8');
    // The translator's glossary holds at most the name, a few keywords and 40 material terms.
    const glossary = Array.from({ length: 44 }, (_, index) => `term${index}`).join('、');
    const frame = `【目标语言】英语（English）\n\n【保持原样的词】${glossary}\n【待翻译，共 2 行】\n1. \n2. `;
    // Chat framing: a few tokens per message.
    const tokens = roughTokens(prompt) + roughTokens(frame) + 12;
    expect(tokens).toBeLessThanOrEqual(REQUEST_OVERHEAD_TOKENS);
  });
});
