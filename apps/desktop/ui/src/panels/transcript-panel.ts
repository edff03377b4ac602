// The live transcript: every line of the class with its time, keywords marked, the text being
// recognised at the bottom; it follows new lines unless the student scrolled up to read.
import type { AppContext } from '../context.ts';
import { h, replaceChildren } from '../dom.ts';
import { t } from '../i18n.ts';
import { renderMarkdown } from '../markdown.ts';
import type { AppState } from '../store.ts';
import { highlight } from '../views/bar.ts';
import type { Panel } from './panel.ts';

/** Creates the transcript panel; `reveal(id)` scrolls to a line and marks it (an answer's source). */
export function createTranscriptPanel(_context: AppContext): Panel & { reveal(id: number): void } {
  const history = h('details', { class: 'history', hidden: true });
  const historyBody = h('div', { class: 'markdown' });
  history.append(h('summary', null, t('historySummary')), historyBody);
  const list = h('ol', { class: 'transcript-lines' });
  const partial = h('p', { class: 'transcript-partial' });
  const empty = h('p', { class: 'empty' }, t('transcriptEmpty'));
  const newLines = h('button', { class: 'new-lines', hidden: true }, t('newLines'));
  const element = h(
    'section',
    { class: 'panel-body transcript-panel' },
    history,
    empty,
    list,
    partial,
    newLines,
  );
  const rendered = new Map<
    number,
    { item: HTMLLIElement; text: string; keywords: readonly string[] }
  >();

  // Follow new lines until the student scrolls up to read; scrolling back down follows again.
  let follow = true;
  let listening = false;
  const scroller = () => element.parentElement ?? element;
  const atBottom = () => {
    const box = scroller();
    return box.scrollTop + box.clientHeight >= box.scrollHeight - 40;
  };
  const toBottom = () => {
    const box = scroller();
    box.scrollTop = box.scrollHeight;
    follow = true;
    newLines.hidden = true;
  };
  newLines.addEventListener('click', toBottom);
  const watchScrolling = () => {
    if (listening) return;
    const box = scroller();
    if (box === element) return;
    listening = true;
    box.addEventListener('scroll', () => {
      if (element.hidden) return;
      follow = atBottom();
      if (follow) newLines.hidden = true;
    });
    // The box shrinks when an alert card appears: stay at the bottom.
    new ResizeObserver(() => {
      if (follow && !element.hidden) box.scrollTop = box.scrollHeight;
    }).observe(box);
  };

  const renderLines = (state: AppState) => {
    watchScrolling();
    const wanted = new Set(state.lines.map((line) => line.id));
    for (const [id, entry] of rendered) {
      if (!wanted.has(id)) {
        entry.item.remove();
        rendered.delete(id);
      }
    }
    let previousItem: HTMLLIElement | null = null;
    let added = false;
    for (const line of state.lines) {
      const existing = rendered.get(line.id);
      if (existing) {
        if (existing.text !== line.text || existing.keywords !== state.keywords) {
          replaceChildren(
            existing.item,
            h('time', null, line.timestamp),
            h('span', null, highlight(line.text, state.keywords)),
          );
          existing.text = line.text;
          existing.keywords = state.keywords;
        }
        previousItem = existing.item;
        continue;
      }
      const item = h(
        'li',
        { 'data-id': line.id },
        h('time', null, line.timestamp),
        h('span', null, highlight(line.text, state.keywords)),
      );
      if (previousItem) previousItem.after(item);
      else list.prepend(item);
      rendered.set(line.id, { item, text: line.text, keywords: state.keywords });
      previousItem = item;
      added = true;
    }
    partial.textContent = state.partial ? `${state.partial}…` : '';
    empty.hidden = state.lines.length > 0 || state.partial !== '';
    if (element.hidden) return;
    if (follow) toBottom();
    else if (added) newLines.hidden = false;
  };

  /** A line asked for before the panel was on screen: shown instead of the newest line. */
  let pending: number | undefined;
  const revealNow = (id: number) => {
    const item = rendered.get(id)?.item;
    if (!item) return;
    for (const marked of Array.from(list.querySelectorAll('.revealed'))) {
      marked.classList.remove('revealed');
    }
    item.classList.add('revealed');
    item.scrollIntoView({ block: 'center' });
    // The student is reading this line: stop following new ones until they scroll down.
    follow = atBottom();
  };

  return {
    name: 'transcript',
    element,
    reveal(id) {
      if (element.hidden) pending = id;
      else revealNow(id);
    },
    onShow() {
      watchScrolling();
      requestAnimationFrame(() => {
        if (pending === undefined) {
          toBottom();
          return;
        }
        const id = pending;
        pending = undefined;
        revealNow(id);
      });
    },
    update(state, previous) {
      if (
        state.lines !== previous.lines ||
        state.partial !== previous.partial ||
        state.keywords !== previous.keywords ||
        rendered.size === 0
      ) {
        renderLines(state);
      }
      if (state.historySummary !== previous.historySummary) {
        history.hidden = state.historySummary.trim() === '';
        historyBody.innerHTML = renderMarkdown(state.historySummary);
      }
    },
  };
}
