import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './markdown.ts';

describe('renderMarkdown', () => {
  it('renders the notes format: headings from h3, lists, emphasis, code and links', () => {
    expect(
      renderMarkdown(
        '# 数据结构 课堂笔记\n\n## 要点\n- **循环队列**：`(rear+1)%n == front` 判满\n- 栈 *后进先出*\n\n1. 作业\n2. 考试\n\n见 [讲义](https://example.edu/ds)',
      ),
    ).toBe(
      '<h3>数据结构 课堂笔记</h3><h4>要点</h4><ul><li><strong>循环队列</strong>：<code>(rear+1)%n == front</code> 判满</li><li>栈 <em>后进先出</em></li></ul><ol><li>作业</li><li>考试</li></ol><p>见 <a href="https://example.edu/ds" target="_blank" rel="noopener noreferrer">讲义</a></p>',
    );
  });

  it('escapes HTML from the model and refuses non-http links', () => {
    const html = renderMarkdown(
      '<img src=x onerror=alert(1)> [x](javascript:alert(1)) `<b>` "quote"',
    );
    expect(html).not.toContain('<img');
    expect(html).not.toContain('href="javascript');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('<code>&lt;b&gt;</code>');
    expect(html).toContain('&quot;quote&quot;');
  });

  it('keeps code blocks verbatim and renders a half-written answer', () => {
    expect(renderMarkdown('```\nif (a < b) **no**\n```')).toBe(
      '<pre><code>if (a &lt; b) **no**</code></pre>',
    );
    expect(renderMarkdown('### 现在讲到\n- 循环队')).toBe(
      '<h5>现在讲到</h5><ul><li>循环队</li></ul>',
    );
    expect(renderMarkdown('> 老师说\n> 下周考试')).toBe(
      '<blockquote>老师说<br>下周考试</blockquote>',
    );
    expect(renderMarkdown('')).toBe('');
  });
});
