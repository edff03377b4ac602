import { describe, expect, it } from 'vitest';
import { captionGlossary } from './caption-glossary.ts';

describe('captionGlossary', () => {
  it('keeps the name, the keywords and the material’s Latin words and frequent Chinese terms', () => {
    const material = [
      '--- 第 1 页 ---',
      '循环队列：用数组实现队列。循环队列的队头 front 和队尾 rear。',
      '判断循环队列是否已满：(rear + 1) % size == front。',
      '入栈 push，出栈 pop。栈顶指针 top。Last in, first out (LIFO).',
    ].join('\n');
    const glossary = captionGlossary({
      studentName: ' 王小明 ',
      keywords: ['双向链表', ''],
      material,
    });
    expect(glossary.slice(0, 2)).toEqual(['王小明', '双向链表']);
    expect(glossary).toEqual(
      expect.arrayContaining(['front', 'rear', 'push', 'pop', 'LIFO', '循环队列']),
    );
    // Short or common words are no terms; a term held by a longer one as frequent is left out.
    expect(glossary).not.toContain('in');
    expect(glossary).not.toContain('the');
    expect(glossary).not.toContain('循环');
  });

  it('is empty without any source', () => {
    expect(captionGlossary({ studentName: '', keywords: [], material: '' })).toEqual([]);
  });
});
