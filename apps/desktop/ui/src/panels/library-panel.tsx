// The class library: every class kept, grouped by course; a search box over the lines, notes and
// material of the whole term whose hits open the class at that line; a class with its alerts
// marked, its export, its notes and its deletion (after a confirmation).
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { call } from '../api.ts';
import { ErrorBox } from '../components/error-box.tsx';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import { megabytes } from '../models.ts';
import { parseSnippet } from '../snippet.ts';
import type { ClassAnswer, ClassSummary, LibraryIndexing, SearchHit } from '../types.ts';
import { ClassView, localMinute } from '../views/library-class.tsx';
import type { PanelProps } from './registry.tsx';

const PAGE = 100;
const SEARCH_DELAY_MS = 250;

const KIND_TEXT = {
  line: 'libraryKindLine',
  notes: 'libraryKindNotes',
  material: 'libraryKindMaterial',
} as const;

/** A snippet from the backend as text and <mark> elements (never as HTML). */
function Snippet({ snippet }: { snippet: string }) {
  return (
    <span class="library-snippet">
      {parseSnippet(snippet).map((piece) =>
        piece.marked ? <mark>{piece.text}</mark> : piece.text,
      )}
    </span>
  );
}

/** The class shown, and where to open it. */
interface Opened {
  answer: ClassAnswer;
  lineId: number | undefined;
  kind: SearchHit['kind'] | undefined;
  /** Grows with each opening: the same class opened again is drawn (and scrolled) anew. */
  serial: number;
}

