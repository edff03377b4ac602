import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BUNDLED_MOCK_SCRIPT, createMockRecognizer, parseMockScript } from './mock-recognizer.ts';
import type { RecognizerEvent } from './recognizer.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('parseMockScript', () => {
  it('skips comments and blank lines and trims', () => {
    expect(parseMockScript('# title\n\n  first line  \r\nsecond\n# note\n')).toEqual([
      'first line',
      'second',
    ]);
  });

  it('ships a bilingual lecture with a roll call and a homework line', async () => {
    const lines = parseMockScript(await readFile(BUNDLED_MOCK_SCRIPT, 'utf8'));
    expect(lines.length).toBeGreaterThan(20);
    expect(lines.some((line) => line.includes('点名'))).toBe(true);
    expect(lines.some((line) => line.includes('作业') && line.includes('deadline'))).toBe(true);
    expect(lines.some((line) => /^[A-Z][a-z]/.test(line))).toBe(true);
  });
});

describe('createMockRecognizer', () => {
  it('speaks one line per interval with a partial half-way, and ends', async () => {
    const events: RecognizerEvent[] = [];
    const recognizer = createMockRecognizer(
      { emit: (event) => events.push(event) },
      { lines: ['第一句话比较长一些', 'ok'], intervalMs: 1000, loop: false },
    );
    await recognizer.start();
    vi.advanceTimersByTime(499);
    expect(events).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(events).toEqual([{ type: 'partial', text: '第一句话比' }]);
    vi.advanceTimersByTime(500);
    expect(events.at(-1)).toEqual({ type: 'text', text: '第一句话比较长一些' });
    vi.advanceTimersByTime(1000);
    expect(events.slice(2)).toEqual([
      { type: 'text', text: 'ok' },
      { type: 'end', reason: 'the mock script is over' },
    ]);
  });

  it('keeps its place across pause and resume, loops, and is silent after stop', async () => {
    const events: RecognizerEvent[] = [];
    const texts = () => events.filter((event) => event.type === 'text').map((event) => event.text);
    const recognizer = createMockRecognizer(
      { emit: (event) => events.push(event) },
      { lines: ['a1', 'b2', 'c3'], intervalMs: 100, loop: true },
    );
    await recognizer.start();
    vi.advanceTimersByTime(100);
    await recognizer.pause();
    vi.advanceTimersByTime(1000);
    expect(texts()).toEqual(['a1']);
    await recognizer.resume();
    vi.advanceTimersByTime(300);
    expect(texts()).toEqual(['a1', 'b2', 'c3', 'a1']);
    await recognizer.stop();
    vi.advanceTimersByTime(1000);
    expect(texts()).toHaveLength(4);
    await recognizer.resume();
    vi.advanceTimersByTime(1000);
    expect(texts()).toHaveLength(4);
  });
});
