// Under a rescue or catch-up answer: what it was written from, so a wrong answer can be caught.
// The span ("基于 18:37–18:47 的字幕（12 行）· 课件第 3–4 页"), the lines the model named (rescue),
// and every line sent; each line opens in the transcript panel.
import type { AppContext } from '../context.ts';
import { h, replaceChildren } from '../dom.ts';
import { lang, t } from '../i18n.ts';
import { citedLines, minutes, pageRanges } from '../sources.ts';
import type { AnswerSources } from '../types.ts';

/** Creates the sources box; `show(undefined)` empties it (an older backend sends none). */
export function createAnswerSources(context: AppContext): {
  element: HTMLElement;
  show(sources: AnswerSources | undefined): void;
} {
  const element = h('div', { class: 'answer-sources', hidden: true });

  const lineList = (lines: AnswerSources['lines']) =>
    h(
      'ol',
      { class: 'source-lines' },
      lines.map((line) =>
        h(
          'li',
          null,
          h(
            'button',
            {
              class: 'source-line',
              'data-id': line.id,
              title: t('sourcesOpen', { time: line.timestamp }),
              onclick: () => context.showLine(line.id),
            },
            h('time', null, line.timestamp),
            h('span', null, line.text),
          ),
        ),
      ),
    );

  const show = (sources: AnswerSources | undefined) => {
    element.hidden = sources === undefined;
    if (!sources) {
      element.replaceChildren();
      return;
    }
    const parts: string[] = [
      sources.lines.length > 0
        ? t('sourcesSpan', {
            from: minutes(sources.from),
            to: minutes(sources.to),
            count: sources.lines.length,
          })
        : t('sourcesNone'),
    ];
    if (sources.pages.length > 0) {
      parts.push(t('sourcesPages', { pages: pageRanges(sources.pages, lang()) }));
    } else if (sources.material !== '') {
      parts.push(t('sourcesWholeMaterial'));
    }
    const cited = citedLines(sources);
    replaceChildren(
      element,
      h('p', { class: 'sources-span' }, parts.join(' · ')),
      cited.length > 0
        ? [h('p', { class: 'sources-label' }, t('sourcesCited')), lineList(cited)]
        : null,
      sources.lines.length > 0
        ? h(
            'details',
            { class: 'sources-all' },
            h('summary', null, t('sourcesAll', { count: sources.lines.length })),
            lineList(sources.lines),
          )
        : null,
    );
  };

  return { element, show };
}
