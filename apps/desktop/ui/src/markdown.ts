// A small, safe Markdown renderer for the AI's answers and notes: headings, lists, quotes, code
// blocks, paragraphs, **bold**, *italic*, `code` and http(s) links. Everything is HTML-escaped
// first, so text from the model can never inject markup; a half-written answer (streaming)
// renders as far as it goes.

function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

function inline(text: string): string {
  const codes: string[] = [];
  let html = escapeHtml(text).replace(/`([^`]+)`/g, (_whole, code: string) => {
    codes.push(`<code>${code}</code>`);
    return `\u0000${codes.length - 1}\u0000`;
  });
  html = html
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/__([^_]+)__/g, '<strong>$1</strong>')
    .replace(/(^|[^*])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>')
    .replace(
      /\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g,
      '<a href="$2" target="_blank" rel="noopener noreferrer">$1</a>',
    );
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the placeholder is a NUL pair.
  return html.replace(/\u0000(\d+)\u0000/g, (_whole, index: string) => codes[Number(index)] ?? '');
}

/**
 * Renders Markdown to HTML that is safe to assign to `innerHTML`.
 *
 * @example
 * renderMarkdown('### 现在讲到\n- **循环队列**'); // '<h3>现在讲到</h3><ul><li><strong>循环队列</strong></li></ul>'
 */
export function renderMarkdown(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let paragraph: string[] = [];
  let list: { ordered: boolean; items: string[] } | undefined;
  let quote: string[] = [];

  const flushParagraph = () => {
    if (paragraph.length > 0) out.push(`<p>${paragraph.map(inline).join('<br>')}</p>`);
    paragraph = [];
  };
  const flushList = () => {
    if (list) {
      const tag = list.ordered ? 'ol' : 'ul';
      out.push(`<${tag}>${list.items.map((item) => `<li>${inline(item)}</li>`).join('')}</${tag}>`);
    }
    list = undefined;
  };
  const flushQuote = () => {
    if (quote.length > 0) out.push(`<blockquote>${quote.map(inline).join('<br>')}</blockquote>`);
    quote = [];
  };
  const flushAll = () => {
    flushParagraph();
    flushList();
    flushQuote();
  };

  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      flushAll();
      const code: string[] = [];
      index++;
      while (index < lines.length && !(lines[index] ?? '').trim().startsWith(fence[1] ?? '```')) {
        code.push(lines[index] ?? '');
        index++;
      }
      out.push(`<pre><code>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = /^\s*(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      flushAll();
      // Notes start at "#"; inside a small window h1/h2 would shout, so levels start at h3.
      const level = Math.min(6, (heading[1]?.length ?? 1) + 2);
      out.push(`<h${level}>${inline((heading[2] ?? '').replace(/\s*#+\s*$/, ''))}</h${level}>`);
      continue;
    }
    if (/^\s*([-*_])\s*(\1\s*){2,}$/.test(line)) {
      flushAll();
      out.push('<hr>');
      continue;
    }
    const item = /^\s*(?:([-*+])|(\d+)[.)])\s+(.*)$/.exec(line);
    if (item) {
      flushParagraph();
      flushQuote();
      const ordered = item[2] !== undefined;
      if (list && list.ordered !== ordered) flushList();
      list ??= { ordered, items: [] };
      list.items.push(item[3] ?? '');
      continue;
    }
    const quoted = /^\s*>\s?(.*)$/.exec(line);
    if (quoted) {
      flushParagraph();
      flushList();
      quote.push(quoted[1] ?? '');
      continue;
    }
    if (line.trim() === '') {
      flushAll();
      continue;
    }
    if (list && /^\s{2,}\S/.test(line)) {
      const last = list.items.length - 1;
      list.items[last] = `${list.items[last] ?? ''} ${line.trim()}`;
      continue;
    }
    flushList();
    flushQuote();
    paragraph.push(line.trim());
  }
  flushAll();
  return out.join('');
}
