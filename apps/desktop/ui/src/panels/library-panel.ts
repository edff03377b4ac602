// The class library: every class kept, grouped by course; a search box over the lines, notes and
// material of the whole term whose hits open the class at that line; a class with its alerts
// marked, its export, its notes and its deletion (after a confirmation).
import { call, routeUrl, streamAnswer } from '../api.ts';
import type { AppContext } from '../context.ts';
import { h, replaceChildren } from '../dom.ts';
import { errorBox } from '../errors.ts';
import { joinList, t } from '../i18n.ts';
import { renderMarkdown } from '../markdown.ts';
import { parseSnippet } from '../snippet.ts';
import type { ClassAnswer, ClassSummary, LibraryIndexing, SearchHit } from '../types.ts';
import type { Panel } from './panel.ts';

const PAGE = 100;
const SEARCH_DELAY_MS = 250;

/** Local `YYYY-MM-DD HH:MM` of an ISO time. */
function localMinute(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A snippet from the backend as text nodes and <mark> elements (never as HTML). */
function snippetNodes(snippet: string): Node[] {
  return parseSnippet(snippet).map((piece) =>
    piece.marked ? h('mark', null, piece.text) : document.createTextNode(piece.text),
  );
}

const KIND_TEXT = {
  line: 'libraryKindLine',
  notes: 'libraryKindNotes',
  material: 'libraryKindMaterial',
} as const;

/** Creates the library panel. */
export function createLibraryPanel(context: AppContext): Panel {
  let classes: ClassSummary[] = [];
  let total = 0;
  let openId: string | null = null;
  let searchSerial = 0;
  let searchTimer: ReturnType<typeof setTimeout> | undefined;

  const search = h('input', {
    id: 'library-search',
    class: 'text-input',
    type: 'search',
    placeholder: t('librarySearch'),
    'aria-label': t('librarySearch'),
  });
  const course = h('select', {
    id: 'library-course',
    class: 'select small',
    'aria-label': t('libraryAllCourses'),
  });
  const status = h('div', { class: 'panel-status' });
  const list = h('div', { class: 'library-list' });
  const view = h('div', { class: 'library-class', hidden: true });
  const browse = h(
    'div',
    { class: 'library-browse' },
    h('p', { class: 'intro' }, t('libraryIntro')),
    h('div', { class: 'library-search' }, search, course),
    status,
    list,
  );

  const showIndexing = (indexing: LibraryIndexing) => {
    status.replaceChildren(
      ...(indexing
        ? [h('div', { class: 'notice busy' }, h('p', null, t('libraryIndexing', indexing)))]
        : []),
    );
  };

  // ------------------------------------------------------------ the list, by course
  const renderCourses = () => {
    const chosen = course.value;
    const names = [...new Set(classes.map((item) => item.course_name))];
    replaceChildren(
      course,
      h('option', { value: '' }, t('libraryAllCourses')),
      names.map((name) =>
        h('option', { value: name, selected: name === chosen }, name || t('untitledCourse')),
      ),
    );
  };

  const classItem = (item: ClassSummary) =>
    h(
      'li',
      null,
      h(
        'button',
        {
          class: 'library-item',
          'data-class-id': item.id,
          onclick: () => void openClass(item.id),
        },
        h('span', { class: 'library-when' }, localMinute(item.started_at)),
        h(
          'span',
          { class: 'library-facts' },
          item.live ? h('span', { class: 'badge live' }, t('libraryLive')) : null,
          t('libraryLines', { count: item.line_count }),
          item.alert_count > 0
            ? h('span', { class: 'badge alert' }, t('libraryAlerts', { count: item.alert_count }))
            : null,
          item.has_notes ? h('span', { class: 'badge' }, t('libraryHasNotes')) : null,
        ),
      ),
    );

  const renderList = () => {
    if (classes.length === 0) {
      replaceChildren(list, h('p', { class: 'empty' }, t('libraryEmpty')));
      return;
    }
    const chosen = course.value;
    const groups = new Map<string, ClassSummary[]>();
    for (const item of classes) {
      if (chosen !== '' && item.course_name !== chosen) continue;
      groups.set(item.course_name, [...(groups.get(item.course_name) ?? []), item]);
    }
    replaceChildren(
      list,
      [...groups].map(([name, items]) =>
        h(
          'section',
          { class: 'library-course' },
          h('h4', null, `${name || t('untitledCourse')} · ${items.length}`),
          h('ul', { class: 'library-items' }, items.map(classItem)),
        ),
      ),
      classes.length < total
        ? h(
            'button',
            { class: 'button small library-more', onclick: () => void load(classes.length) },
            t('libraryLoadMore', { total }),
          )
        : null,
    );
  };

  const load = async (offset = 0) => {
    try {
      const answer = await call('GET /api/classes', { query: { limit: PAGE, offset } });
      classes = offset === 0 ? answer.items : [...classes, ...answer.items];
      total = answer.total;
      showIndexing(answer.indexing);
    } catch (error) {
      status.replaceChildren(errorBox(context, error));
      return;
    }
    renderCourses();
    await runSearch();
  };

  // ------------------------------------------------------------ search
  const hitItem = (hit: SearchHit) =>
    h(
      'li',
      null,
      h(
        'button',
        {
          class: 'library-hit',
          'data-class-id': hit.class_id,
          onclick: () =>
            void openClass(hit.class_id, hit.kind === 'line' ? hit.line_id : undefined, hit.kind),
        },
        h(
          'span',
          { class: 'library-hit-where' },
          h('span', { class: `badge kind-${hit.kind}` }, t(KIND_TEXT[hit.kind])),
          `${hit.course_name || t('untitledCourse')} · ${localMinute(hit.started_at)}${hit.timestamp ? ` · ${hit.timestamp}` : ''}`,
        ),
        h('span', { class: 'library-snippet' }, snippetNodes(hit.snippet)),
      ),
    );

  const runSearch = async () => {
    const query = search.value.trim();
    const serial = ++searchSerial;
    if (query === '') {
      renderList();
      return;
    }
    try {
      const answer = await call('GET /api/search', {
        query: { q: query, limit: 50, ...(course.value === '' ? {} : { course: course.value }) },
      });
      if (serial !== searchSerial) return;
      showIndexing(answer.indexing);
      replaceChildren(
        list,
        answer.hits.length === 0
          ? h('p', { class: 'empty' }, t('libraryNoHits', { query }))
          : h('ul', { class: 'library-hits' }, answer.hits.map(hitItem)),
      );
    } catch (error) {
      if (serial !== searchSerial) return;
      status.replaceChildren(errorBox(context, error));
    }
  };
  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => void runSearch(), SEARCH_DELAY_MS);
  });
  search.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    clearTimeout(searchTimer);
    void runSearch();
  });
  course.addEventListener('change', () => void runSearch());

  // ------------------------------------------------------------ one class
  const back = () => {
    openId = null;
    view.hidden = true;
    browse.hidden = false;
    void load();
  };

  const openClass = async (id: string, lineId?: number, kind?: SearchHit['kind']) => {
    let answer: ClassAnswer;
    try {
      answer = await call('GET /api/classes/:id', { params: { id } });
    } catch (error) {
      status.replaceChildren(errorBox(context, error));
      return;
    }
    openId = id;
    browse.hidden = true;
    view.hidden = false;
    renderClass(answer, lineId, kind);
  };

  const renderClass = (answer: ClassAnswer, lineId?: number, kind?: SearchHit['kind']) => {
    const info = answer.class;
    const alerts = new Map(answer.alerts.map((alert) => [alert.line_id, alert]));
    const classStatus = h('div', { class: 'panel-status' });
    const notesBody = h('article', { class: 'markdown library-notes' });
    if (info.notes) notesBody.innerHTML = renderMarkdown(info.notes);
    const notes = h(
      'details',
      { class: 'history', open: kind === 'notes', hidden: !info.notes },
      h('summary', null, t('libraryNotesTitle')),
      notesBody,
    );
    const history = h(
      'details',
      { class: 'history', hidden: info.history_summary === '' },
      h('summary', null, t('historySummary')),
      h('div', { class: 'markdown' }, info.history_summary),
    );
    const exportFormat = h(
      'select',
      { class: 'select small', id: 'library-export-format', 'aria-label': t('libraryExport') },
      h('option', { value: 'md' }, t('libraryExportMd')),
      h('option', { value: 'txt' }, t('libraryExportTxt')),
      h('option', { value: 'srt' }, t('libraryExportSrt')),
    );
    const exportUrl = (format: 'md' | 'txt' | 'srt') =>
      routeUrl('GET /api/classes/:id/export', { params: { id: info.id }, query: { format } }).url;
    const exportLink = h(
      'a',
      { class: 'button small', id: 'library-export', href: exportUrl('md'), download: '' },
      t('libraryExport'),
    );
    exportFormat.addEventListener('change', () => {
      const format = exportFormat.value;
      exportLink.href = exportUrl(format === 'txt' || format === 'srt' ? format : 'md');
    });
    const notesButton = h(
      'button',
      { class: 'button small', id: 'library-notes' },
      t('libraryNotes'),
    );
    notesButton.addEventListener('click', async () => {
      notesButton.disabled = true;
      classStatus.replaceChildren();
      notes.hidden = false;
      notes.open = true;
      notesBody.classList.add('streaming');
      let raw = '';
      try {
        await streamAnswer(
          'POST /api/classes/:id/notes/stream',
          { params: { id: info.id } },
          {
            onDelta(text) {
              raw += text;
              notesBody.innerHTML = renderMarkdown(raw);
            },
          },
        );
      } catch (error) {
        classStatus.replaceChildren(errorBox(context, error));
      } finally {
        notesBody.classList.remove('streaming');
        notesButton.disabled = false;
      }
    });
    const confirmation = h('div', { class: 'library-confirm', hidden: true });
    const deleteButton = h(
      'button',
      { class: 'button small', id: 'library-delete', disabled: info.live },
      t('libraryDelete'),
    );
    deleteButton.addEventListener('click', () => {
      confirmation.hidden = false;
      replaceChildren(
        confirmation,
        h(
          'p',
          null,
          t('libraryDeleteConfirm', {
            course: info.course_name || t('untitledCourse'),
            date: localMinute(info.started_at),
          }),
        ),
        h(
          'div',
          { class: 'button-row' },
          h(
            'button',
            {
              class: 'button small danger',
              id: 'library-delete-confirm',
              onclick: async () => {
                try {
                  await call('DELETE /api/classes/:id', { params: { id: info.id } });
                  context.toast(t('libraryDeleted'));
                  back();
                } catch (error) {
                  confirmation.hidden = true;
                  classStatus.replaceChildren(errorBox(context, error));
                }
              },
            },
            t('libraryDeleteYes'),
          ),
          h(
            'button',
            { class: 'button small', onclick: () => (confirmation.hidden = true) },
            t('cancel'),
          ),
        ),
      );
    });

    let target: HTMLLIElement | null = null;
    const lines = h(
      'ol',
      { class: 'transcript-lines library-lines' },
      answer.lines.map((line) => {
        const alert = alerts.get(line.id);
        const item = h(
          'li',
          {
            'data-line-id': line.id,
            class: [
              alert ? `alert-line ${alert.level}` : '',
              line.id === lineId ? 'target' : '',
            ].join(' '),
          },
          h('time', null, line.timestamp),
          h(
            'span',
            null,
            line.text,
            alert ? h('span', { class: 'alert-keywords' }, joinList(alert.keywords)) : null,
          ),
        );
        if (line.id === lineId) target = item;
        return item;
      }),
    );
    replaceChildren(
      view,
      h(
        'div',
        { class: 'library-class-head' },
        h(
          'button',
          { class: 'button small', id: 'library-back', onclick: back },
          `← ${t('libraryBack')}`,
        ),
        h(
          'div',
          { class: 'library-class-title' },
          h('strong', null, info.course_name || t('untitledCourse')),
          h(
            'small',
            null,
            `${localMinute(info.started_at)} · ${t('libraryLines', { count: info.line_count })}${info.alert_count ? ` · ${t('libraryAlerts', { count: info.alert_count })}` : ''}`,
          ),
        ),
      ),
      h(
        'div',
        { class: 'toolbar library-actions' },
        exportFormat,
        exportLink,
        notesButton,
        deleteButton,
      ),
      confirmation,
      classStatus,
      history,
      notes,
      answer.lines.length === 0 ? h('p', { class: 'empty' }, t('libraryNoLines')) : lines,
    );
    const scrollTarget: HTMLElement | null = target ?? (kind === 'notes' ? notes : null);
    requestAnimationFrame(() => {
      if (scrollTarget) scrollTarget.scrollIntoView({ block: 'center' });
      else (view.parentElement?.parentElement ?? view).scrollTop = 0;
    });
  };

  context.onLiveEvent((message) => {
    if (message.name !== 'library.changed' || context.store.get().panel !== 'library') return;
    if (openId === null && search.value.trim() === '') void load();
  });

  return {
    name: 'library',
    element: h('section', { class: 'panel-body library-panel' }, browse, view),
    onShow() {
      if (openId === null) void load();
    },
  };
}
