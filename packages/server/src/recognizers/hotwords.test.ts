import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildHotwordsContext,
  checkHotwordLimit,
  estimateTokens,
} from '@class-assistant/asr-protocol';
import { describe, expect, it } from 'vitest';
import { classHotwords, extractMaterialTerms, fitHotwords } from './hotwords.ts';

const MATERIAL = `--- 第 1 页 ---
第三章 二叉搜索树
二叉搜索树是一种特殊的二叉树。
在二叉搜索树中，左子树的所有节点都小于根节点。
--- 第 2 页 ---
二叉搜索树的查找
查找操作从根节点开始，比较关键字，时间复杂度为 O(log n)。
平衡二叉树（AVL Tree）保证查找的时间复杂度。
--- 第 3 页 ---
AVL Tree 与红黑树
红黑树 (Red-Black Tree) 用颜色维持平衡；Java 的 TreeMap 就是红黑树。
插入以后需要旋转：左旋和右旋。左旋的例子见下页。
--- 第 4 页 ---
Dijkstra 算法
Dijkstra 用 priority queue 求最短路径。TCP 的路由也用到最短路径。
`;

describe('extractMaterialTerms', () => {
  const terms = extractMaterialTerms(MATERIAL);

  it('finds the repeated Chinese terms whole, not their fragments', () => {
    expect(terms).toContain('二叉搜索树');
    expect(terms).toContain('红黑树');
    expect(terms).toContain('时间复杂度');
    expect(terms).toContain('最短路径');
    expect(terms).not.toContain('叉搜索');
    expect(terms).not.toContain('搜索树');
    expect(terms.some((term) => term.startsWith('的') || term.endsWith('的'))).toBe(false);
  });

  it('finds acronyms, names and capitalised technical terms', () => {
    expect(terms).toContain('AVL Tree');
    expect(terms).toContain('Dijkstra');
    expect(terms).toContain('TreeMap');
    expect(terms).toContain('TCP');
    expect(terms).not.toContain('the');
  });

  it('ranks the slide-title term of the lecture before one-off words', () => {
    expect(terms.indexOf('二叉搜索树')).toBeLessThan(terms.indexOf('TCP'));
    expect(terms.indexOf('二叉搜索树')).toBeLessThan(5);
  });

  it('returns nothing for no material', () => {
    expect(extractMaterialTerms('')).toEqual([]);
  });
});

describe('fitHotwords', () => {
  it('keeps words in order within 100 estimated tokens, skipping repeats', () => {
    const words = [
      '张三',
      '张三',
      ...extractMaterialTerms(MATERIAL),
      ...Array(80).fill('光合作用'),
    ];
    const fitted = fitHotwords(words, { tokens: 100 });
    expect(fitted[0]).toBe('张三');
    expect(fitted.filter((word) => word === '张三')).toHaveLength(1);
    const total = fitted.reduce((sum, word) => sum + estimateTokens(word), 0);
    expect(total).toBeLessThanOrEqual(100);
    // What it keeps passes the protocol library's own limit check.
    expect(checkHotwordLimit(buildHotwordsContext(fitted), 'bigmodel_async')).toBeUndefined();
  });

  it('counts words on nostream', () => {
    const words = Array.from({ length: 6000 }, (_, index) => `term${index}`);
    expect(fitHotwords(words, { words: 5000 })).toHaveLength(5000);
  });
});

describe('classHotwords', () => {
  it("puts the student's own keywords first, without the built-in alert words", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'hotwords-'));
    try {
      await writeFile(join(dataDir, 'current_class_material.txt'), MATERIAL);
      const words = await classHotwords(dataDir, ['点名', '李小明', 'homework', 'Wang Fang']);
      expect(words.slice(0, 2)).toEqual(['李小明', 'Wang Fang']);
      expect(words).not.toContain('点名');
      expect(words).toContain('二叉搜索树');
      expect(await classHotwords(join(dataDir, 'missing'), [])).toEqual([]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
