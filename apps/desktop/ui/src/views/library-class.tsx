// One class of the library: its lines with the alerts marked, its history summary and notes
// (written here on demand, streamed), its export and its deletion after a confirmation.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, routeUrl, streamAnswer } from '../api.ts';
import { clockTime } from '../clock-time.ts';
import { ErrorBox } from '../components/error-box.tsx';
import { MarkMomentButton } from '../components/mark-moment.tsx';
import { PageLabel } from '../components/page-label.tsx';
import { PlayLineButton, useFollowHeard, useHeardLine } from '../components/play-line.tsx';
import { useApp } from '../context.ts';
import { joinList, t } from '../i18n.ts';
import { renderMarkdown } from '../markdown.ts';
import { pageStarts } from '../page-starts.ts';
import type { ClassAnswer, ClassMark, SearchHit } from '../types.ts';

/** Local `YYYY-MM-DD HH:MM` of an ISO time ('' for a time that is not one). */
export function localMinute(iso: string): string {
  const date = new Date(iso);
  // Swedish writes dates and times the ISO way.
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleString('sv-SE').slice(0, 16);
}

type ExportFormat = 'md' | 'txt' | 'srt' | 'zip';

/** The class view; `lineId` is scrolled to and marked, `kind: 'notes'` opens the notes. */
export function ClassView({
  answer,
  lineId,
  kind,
  onBack,
}: {
  answer: ClassAnswer;
  lineId: number | undefined;
  kind: SearchHit['kind'] | undefined;
  onBack: () => void;
}) {
  const app = useApp();
  const info = answer.class;
  const [format, setFormat] = useState<ExportFormat>('md');
  const [notes, setNotes] = useState(info.notes ?? '');
  const [notesOpen, setNotesOpen] = useState(kind === 'notes');
  const [writing, setWriting] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [marks, setMarks] = useState(answer.marks);
  const target = useRef<HTMLLIElement>(null);
  const notesBox = useRef<HTMLDetailsElement>(null);
  const root = useRef<HTMLDivElement>(null);
  const lineList = useRef<HTMLOListElement>(null);
  const heard = useHeardLine(answer.lines, info.id);
  useFollowHeard(lineList, heard, (id) => `li[data-line-id="${id}"]`);

  useEffect(() => {
    requestAnimationFrame(() => {
      const scrollTarget = target.current ?? (kind === 'notes' ? notesBox.current : null);
      if (scrollTarget) scrollTarget.scrollIntoView({ block: 'center' });
      else {
        const scroller = root.current?.closest<HTMLElement>('.panel-content');
        if (scroller) scroller.scrollTop = 0;
      }
    });
  }, []);

  const writeNotes = async () => {
    setWriting(true);
    setFailure(null);
    setNotesOpen(true);
    setNotes('');
    let raw = '';
    try {
      const result = await streamAnswer(
        'POST /api/classes/:id/notes/stream',
        { params: { id: info.id } },
        {
          onDelta(text) {
            raw += text;
            setNotes(raw);
          },
        },
      );
      // With what the backend adds after the LLM's text (the marked moments).
      setNotes(result.summary);
    } catch (error) {
      setFailure(error);
    } finally {
      setWriting(false);
    }
  };

  const remove = async () => {
    try {
      await call('DELETE /api/classes/:id', { params: { id: info.id } });
      app.toast(t('libraryDeleted'));
      onBack();
    } catch (error) {
      setConfirming(false);
      setFailure(error);
    }
  };

  const marked = (mark: ClassMark) =>
    setMarks((known) => [...known.filter((item) => item.line_id !== mark.line_id), mark]);
  const alerts = new Map(answer.alerts.map((alert) => [alert.line_id, alert]));
  const starts = pageStarts(answer.lines);
  const exportUrl = routeUrl('GET /api/classes/:id/export', {
    params: { id: info.id },
    query: { format },
  }).url;
  return (
    <>
      <div class="library-class-head" ref={root}>
        <button type="button" class="button small" id="library-back" onClick={onBack}>
          {`← ${t('libraryBack')}`}
        </button>
        <div class="library-class-title">
          <strong>{info.course_name || t('untitledCourse')}</strong>
          <small>
            {`${localMinute(info.started_at)} · ${t('libraryLines', { count: info.line_count })}${info.alert_count ? ` · ${t('libraryAlerts', { count: info.alert_count })}` : ''}`}
          </small>
          {info.source ? (
            // A class transcribed from a recording: its line times are positions in the file.
            <small
              class="library-class-source"
              id="library-class-source"
              title={info.source.file_name}
            >
              {`${t('librarySource', { name: info.source.file_name })}${info.source.duration_ms === null ? '' : ` · ${clockTime(info.source.duration_ms)}`}`}
            </small>
          ) : null}
        </div>
      </div>
      <div class="toolbar library-actions">
        <select
          class="select small"
          id="library-export-format"
          aria-label={t('libraryExport')}
          value={format}
          onChange={(event) => {
            const chosen = event.currentTarget.value;
            setFormat(chosen === 'txt' || chosen === 'srt' || chosen === 'zip' ? chosen : 'md');
          }}
        >
          <option value="md">{t('libraryExportMd')}</option>
          <option value="txt">{t('libraryExportTxt')}</option>
          <option value="srt">{t('libraryExportSrt')}</option>
          {/* Always offered: without audio the zip holds the rest (its README.txt says so). */}
          <option value="zip">
            {t(info.audio_bytes !== null ? 'libraryExportZip' : 'libraryExportZipNoAudio')}
          </option>
        </select>
        <a class="button small" id="library-export" href={exportUrl} download="">
          {t('libraryExport')}
        </a>
        <button
          type="button"
          class="button small"
          id="library-notes"
          disabled={writing}
          onClick={writeNotes}
        >
          {t('libraryNotes')}
        </button>
        <button
          type="button"
          class="button small"
          id="library-delete"
          disabled={info.live}
          onClick={() => setConfirming(true)}
        >
          {t('libraryDelete')}
        </button>
        {info.live ? <MarkMomentButton onMarked={marked} /> : null}
      </div>
      {confirming ? (
        <div class="library-confirm">
          <p>
            {t('libraryDeleteConfirm', {
              course: info.course_name || t('untitledCourse'),
              date: localMinute(info.started_at),
            })}
          </p>
          <div class="button-row">
            <button
              type="button"
              class="button small danger"
              id="library-delete-confirm"
              onClick={remove}
            >
              {t('libraryDeleteYes')}
            </button>
            <button type="button" class="button small" onClick={() => setConfirming(false)}>
              {t('cancel')}
            </button>
          </div>
        </div>
      ) : null}
      <div class="panel-status">{failure ? <ErrorBox error={failure} /> : null}</div>
      <details class="history" hidden={info.history_summary === ''}>
        <summary>{t('historySummary')}</summary>
        <div class="markdown">{info.history_summary}</div>
      </details>
      <details
        class="history"
        ref={notesBox}
        open={notesOpen}
        hidden={notes === '' && !writing && !notesOpen}
        onToggle={(event) => setNotesOpen(event.currentTarget.open)}
      >
        <summary>{t('libraryNotesTitle')}</summary>
        <article
          class={writing ? 'markdown library-notes streaming' : 'markdown library-notes'}
          dangerouslySetInnerHTML={{ __html: renderMarkdown(notes) }}
        />
      </details>
      {marks.length > 0 ? (
        <section class="library-marks">
          <h4>{t('libraryMarks', { count: marks.length })}</h4>
          <ul class="transcript-lines">
            {[...marks]
              .sort((a, b) => a.line_id - b.line_id)
              .map((mark) => (
                <li key={mark.line_id} data-line-id={mark.line_id}>
                  <time>{mark.timestamp}</time>
                  <span>
                    {mark.text}
                    {mark.note ? <small class="library-mark-note">{mark.note}</small> : null}
                  </span>
                </li>
              ))}
          </ul>
        </section>
      ) : null}
      {answer.lines.length === 0 ? (
        <p class="empty">{t('libraryNoLines')}</p>
      ) : (
        <ol class="transcript-lines library-lines" ref={lineList}>
          {answer.lines.map((line, index) => {
            const alert = alerts.get(line.id);
            const pageStart = starts[index] ?? null;
            return (
              <li
                key={line.id}
                {...(line.id === lineId ? { ref: target } : {})}
                data-line-id={line.id}
                class={[
                  alert ? `alert-line ${alert.level}` : '',
                  line.id === lineId ? 'target' : '',
                  line.audio_ms === null ? '' : 'playable',
                  line.id === heard ? 'heard' : '',
                ].join(' ')}
                aria-current={line.id === heard ? 'true' : undefined}
              >
                {pageStart !== null && <PageLabel page={pageStart} />}
                <time>{line.timestamp}</time>
                <span>
                  {line.text}
                  {alert ? <span class="alert-keywords">{joinList(alert.keywords)}</span> : null}
                  {line.translation ? (
                    <small class="line-translation">{line.translation}</small>
                  ) : null}
                </span>
                {line.audio_ms === null ? null : (
                  <PlayLineButton
                    ms={line.audio_ms}
                    onPlay={() =>
                      void app.player.play(info.id, line.audio_ms as number, { live: info.live })
                    }
                  />
                )}
              </li>
            );
          })}
        </ol>
      )}
    </>
  );
}
