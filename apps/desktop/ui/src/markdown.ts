// Markdown of the AI's answers and notes, rendered by markdown-it (CommonMark with GitHub's
// tables and strikethrough): nested lists, tables, code, quotes, links and images as a student
// expects them. Safe to assign to innerHTML: raw HTML in the text is escaped (html: false), and
// only http(s) and mailto links and http(s) images survive — javascript:, data:, file: and every
// other scheme are dropped, also when written with entities. A half-written answer (streaming)
// renders as far as it goes.
import MarkdownIt from 'markdown-it';

const SAFE_LINK = /^(?:https?:|mailto:)/i;
const SAFE_IMAGE = /^https?:/i;

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });

// markdown-it has already decoded entities and percent-encoding here: the scheme is the real one.
markdown.validateLink = (url) => SAFE_LINK.test(url.trim());

// Headings start at h3: the panels have their own titles above the answer.
markdown.core.ruler.push('headings_from_h3', (state) => {
  for (const token of state.tokens) {
    if (token.type === 'heading_open' || token.type === 'heading_close') {
      token.tag = `h${Math.min(6, Number(token.tag.slice(1)) + 2)}`;
    }
  }
});

// Links open in the browser, never in the app window, and tell the target nothing.
markdown.renderer.rules.link_open = (tokens, index, options, _env, self) => {
  const token = tokens[index]!;
  token.attrSet('target', '_blank');
  token.attrSet('rel', 'noopener noreferrer');
  return self.renderToken(tokens, index, options);
};

// Images only from http(s), lazily, without a referrer; anything else shows its alt text.
const renderImage = markdown.renderer.rules.image!;
markdown.renderer.rules.image = (tokens, index, options, env, self) => {
  const token = tokens[index]!;
  if (!SAFE_IMAGE.test(String(token.attrGet('src') ?? ''))) {
    return markdown.utils.escapeHtml(self.renderInlineAsText(token.children ?? [], options, env));
  }
  token.attrSet('loading', 'lazy');
  token.attrSet('referrerpolicy', 'no-referrer');
  return renderImage(tokens, index, options, env, self);
};

/**
 * Renders Markdown to HTML that is safe to assign to `innerHTML`.
 *
 * @example
 * renderMarkdown('### 现在讲到\n- **循环队列**'); // '<h5>现在讲到</h5>\n<ul>\n<li><strong>循环队列</strong></li>\n</ul>\n'
 */
export function renderMarkdown(text: string): string {
  return markdown.render(text);
}
