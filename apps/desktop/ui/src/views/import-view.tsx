// A recording imported into the library, in the class panel: the form for a dropped or picked
// file (course name, material, Import), the upload's percent, then the import as the backend
// reports it (percent, minutes done, time left, lines; Cancel), its failure with Resume, or the
// class it made with its notes. Also the "Import a recording…" button with its file picker.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { ErrorBox, TechnicalDetails } from '../components/error-box.tsx';
import { Icon } from '../components/icon.tsx';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import { importPercent, importProgressText } from '../import-progress.ts';
import { megabytes } from '../models.ts';
import { preference, savePreference } from '../preferences.ts';
import {
  courseFromFile,
  isRecording,
  RECORDING_EXTENSIONS,
  recordingFormats,
} from '../recording-file.ts';
import type { ImportStatus } from '../types.ts';

/** A material the import can cite: its stored name and how the list shows it. */
interface MaterialChoice {
  filename: string;
  label: string;
}

/** The files of the picker: the recordings' extensions. */
const ACCEPT = RECORDING_EXTENSIONS.join(',');

/** Documents that belong in the material box, not here. */
const DOCUMENT = /\.(pptx|pdf|docx)$/i;

/** "Import a recording…": a file picker, for whoever does not drag. */
export function ImportButton() {
  const app = useApp();
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button
        type="button"
        class="button import-button"
        id="import-recording"
        onClick={() => input.current?.click()}
      >
        <Icon name="upload" />
        {t('importRecording')}
      </button>
      <input
        ref={input}
        type="file"
        id="import-file"
        accept={ACCEPT}
        hidden
        aria-label={t('importRecording')}
        onChange={(event) => {
          const file = event.currentTarget.files?.[0];
          event.currentTarget.value = '';
          if (file) app.pickRecording(file);
        }}
      />
    </>
  );
}

/** The form, the upload and the import's progress or outcome. */
export function ImportView({
  materials,
  material,
}: {
  materials: readonly MaterialChoice[];
  /** The material chosen for the class, the form's first choice. */
  material: string;
}) {
  const app = useApp();
  const asked = app.requests.recording.value;
  const status = app.store.use('import').value;
  const [picked, setPicked] = useState<File | null>(null);
  const [refused, setRefused] = useState<File | null>(null);
  const [course, setCourse] = useState('');
  const [cite, setCite] = useState('');
  const [sending, setSending] = useState<number | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  /** Set when the student cancelled the upload: the form stays, with the file, to try again. */
  const [uploadCancelled, setUploadCancelled] = useState(false);
  const upload = useRef<AbortController | null>(null);
  const [dismissed, setDismissed] = useState(() => preference('import-dismissed', ''));
  const view = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!asked) return;
    setFailure(null);
    setUploadCancelled(false);
    if (isRecording(asked.file)) {
      setRefused(null);
      setPicked(asked.file);
      setCourse(courseFromFile(asked.file.name));
      setCite(materials.some((choice) => choice.filename === material) ? material : '');
    } else {
      setRefused(asked.file);
    }
    // After the panel's own focus (the course name of a class) has moved: the form, or the refusal.
    requestAnimationFrame(() => {
      view.current?.querySelector<HTMLElement>('#import-course, .error-box button')?.focus();
      view.current?.scrollIntoView({ block: 'start' });
    });
  }, [asked]);

  const send = async () => {
    if (!picked || sending !== null) return;
    setSending(0);
    setFailure(null);
    setUploadCancelled(false);
    const controller = new AbortController();
    upload.current = controller;
    try {
      await app.importRecording(
        picked,
        { course_name: course.trim(), cite_filename: cite },
        setSending,
        controller.signal,
      );
      setPicked(null);
      setDismissed('');
      savePreference('import-dismissed', '');
    } catch (error) {
      if (error instanceof ApiError && error.code === 'ABORTED') setUploadCancelled(true);
      else setFailure(error);
    } finally {
      upload.current = null;
      setSending(null);
    }
  };

  const dismiss = (id: string) => {
    setDismissed(id);
    savePreference('import-dismissed', id);
  };

  const shown = status && (status.state === 'running' || status.id !== dismissed) ? status : null;
  if (!refused && !picked && !shown) return null;
  return (
    <div class="import-view" ref={view}>
      {refused ? (
        <div class="error-box" role="alert">
          <p class="error-message">
            {t('importNotRecording', { name: refused.name, formats: recordingFormats() })}
          </p>
          {DOCUMENT.test(refused.name) ? (
            <p class="error-detail">{t('importMaterialHint')}</p>
          ) : null}
          <div class="error-actions">
            <button type="button" class="button" onClick={() => setRefused(null)}>
              {t('close')}
            </button>
          </div>
        </div>
      ) : null}
      {picked ? (
        <div class="import-form">
          <h3 class="class-title">{t('importTitle')}</h3>
          <p class="file-info">
            {t('importFile', { name: picked.name, size: megabytes(picked.size) })}
          </p>
          <label class="field-label" for="import-course">
            {t('courseName')}
          </label>
          <input
            type="text"
            class="text-input"
            id="import-course"
            maxLength={200}
            value={course}
            disabled={sending !== null}
            onInput={(event) => setCourse(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && !event.isComposing) void send();
            }}
          />
          <label class="field-label" for="import-material">
            {t('material')}
          </label>
          <select
            class="select"
            id="import-material"
            value={cite}
            disabled={sending !== null}
            onChange={(event) => setCite(event.currentTarget.value)}
          >
            <option value="">{t('noMaterial')}</option>
            {materials.map((choice) => (
              <option key={choice.filename} value={choice.filename} title={choice.filename}>
                {choice.label}
              </option>
            ))}
          </select>
          <progress
            class="upload-progress"
            max={1}
            value={sending ?? 0}
            hidden={sending === null}
          />
          <p class="upload-status" role="status">
            {sending !== null
              ? t('uploading', { percent: Math.round(sending * 100) })
              : uploadCancelled
                ? t('uploadCancelled')
                : null}
          </p>
          {failure ? <ErrorBox error={failure} /> : null}
          <div class="button-row">
            <button
              type="button"
              class="button primary"
              id="import-start"
              disabled={sending !== null}
              onClick={() => void send()}
            >
              {t('importStart')}
            </button>
            {/* While the file is sent, Cancel stops the upload (the form stays); else it closes. */}
            <button
              type="button"
              class="button"
              id="import-form-cancel"
              onClick={() => {
                if (upload.current) {
                  upload.current.abort();
                  return;
                }
                setPicked(null);
                setFailure(null);
                setUploadCancelled(false);
              }}
            >
              {t('cancel')}
            </button>
          </div>
        </div>
      ) : null}
      {shown && !picked ? <ImportState status={shown} onDismiss={() => dismiss(shown.id)} /> : null}
    </div>
  );
}

