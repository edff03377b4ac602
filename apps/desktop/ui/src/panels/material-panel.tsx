// The class's material, one page at a time: the page the teacher is on (the backend follows it
// from what is said, `current_page`), following them as they move on; ‹ › to read other pages,
// and a way back to the teacher's page. The bar's "第 7 页" opens it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api.ts';
import { ErrorBox } from '../components/error-box.tsx';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import type { PanelProps } from './registry.tsx';

/** A page as GET /api/material/pages/:page answers it. */
interface MaterialPage {
  page: number;
  page_count: number;
  title: string;
  text: string;
}

/** The material panel. */
export function MaterialPanel({ active }: PanelProps) {
  const app = useApp();
  const monitor = app.store.use('monitor').value;
  const current = monitor.state === 'idle' ? null : (monitor.current_page ?? null);
  /** The page shown (null: none yet). */
  const [shown, setShown] = useState<number | null>(current);
  const [page, setPage] = useState<MaterialPage | null>(null);
  const [error, setError] = useState<unknown>(null);
  /** True while the shown page follows the teacher's (until the student browses). */
  const following = useRef(true);

  // Opening the panel (from the bar's page) shows the teacher's page.
  useEffect(() => {
    if (!active) return;
    following.current = true;
    if (current !== null) setShown(current);
  }, [active]);
  useEffect(() => {
    if (following.current && current !== null) setShown(current);
  }, [current]);

  useEffect(() => {
    if (!active || shown === null) return;
    const controller = new AbortController();
    setError(null);
    call('GET /api/material/pages/:page', {
      params: { page: shown },
      signal: controller.signal,
    }).then(
      (answer) => setPage(answer),
      (failure: unknown) => {
        if (!controller.signal.aborted) setError(failure);
      },
    );
    return () => controller.abort();
  }, [active, shown]);

  const browse = (to: number) => {
    following.current = false;
    setShown(to);
  };

  if (shown === null) {
    return (
      <section class="panel-body material-panel" hidden={!active}>
        <p class="empty">
          {monitor.state !== 'idle' && monitor.cite_filename !== ''
            ? t('materialWaiting')
            : t('materialNoPages')}
        </p>
      </section>
    );
  }
  const count = page?.page_count ?? 0;
  const onTeachersPage = current !== null && page?.page === current;
  return (
    <section class="panel-body material-panel" hidden={!active}>
      <div class="material-nav">
        <button
          type="button"
          class="icon-button"
          aria-label={t('pagePrevious')}
          title={t('pagePrevious')}
          disabled={shown <= 1}
          onClick={() => browse(shown - 1)}
        >
          ‹
        </button>
        <span class="material-page-number">
          {count > 0 ? t('pageOf', { page: shown, count }) : t('pageLabel', { page: shown })}
        </span>
        <button
          type="button"
          class="icon-button"
          aria-label={t('pageNext')}
          title={t('pageNext')}
          disabled={count > 0 && shown >= count}
          onClick={() => browse(shown + 1)}
        >
          ›
        </button>
        {current !== null && shown !== current ? (
          <button
            type="button"
            class="link-button"
            onClick={() => {
              following.current = true;
              setShown(current);
            }}
          >
            {t('pageFollow')}
          </button>
        ) : null}
        {onTeachersPage ? <span class="badge teacher-here">{t('pageTeacherHere')}</span> : null}
      </div>
      {error ? (
        <ErrorBox error={error} />
      ) : page && page.page === shown ? (
        <article class="material-page">
          <h3>{page.title}</h3>
          <p class="material-page-text">{page.text.split('\n').slice(1).join('\n')}</p>
        </article>
      ) : null}
    </section>
  );
}
