import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './markdown.ts';

describe('renderMarkdown', () => {
  it('renders what notes and answers use: headings from h3, nested lists, tables, code', () => {
    const html = renderMarkdown(
      [
        '# 数据结构 课堂笔记',
        '## 要点',
        '- **循环队列**：`(rear+1)%n == front` 判满',
        '  - 队空：`rear == front`',
        '  1. 先判满',
        '- 栈 *后进先出*',
        '',
        '| 结构 | 入 | 出 |',
        '|---|---|---|',
        '| 栈 | push | pop |',
        '| 队列 | enqueue | dequeue |',
        '',
        '```c',
        'if (a < b) return;',
        '```',
      ].join('\n'),
    );
    expect(html).toContain('<h3>数据结构 课堂笔记</h3>');
    expect(html).toContain('<h4>要点</h4>');
    expect(html).toMatch(
      /<li><strong>循环队列<\/strong>：<code>\(rear\+1\)%n == front<\/code> 判满\n<ul>\n<li>队空：<code>rear == front<\/code><\/li>\n<\/ul>\n<ol>\n<li>先判满<\/li>/,
    );
    expect(html).toContain('<th>结构</th>');
    expect(html).toContain('<td>队列</td>\n<td>enqueue</td>');
    expect(html).toContain('<pre><code class="language-c">if (a &lt; b) return;\n</code></pre>');
  });

  it('keeps links and images whose address holds parentheses whole', () => {
    const html = renderMarkdown(
      '见 [堆](https://en.wikipedia.org/wiki/Heap_(data_structure)) 和 ![图](https://example.edu/heap_(1).png)',
    );
    expect(html).toContain(
      '<a href="https://en.wikipedia.org/wiki/Heap_(data_structure)" target="_blank" rel="noopener noreferrer">堆</a>',
    );
    expect(html).toContain(
      '<img src="https://example.edu/heap_(1).png" alt="图" loading="lazy" referrerpolicy="no-referrer">',
    );
  });

  it('lets no script, event handler or dangerous link through', () => {
    const hostile = [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      '<a href="javascript:alert(1)">a</a>',
      '[b](javascript:alert(1))',
      '[c](JaVaScRiPt:alert(1))',
      '[d](&#x6A;avascript:alert(1))',
      '[e](java%73cript:alert(1))',
      '[f](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
      '[g](vbscript:msgbox(1))',
      '[h](file:///etc/passwd)',
      '<javascript:alert(1)>',
      '![i](javascript:alert(1))',
      '![j](data:image/svg+xml,<svg onload=alert(1)>)',
      '[k][ref]',
      '',
      '[ref]: javascript:alert(1)',
      '`<b onclick=x>`',
      '<div onmouseover="alert(1)">hover</div>',
    ].join('\n\n');
    const html = renderMarkdown(hostile);
    expect(html).not.toMatch(
      /<script|<img(?![^>]*src="https?:)|<a [^>]*href="(?!https?:|mailto:)/i,
    );
    expect(html).not.toMatch(/<[a-z]+[^>]*\son[a-z]+=/i);
    expect(html).not.toMatch(/href="[^"]*(javascript|vbscript|data:|file:)/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('<code>&lt;b onclick=x&gt;</code>');
  });

  it('renders a half-written answer as far as it goes', () => {
    expect(renderMarkdown('### 现在讲到\n- 循环队')).toBe(
      '<h5>现在讲到</h5>\n<ul>\n<li>循环队</li>\n</ul>\n',
    );
    expect(renderMarkdown('| a | b |\n|---|')).toContain('a');
    expect(renderMarkdown('```\nunfinished')).toBe('<pre><code>unfinished</code></pre>\n');
    expect(renderMarkdown('')).toBe('');
  });
});