/** The import as the backend reports it. */
function ImportState({ status, onDismiss }: { status: ImportStatus; onDismiss: () => void }) {
  const app = useApp();
  const lang = app.store.use('lang').value;
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const course = status.course_name || status.file_name;
  const act = async (action: () => Promise<void>) => {
    setBusy(true);
    setFailure(null);
    try {
      await action();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  };
  const resume = status.resumable ? (
    <button
      type="button"
      class="button primary"
      id="import-resume"
      disabled={busy}
      onClick={() => void act(() => app.resumeImport(status.id))}
    >
      {t('resume')}
    </button>
  ) : null;
  const close = (
    <button type="button" class="button" onClick={onDismiss}>
      {t('close')}
    </button>
  );

  return (
    <div class="import-state" data-state={status.state}>
      {status.state === 'running' ? (
        <>
          <h3 class="class-title">{t('importRunning', { course })}</h3>
          <progress class="upload-progress" max={1} value={status.fraction} />
          <p class="import-progress" aria-live="polite">
            <strong>{`${importPercent(status)}%`}</strong> {importProgressText(status)}
          </p>
          <p class="class-info">{t('importLines', { count: status.lines })}</p>
          <div class="button-row">
            <button
              type="button"
              class="button danger"
              id="import-cancel"
              disabled={busy}
              onClick={() => void act(() => app.cancelImport())}
            >
              {t('cancel')}
            </button>
          </div>
        </>
      ) : null}
      {status.state === 'failed' ? (
        <div class="error-box" role="alert">
          <p class="error-message">{t('importFailed', { course })}</p>
          {status.error ? <p class="error-detail">{status.error[lang]}</p> : null}
          <TechnicalDetails text={status.error?.technical ?? undefined} />
          <div class="error-actions">
            {resume}
            {close}
          </div>
        </div>
      ) : null}
      {status.state === 'cancelled' ? (
        <div class="notice">
          <p>
            {status.lines > 0
              ? t('importCancelled', { course, count: status.lines })
              : t('importCancelledEmpty', { course })}
          </p>
          <div class="button-row">
            {resume}
            {close}
          </div>
        </div>
      ) : null}
      {status.state === 'done' ? (
        <div class="notice ok import-done">
          <p>{t('importDone', { course, count: status.lines })}</p>
          <ImportNotes status={status} />
          <div class="button-row">
            {status.class_id ? (
              <button
                type="button"
                class="button primary"
                id="import-open"
                onClick={() => app.openClass(status.class_id as string)}
              >
                {t('importOpenClass')}
              </button>
            ) : null}
            {close}
          </div>
        </div>
      ) : null}
      {failure ? <ErrorBox error={failure} /> : null}
    </div>
  );
}

/** The notes of an imported class: written, being written, or why not and what to do. */
function ImportNotes({ status }: { status: ImportStatus }) {
  const app = useApp();
  const lang = app.store.use('lang').value;
  const warning = status.warning ? status.warning[lang] : '';
  if (status.notes === 'pending') return <p class="import-notes busy">{t('importNotesPending')}</p>;
  if (status.notes === 'written') {
    return (
      <p class="import-notes">
        {t('importNotesWritten')}{' '}
        <button type="button" class="link-button" onClick={() => app.openPanel('notes')}>
          {t('openNotes')}
        </button>
      </p>
    );
  }
  return (
    <div class="import-notes problem">
      <p>{status.notes === 'skipped' ? t('importNotesSkipped') : t('importNotesFailed')}</p>
      {/* The backend's own words say why; without them, ours. */}
      {warning ? <p class="error-detail">{warning}</p> : null}
      {status.notes === 'skipped' ? (
        <p class="error-detail">
          {warning ? null : `${t('importNotesHowTo')} `}
          <button type="button" class="link-button" onClick={() => app.openPanel('settings')}>
            {t('errorOpenSettings')}
          </button>
        </p>
      ) : null}
    </div>
  );
}
