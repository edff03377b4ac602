import { describe, expect, it } from 'vitest';
import { parseEnv, serializeEnv } from './env-file.ts';
import { extraLinesOf, mergeExtraLines, serializeLines } from './extra-lines.ts';

describe('extra lines', () => {
  const file = '# 语音识别\nASR_MODE=mock\n# my notes\nMY_KEY=1\nLLM_MODEL=gpt\n';

  it('are every line that is not a main key', () => {
    expect(serializeLines(extraLinesOf(parseEnv(file)))).toBe('# 语音识别\n# my notes\nMY_KEY=1\n');
  });

  it('merge back with each main key still after the line it followed', () => {
    const edited = parseEnv('# 语音识别 (speech)\n# my notes\nMY_KEY=2\nOTHER=3\n');
    expect(serializeEnv(mergeExtraLines(parseEnv(file), edited))).toBe(
      '# 语音识别 (speech)\nASR_MODE=mock\n# my notes\nMY_KEY=2\nLLM_MODEL=gpt\nOTHER=3\n',
    );
  });
});
