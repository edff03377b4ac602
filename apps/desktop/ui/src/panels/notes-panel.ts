// Notes: the post-class notes in data/summaries (written when a class ends, or on demand here,
// streamed as they are written), to read, copy or download.
import { call, streamAnswer } from '../api.ts';
import type { AppContext } from '../context.ts';
import { h, replaceChildren } from '../dom.ts';
import { errorBox } from '../errors.ts';
import { t } from '../i18n.ts';
import { renderMarkdown } from '../markdown.ts';
import type { NoteInfo } from '../types.ts';
import type { Panel } from './panel.ts';

/** Creates the notes panel. */
export function createNotesPanel(context: AppContext): Panel {
  let notes: NoteInfo[] = [];
  let content = '';
  let shownFile = '';
  const select = h('select', { class: 'select', 'aria-label': t('notesList') });
  const copyButton = h('button', { class: 'button small' }, t('copy'));
  const downloadButton = h('button', { class: 'button small' }, t('download'));
  const generateButton = h('button', { class: 'button primary' }, t('notesGenerate'));
  const status = h('div', { class: 'panel-status' });
  const body = h('article', { class: 'notes-content markdown' });

  const show = async (filename: string) => {
    shownFile = filename;
    status.replaceChildren();
    if (filename === '') {
      content = '';
      replaceChildren(body, h('p', { class: 'empty' }, t('notesEmpty')));
      return;
    }
    try {
      const note = await call('GET /api/notes/:filename', { params: { filename } });
      if (shownFile !== filename) return;
      content = note.content;
      body.innerHTML = renderMarkdown(content);
    } catch (error) {
      status.replaceChildren(errorBox(context, error));
    }
  };

  const load = async (choose?: string) => {
    try {
      notes = (await call('GET /api/notes')).items;
    } catch (error) {
      status.replaceChildren(errorBox(context, error));
      return;
    }
    const wanted =
      choose ??
      (notes.some((note) => note.filename === shownFile) ? shownFile : (notes[0]?.filename ?? ''));
    replaceChildren(
      select,
      notes.map((note) =>
        h(
          'option',
          { value: note.filename, selected: note.filename === wanted },
          `${note.course_name || t('untitledCourse')} · ${note.updated_at.slice(0, 16)}`,
        ),
      ),
    );
    select.hidden = notes.length === 0;
    copyButton.disabled = downloadButton.disabled = notes.length === 0;
    await show(wanted);
  };

  select.addEventListener('change', () => void show(select.value));
  copyButton.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(content);
      context.toast(t('copied'));
    } catch (error) {
      status.replaceChildren(errorBox(context, error));
    }
  });
  downloadButton.addEventListener('click', () => {
    const link = h('a', {
      href: URL.createObjectURL(new Blob([content], { type: 'text/markdown;charset=utf-8' })),
      download: shownFile || 'notes.md',
    });
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  });
  generateButton.addEventListener('click', async () => {
    generateButton.disabled = true;
    status.replaceChildren();
    body.classList.add('streaming');
    body.replaceChildren();
    let raw = '';
    try {
      const result = await streamAnswer(
        'POST /api/generate_summary/stream',
        {},
        {
          onDelta(text) {
            raw += text;
            body.innerHTML = renderMarkdown(raw);
          },
        },
      );
      await load(result.filename);
    } catch (error) {
      status.replaceChildren(errorBox(context, error));
      await load();
    } finally {
      body.classList.remove('streaming');
      generateButton.disabled = false;
    }
  });
  context.onLiveEvent((message) => {
    if (message.name === 'notes.written' && context.store.get().panel === 'notes') void load();
  });

  return {
    name: 'notes',
    element: h(
      'section',
      { class: 'panel-body notes-panel' },
      h('p', { class: 'intro' }, t('notesIntro')),
      h('div', { class: 'toolbar' }, generateButton, select, copyButton, downloadButton),
      status,
      body,
    ),
    onShow() {
      void load();
    },
  };
}
