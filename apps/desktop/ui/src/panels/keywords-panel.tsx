// Keywords: the student's name (and student-number digits), their other words, the alert and
// attention words of data/keywords.txt; the file itself (path, reload) under Advanced.
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.ts';
import { ErrorBox } from '../components/error-box.tsx';
import { Icon } from '../components/icon.tsx';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import { saveMyKeywords, storedOtherKeywords, storedStudent } from '../my-keywords.ts';
import { savePreference } from '../preferences.ts';
import { otherKeywords } from '../student.ts';
import type { KeywordsView } from '../types.ts';
import { NameStep } from '../views/name-step.tsx';
import type { PanelProps } from './registry.tsx';

function Chips({ words, level }: { words: readonly string[]; level: string }) {
  return (
    <div class="chips">
      {words.map((word) => (
        <span key={word} class={`chip ${level}`}>
          {word}
        </span>
      ))}
    </div>
  );
}

/** What the panel says under the words: nothing, saved, or a failure. */
type Status = { kind: 'none' } | { kind: 'saved' } | { kind: 'failed'; error: unknown };

/** The keywords panel. */
export function KeywordsPanel({ active }: PanelProps) {
  const app = useApp();
  const [others, setOthers] = useState<string[]>(storedOtherKeywords);
  const [view, setView] = useState<KeywordsView | null>(null);
  const [status, setStatus] = useState<Status>({ kind: 'none' });
  const [draft, setDraft] = useState('');
  // A new form each time the panel opens: it reads the saved name again.
  const [shownCount, setShownCount] = useState(0);

  const load = async () => {
    try {
      const answer = await call('GET /api/keywords');
      if (storedOtherKeywords().length === 0 && answer.custom.length > 0) {
        // Set by another client (or an older version of this one): adopt them.
        const adopted = otherKeywords(storedStudent(), answer.custom);
        savePreference('customKeywords', JSON.stringify(adopted));
        setOthers(adopted);
      }
      app.store.set({ keywords: answer.all });
      setView(answer);
    } catch (error) {
      setStatus({ kind: 'failed', error });
    }
  };

  useEffect(() => {
    if (!active) return;
    setOthers(storedOtherKeywords());
    setShownCount((count) => count + 1);
    void load();
  }, [active]);

  const save = async (next: string[]) => {
    setStatus({ kind: 'none' });
    try {
      const all = await saveMyKeywords({ others: next });
      setOthers(next);
      app.store.set({ keywords: all });
      setStatus({ kind: 'saved' });
      await load();
    } catch (error) {
      setStatus({ kind: 'failed', error });
    }
  };

  const add = () => {
    const words = draft
      .split(/[,，、\n]/)
      .map((word) => word.trim())
      .filter((word) => word !== '' && !others.includes(word));
    setDraft('');
    if (words.length > 0) void save([...others, ...words]);
  };
  const reload = async () => {
    try {
      await call('POST /api/reload_keywords');
      await load();
    } catch (error) {
      setStatus({ kind: 'failed', error });
    }
  };

  return (
    <section class="panel-body keywords-panel" hidden={!active}>
      <p class="intro">{t('keywordsIntro')}</p>
      <h4>{t('keywordsName')}</h4>
      <NameStep key={shownCount} firstRun={false} />
      <h4>{t('keywordsOthers')}</h4>
      <div class="chips editable">
        {others.map((word) => (
          <span key={word} class="chip mine">
            {word}
            <button
              type="button"
              class="chip-remove"
              title={`${t('close')} ${word}`}
              aria-label={`${t('close')} ${word}`}
              onClick={() => void save(others.filter((item) => item !== word))}
            >
              <Icon name="close" />
            </button>
          </span>
        ))}
      </div>
      <div class="inline-form">
        <input
          type="text"
          class="text-input"
          id="keyword-input"
          maxLength={100}
          placeholder={t('keywordsAddPlaceholder')}
          aria-label={t('keywordsOthers')}
          value={draft}
          onInput={(event) => setDraft(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.isComposing) add();
          }}
        />
        <button type="button" class="button" onClick={add}>
          {t('keywordsAdd')}
        </button>
      </div>
      <div class="panel-status">
        {status.kind === 'saved' ? <p class="notice ok">{t('keywordsSaved')}</p> : null}
        {status.kind === 'failed' ? <ErrorBox error={status.error} /> : null}
      </div>
      <h4>{t('keywordsAlert')}</h4>
      <div>{view ? <Chips words={view.builtin} level="danger" /> : null}</div>
      <h4>{t('keywordsAttention')}</h4>
      <div>{view ? <Chips words={view.warning} level="warning" /> : null}</div>
      <details class="settings-group advanced keywords-file">
        <summary>{t('keywordsAdvanced')}</summary>
        <div class="file-row">
          <p class="file-info">
            {view ? (
              <>
                {t('keywordsFile', { file: view.file })}
                <br />
                <small>{t('keywordsFileHint')}</small>
                {view.problems.length > 0 ? (
                  <small class="error-detail">
                    {` ${t('keywordsProblems', { count: view.problems.length })}`}
                  </small>
                ) : null}
              </>
            ) : null}
          </p>
          <button type="button" class="button small" onClick={reload}>
            {t('reload')}
          </button>
        </div>
      </details>
    </section>
  );
}
