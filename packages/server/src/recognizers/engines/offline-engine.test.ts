import { describe, expect, it } from 'vitest';
import { createQueuedEngine, normalizeRecognizedText } from './offline-engine.ts';
import { voskResultText } from './vosk-engine.ts';

describe('normalizeRecognizedText', () => {
  it('joins the words of Chinese models and keeps spaces between Latin words', () => {
    expect(normalizeRecognizedText(' 今天 我们 讲  二叉树 ')).toBe('今天我们讲二叉树');
    expect(normalizeRecognizedText('today  we talk')).toBe('today we talk');
    expect(normalizeRecognizedText('我们 用 python 写 代码')).toBe('我们用 python 写代码');
  });
});

describe('voskResultText', () => {
  it("reads Vosk's result JSON", () => {
    expect(voskResultText('{\n  "text" : "同学们 好"\n}')).toBe('同学们好');
    expect(voskResultText('{"text": ""}')).toBe('');
    expect(voskResultText(null)).toBe('');
    expect(voskResultText('not json')).toBe('');
  });
});

describe('createQueuedEngine', () => {
  it('decodes one phrase at a time, in order; close() frees after the queued phrases', async () => {
    const log: string[] = [];
    let running = 0;
    const engine = createQueuedEngine(
      'test',
      'detail',
      async (samples) => {
        running += 1;
        expect(running).toBe(1);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
        log.push(`decode ${samples.length}`);
        return String(samples.length);
      },
      () => log.push('free'),
    );
    const results = Promise.all([
      engine.transcribe(new Int16Array(3)),
      engine.transcribe(new Int16Array(0)),
      engine.transcribe(new Int16Array(5)),
    ]);
    engine.close();
    expect(await results).toEqual(['3', '', '5']);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(log).toEqual(['decode 3', 'decode 5', 'free']);
    await expect(engine.transcribe(new Int16Array(1))).rejects.toThrow('closed');
  });
});
