import { describe, expect, it } from 'vitest';
import { looksLikeJson, partialJsonStrings } from './partial-json.ts';

const ANSWER =
  '{"question": "删除节点要改几个指针？", "context": "双向链表\\n删除", "answer": "两个：\\"next\\" 和 prev \\u2714"}';
const KEYS = ['question', 'context', 'answer'];

describe('partialJsonStrings', () => {
  it('reads every field of a finished answer, escapes included', () => {
    expect(partialJsonStrings(ANSWER, KEYS)).toEqual(JSON.parse(ANSWER));
  });

  it('shows each field as far as it has been written, at every cut', () => {
    for (let cut = 0; cut <= ANSWER.length; cut++) {
      const fields = partialJsonStrings(ANSWER.slice(0, cut), KEYS);
      for (const key of KEYS) {
        const value = fields[key];
        if (value !== undefined)
          expect((JSON.parse(ANSWER) as Record<string, string>)[key]).toContain(value);
      }
    }
    expect(partialJsonStrings('{"question": "删除节点要', KEYS)).toEqual({
      question: '删除节点要',
    });
    expect(partialJsonStrings('{"question": "a\\', KEYS)).toEqual({ question: 'a' });
  });

  it('tells a JSON answer (also fenced) from plain text', () => {
    expect(looksLikeJson('  {"question"')).toBe(true);
    expect(looksLikeJson('```json\n{')).toBe(true);
    expect(looksLikeJson('老师问的是')).toBe(false);
  });
});