/** The library panel. */
export function LibraryPanel({ active }: PanelProps) {
  const app = useApp();
  const classes = useSignal<ClassSummary[]>([]);
  const total = useSignal(0);
  /** Bytes of every class's kept audio. */
  const audioTotal = useSignal(0);
  const indexing = useSignal<LibraryIndexing>(null);
  const failure = useSignal<unknown>(null);
  const query = useSignal('');
  const course = useSignal('');
  /** The answer of the last search (null: no search, the list is shown). */
  const found = useSignal<{ query: string; hits: SearchHit[] } | null>(null);
  const opened = useSignal<Opened | null>(null);
  const searchSerial = useRef(0);
  const searchTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const runSearch = async () => {
    const text = query.value.trim();
    const serial = ++searchSerial.current;
    if (text === '') {
      found.value = null;
      return;
    }
    try {
      const answer = await call('GET /api/search', {
        query: { q: text, limit: 50, ...(course.value === '' ? {} : { course: course.value }) },
      });
      if (serial !== searchSerial.current) return;
      failure.value = null;
      indexing.value = answer.indexing;
      found.value = { query: text, hits: answer.hits };
    } catch (error) {
      if (serial === searchSerial.current) failure.value = error;
    }
  };

  const load = async (offset = 0) => {
    try {
      const answer = await call('GET /api/classes', { query: { limit: PAGE, offset } });
      classes.value = offset === 0 ? answer.items : [...classes.value, ...answer.items];
      total.value = answer.total;
      audioTotal.value = answer.audio_bytes_total;
      failure.value = null;
      indexing.value = answer.indexing;
    } catch (error) {
      failure.value = error;
      return;
    }
    // A course no longer in the library (its last class deleted) is no longer chosen.
    if (!classes.value.some((item) => item.course_name === course.value)) course.value = '';
    await runSearch();
  };

  const openClass = async (id: string, lineId?: number, kind?: SearchHit['kind']) => {
    try {
      const answer = await call('GET /api/classes/:id', { params: { id } });
      opened.value = { answer, lineId, kind, serial: (opened.peek()?.serial ?? 0) + 1 };
    } catch (error) {
      failure.value = error;
    }
  };

  const back = () => {
    opened.value = null;
    void load();
  };

  useEffect(() => {
    if (active && opened.peek() === null) void load();
  }, [active]);
  // A class opened from elsewhere (an imported recording's "open in the library").
  const asked = app.requests.libraryClass.value;
  useEffect(() => {
    if (asked) void openClass(asked.id);
  }, [asked]);
  useEffect(
    () =>
      app.onLiveEvent((message) => {
        if (message.name !== 'library.changed' || app.store.get().panel !== 'library') return;
        if (opened.peek() === null && query.peek().trim() === '') void load();
      }),
    [],
  );

  const classItem = (item: ClassSummary) => (
    <li key={item.id}>
      <button
        type="button"
        class="library-item"
        data-class-id={item.id}
        onClick={() => void openClass(item.id)}
      >
        <span class="library-when">{localMinute(item.started_at)}</span>
        <span class="library-facts">
          {item.live ? <span class="badge live">{t('libraryLive')}</span> : null}
          {t('libraryLines', { count: item.line_count })}
          {item.alert_count > 0 ? (
            <span class="badge alert">{t('libraryAlerts', { count: item.alert_count })}</span>
          ) : null}
          {item.has_notes ? <span class="badge">{t('libraryHasNotes')}</span> : null}
          {item.audio_bytes !== null ? (
            <span class="badge audio">
              {t('libraryAudio', { size: megabytes(item.audio_bytes) })}
            </span>
          ) : null}
        </span>
      </button>
    </li>
  );

  const hitItem = (hit: SearchHit, index: number) => (
    <li key={index}>
      <button
        type="button"
        class="library-hit"
        data-class-id={hit.class_id}
        onClick={() =>
          void openClass(hit.class_id, hit.kind === 'line' ? hit.line_id : undefined, hit.kind)
        }
      >
        <span class="library-hit-where">
          <span class={`badge kind-${hit.kind}`}>{t(KIND_TEXT[hit.kind])}</span>
          {`${hit.course_name || t('untitledCourse')} · ${localMinute(hit.started_at)}${hit.timestamp ? ` · ${hit.timestamp}` : ''}${hit.page ? ` · ${t('pageLabel', { page: hit.page })}` : ''}`}
        </span>
        <Snippet snippet={hit.snippet} />
      </button>
    </li>
  );

  const list = () => {
    if (classes.value.length === 0) return <p class="empty">{t('libraryEmpty')}</p>;
    const groups = new Map<string, ClassSummary[]>();
    for (const item of classes.value) {
      if (course.value !== '' && item.course_name !== course.value) continue;
      groups.set(item.course_name, [...(groups.get(item.course_name) ?? []), item]);
    }
    return (
      <>
        {[...groups].map(([name, items]) => (
          <section key={name} class="library-course">
            <h4>{`${name || t('untitledCourse')} · ${items.length}`}</h4>
            <ul class="library-items">{items.map(classItem)}</ul>
          </section>
        ))}
        {classes.value.length < total.value ? (
          <button
            type="button"
            class="button small library-more"
            onClick={() => void load(classes.value.length)}
          >
            {t('libraryLoadMore', { total: total.value })}
          </button>
        ) : null}
      </>
    );
  };

  const shown = opened.value;
  const result = found.value;
  return (
    <section class="panel-body library-panel" hidden={!active}>
      <div class="library-browse" hidden={shown !== null}>
        <p class="intro">
          {t('libraryIntro')}
          {audioTotal.value > 0 ? (
            <span class="library-audio-total" id="library-audio-total">
              {` ${t('libraryAudioTotal', { size: megabytes(audioTotal.value) })}`}
            </span>
          ) : null}
        </p>
        <div class="library-search">
          <input
            id="library-search"
            class="text-input"
            type="search"
            placeholder={t('librarySearch')}
            aria-label={t('librarySearch')}
            value={query.value}
            onInput={(event) => {
              query.value = event.currentTarget.value;
              clearTimeout(searchTimer.current);
              searchTimer.current = setTimeout(() => void runSearch(), SEARCH_DELAY_MS);
            }}
            onKeyDown={(event) => {
              if (event.key !== 'Enter') return;
              clearTimeout(searchTimer.current);
              void runSearch();
            }}
          />
          <select
            id="library-course"
            class="select small"
            aria-label={t('libraryAllCourses')}
            value={course.value}
            onChange={(event) => {
              course.value = event.currentTarget.value;
              void runSearch();
            }}
          >
            <option value="">{t('libraryAllCourses')}</option>
            {[...new Set(classes.value.map((item) => item.course_name))].map((name) => (
              <option key={name} value={name}>
                {name || t('untitledCourse')}
              </option>
            ))}
          </select>
        </div>
        <div class="panel-status">
          {failure.value ? (
            <ErrorBox error={failure.value} />
          ) : indexing.value ? (
            <div class="notice busy">
              <p>{t('libraryIndexing', indexing.value)}</p>
            </div>
          ) : null}
        </div>
        <div class="library-list">
          {result === null ? (
            list()
          ) : result.hits.length === 0 ? (
            <p class="empty">{t('libraryNoHits', { query: result.query })}</p>
          ) : (
            <ul class="library-hits">{result.hits.map(hitItem)}</ul>
          )}
        </div>
      </div>
      <div class="library-class" hidden={shown === null}>
        {shown ? (
          <ClassView
            key={shown.serial}
            answer={shown.answer}
            lineId={shown.lineId}
            kind={shown.kind}
            onBack={back}
          />
        ) : null}
      </div>
    </section>
  );
}
