import { describe, expect, it } from 'vitest';
import { createPageTracker, materialPageList } from './page-tracker.ts';

const DECK = [
  '--- 第 1 页 ---\n栈 Stack\n后进先出 LIFO，只在栈顶 push 和 pop\n',
  '--- 第 2 页 ---\n队列 Queue\n先进先出 FIFO，队头出队，队尾入队\n',
  '--- 第 3 页 ---\n循环队列\n取模回绕，判满时牺牲一个单元\n',
  '--- 第 4 页 ---\n二叉树 Binary tree\n左子树与右子树，满二叉树和完全二叉树\n',
].join('\n');

/** Pushes lines 8 s apart and answers the page after each. */
function walk(material: string, lines: string[]): Array<number | null> {
  const tracker = createPageTracker(material);
  return lines.map((line, index) => tracker.push(line, index * 8000).page);
}

describe('createPageTracker', () => {
  it('follows the teacher forward through the deck, page by page', () => {
    expect(
      walk(DECK, [
        '今天先讲栈，栈顶这个位置很重要',
        '后进先出，也就是 LIFO',
        '接下来是队列，先进先出',
        '出队在队头，入队在队尾',
        '那循环队列怎么判满呢',
        '要取模，还要牺牲一个单元',
      ]),
    ).toEqual([1, 1, 2, 2, 3, 3]);
  });

  it('is null before any line matches a page, then keeps the page through asides', () => {
    expect(
      walk(DECK, [
        '大家好，今天人来得挺齐',
        '我们先讲栈，后进先出',
        '后面的同学安静一点',
        '投影有点暗，我调一下',
        'push 和 pop 都在栈顶',
      ]),
    ).toEqual([null, 1, 1, 1, 1]);
  });

  it('does not jump back on one passing mention, but goes back when the teacher stays there', () => {
    const lines = [
      '循环队列要取模',
      '判满的时候牺牲一个单元',
      '这和栈的后进先出不一样',
      '循环队列的取模大家记住',
    ];
    expect(walk(DECK, lines)).toEqual([3, 3, 3, 3]);
    expect(
      walk(DECK, [
        '循环队列要取模',
        '判满的时候牺牲一个单元',
        '回到栈，后进先出',
        '栈顶 push 和 pop',
      ]),
    ).toEqual([3, 3, 3, 1]);
  });

  it('works for a deck in English only', () => {
    const deck =
      '--- 第 1 页 ---\nSorting\nBubble sort swaps neighbours\n\n--- 第 2 页 ---\nQuicksort\nPick a pivot and partition\n\n--- 第 3 页 ---\nMerge sort\nSplit in halves, merge the sorted halves\n';
    expect(
      walk(deck, [
        'Bubble sort keeps swapping neighbours',
        'Now quicksort: choose a pivot',
        'partition around the pivot',
        'merge sort splits the list in halves',
      ]),
    ).toEqual([1, 2, 2, 3]);
  });

  it('gives no page without material, or for material without page markers', () => {
    expect(walk('', ['后进先出'])).toEqual([null]);
    expect(walk('栈：后进先出，栈顶 push 和 pop', ['后进先出'])).toEqual([null]);
  });

  it('starts from a given page after a gap', () => {
    const tracker = createPageTracker(DECK);
    tracker.resume(3);
    expect(tracker.push('后面的同学安静一点', 0)).toEqual({ page: 3, changed: false });
    expect(tracker.push('二叉树分左子树和右子树', 8000)).toEqual({ page: 4, changed: true });
  });
});

describe('materialPageList', () => {
  it('numbers the pages by their markers and titles them by their first line', () => {
    const pages = materialPageList(
      `--- 第 1 页 ---\n\n  栈 Stack  \n后进先出\n\n--- 第 2 页 ---\n${'长'.repeat(60)}\n`,
    );
    expect(pages.map(({ page, title }) => ({ page, title }))).toEqual([
      { page: 1, title: '栈 Stack' },
      { page: 2, title: `${'长'.repeat(39)}…` },
    ]);
    expect(pages[0]!.text).toBe('栈 Stack  \n后进先出');
  });
});
