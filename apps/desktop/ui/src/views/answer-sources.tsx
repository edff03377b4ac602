// Under a rescue or catch-up answer: what it was written from, so a wrong answer can be caught.
// The span ("基于 18:37–18:47 的字幕（12 行）· 课件第 3–4 页"), the lines the model named (rescue),
// and every line sent; each line opens in the transcript panel.
import { useApp } from '../context.ts';
import { lang, t } from '../i18n.ts';
import { citedLines, minutes, pageRanges } from '../sources.ts';
import type { AnswerSources as Sources } from '../types.ts';

function LineList({ lines }: { lines: Sources['lines'] }) {
  const app = useApp();
  return (
    <ol class="source-lines">
      {lines.map((line) => (
        <li key={line.id}>
          <button
            type="button"
            class="source-line"
            data-id={line.id}
            title={t('sourcesOpen', { time: line.timestamp })}
            onClick={() => app.showLine(line.id)}
          >
            <time>{line.timestamp}</time>
            <span>{line.text}</span>
          </button>
        </li>
      ))}
    </ol>
  );
}

/** The sources box; nothing without sources (an older backend sends none). */
export function AnswerSources({ sources }: { sources: Sources | undefined }) {
  if (!sources) return null;
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
  return (
    <div class="answer-sources">
      <p class="sources-span">{parts.join(' · ')}</p>
      {cited.length > 0 ? (
        <>
          <p class="sources-label">{t('sourcesCited')}</p>
          <LineList lines={cited} />
        </>
      ) : null}
      {sources.lines.length > 0 ? (
        <details class="sources-all">
          <summary>{t('sourcesAll', { count: sources.lines.length })}</summary>
          <LineList lines={sources.lines} />
        </details>
      ) : null}
    </div>
  );
}
