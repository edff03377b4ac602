// Notes: the post-class notes in data/summaries (written when a class ends, or on demand here,
// streamed as they are written), to read, copy or download.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, streamAnswer } from '../api.ts';
import { ErrorBox } from '../components/error-box.tsx';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import { renderMarkdown } from '../markdown.ts';
import type { NoteInfo } from '../types.ts';
import type { PanelProps } from './registry.tsx';

/** The notes panel. */
export function NotesPanel({ active }: PanelProps) {
  const app = useApp();
  const [notes, setNotes] = useState<NoteInfo[]>([]);
  const [shown, setShown] = useState('');
  /** The Markdown shown: a note's, or the one being written. */
  const [content, setContent] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [writing, setWriting] = useState(false);
  // The file asked for last: an answer for an earlier choice is dropped.
  const wantedFile = useRef('');

  const show = async (filename: string) => {
    wantedFile.current = filename;
    setShown(filename);
    setError(null);
    if (filename === '') {
      setContent('');
      return;
    }
    try {
      const note = await call('GET /api/notes/:filename', { params: { filename } });
      if (wantedFile.current === filename) setContent(note.content);
    } catch (failure) {
      setError(failure);
    }
  };

  const load = async (choose?: string) => {
    let items: NoteInfo[];
    try {
      items = (await call('GET /api/notes')).items;
    } catch (failure) {
      setError(failure);
      return;
    }
    setNotes(items);
    const current = wantedFile.current;
    const wanted =
      choose ??
      (items.some((note) => note.filename === current) ? current : (items[0]?.filename ?? ''));
    await show(wanted);
  };

  useEffect(() => {
    if (active) void load();
  }, [active]);
  useEffect(
    () =>
      app.onLiveEvent((message) => {
        if (message.name === 'notes.written' && app.store.get().panel === 'notes') void load();
      }),
    [],
  );

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(content);
      app.toast(t('copied'));
    } catch (failure) {
      setError(failure);
    }
  };
  const download = () => {
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([content], { type: 'text/markdown;charset=utf-8' }));
    link.download = shown || 'notes.md';
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  };
  const generate = async () => {
    setWriting(true);
    setError(null);
    setContent('');
    let raw = '';
    try {
      const result = await streamAnswer(
        'POST /api/generate_summary/stream',
        {},
        {
          onDelta(text) {
            raw += text;
            setContent(raw);
          },
        },
      );
      await load(result.filename);
    } catch (failure) {
      setError(failure);
      await load();
    } finally {
      setWriting(false);
    }
  };

  const empty = notes.length === 0;
  return (
    <section class="panel-body notes-panel" hidden={!active}>
      <p class="intro">{t('notesIntro')}</p>
      <div class="toolbar">
        <button type="button" class="button primary" disabled={writing} onClick={generate}>
          {t('notesGenerate')}
        </button>
        <select
          class="select"
          aria-label={t('notesList')}
          hidden={empty}
          value={shown}
          onChange={(event) => void show(event.currentTarget.value)}
        >
          {notes.map((note) => (
            <option key={note.filename} value={note.filename}>
              {`${note.course_name || t('untitledCourse')} · ${note.updated_at.slice(0, 16)}`}
            </option>
          ))}
        </select>
        <button type="button" class="button small" disabled={empty} onClick={copy}>
          {t('copy')}
        </button>
        <button type="button" class="button small" disabled={empty} onClick={download}>
          {t('download')}
        </button>
      </div>
      <div class="panel-status">{error ? <ErrorBox error={error} /> : null}</div>
      {!writing && shown === '' ? (
        <article key="empty" class="notes-content markdown">
          <p class="empty">{t('notesEmpty')}</p>
        </article>
      ) : (
        <article
          key="content"
          class={writing ? 'notes-content markdown streaming' : 'notes-content markdown'}
          dangerouslySetInnerHTML={{ __html: renderMarkdown(content) }}
        />
      )}
    </section>
  );
}
