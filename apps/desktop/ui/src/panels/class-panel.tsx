// The class panel: before class, the course name, the material (pick one or upload a deck, with
// progress) and whether recognition can run here; during class, pause/resume and ending the class
// with notes. A recording dropped on the window or picked is imported from here.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, uploadMaterial } from '../api.ts';
import { ErrorBox, TechnicalDetails } from '../components/error-box.tsx';
import { Icon } from '../components/icon.tsx';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import { materialStem } from '../material-name.ts';
import { studentAsked } from '../my-keywords.ts';
import { preference, savePreference } from '../preferences.ts';
import { isRecording } from '../recording-file.ts';
import { asrModeFacts, listensToAudio, loadSettingFacts, modeName } from '../setting-facts.ts';
import type { CiteFile, MonitorStatus, StopResult } from '../types.ts';
import { CaptureView } from '../views/capture-view.tsx';
import { ImportButton, ImportView } from '../views/import-view.tsx';
import { ModelOffer } from '../views/model-offer.tsx';
import { NameStep } from '../views/name-step.tsx';
import type { PanelProps } from './registry.tsx';

/** "deck（3 页）": the name the file was uploaded with and its pages, when known. */
function materialLabel(filename: string, pages: number | undefined): string {
  const name = materialStem(filename);
  return pages ? t('materialPages', { name, pages }) : name;
}

/** Whether recognition can run, as the checks at the top of the form say. */
type Checks = {
  recognition:
    | { kind: 'none' }
    | { kind: 'offer' }
    | { kind: 'ok'; mode: string }
    | { kind: 'bad'; mode: string; message: string };
  microphone: { ok: boolean; text: string; technical?: string; demo: boolean } | null;
};

const NO_CHECKS: Checks = { recognition: { kind: 'none' }, microphone: null };

/**
 * The checks for the health the backend reported last. While a recording is imported the backend
 * listens to it, not to the microphone: the microphone is checked again once the import is over.
 */
function useChecks(active: boolean, importing: boolean): Checks {
  const { store } = useApp();
  const health = store.use('health').value;
  const [checks, setChecks] = useState<Checks>(NO_CHECKS);
  useEffect(() => {
    if (!active || importing) return;
    if (!health) {
      setChecks(NO_CHECKS);
      return;
    }
    let current = true;
    void (async () => {
      const mode = health.asr.mode;
      const facts = await loadSettingFacts().catch(() => undefined);
      if (!current) return; // a newer health answer renders instead
      const needs = asrModeFacts(mode, facts);
      const recognition: Checks['recognition'] =
        !health.asr.available && needs?.model && health.asr.settings[0] === 'LOCAL_ASR_LANGUAGE'
          ? { kind: 'offer' } // no model for the class language: offer to download one
          : health.asr.available
            ? { kind: 'ok', mode }
            : { kind: 'bad', mode, message: health.asr.message };
      setChecks({ recognition, microphone: null });
      // Every mode that listens to audio input gets the check (the demo class listens to none).
      if (!listensToAudio(needs)) return;
      try {
        const check = await call('GET /api/check_mic', { errorStatusIsAnswer: true });
        // With AUDIO_INPUT=app, the capture view shows this window's microphone.
        if (!current || check.input === 'app') return;
        const ok = check.status === 'ok';
        setChecks({
          recognition,
          microphone: {
            ok,
            text: ok ? t('micOk', { device: check.device ?? '' }) : check.message,
            ...(!ok && check.technical ? { technical: check.technical } : {}),
            demo: !ok && health.asr.available,
          },
        });
      } catch {
        // No check: nothing said.
      }
    })();
    return () => {
      current = false;
    };
  }, [active, health, importing]);
  return checks;
}

/** What the upload says under the drop zone. */
type Upload =
  | { kind: 'none' }
  | { kind: 'sending'; fraction: number }
  | { kind: 'done'; text: string }
  | { kind: 'failed'; error: unknown };

/** What ending the class says. */
type Stopping =
  | { kind: 'none' }
  | { kind: 'busy'; withNotes: boolean }
  | { kind: 'done'; result: StopResult }
  | { kind: 'failed'; error: unknown };

/** The class panel. */
export function ClassPanel({ active }: PanelProps) {
  const app = useApp();
  const monitor = app.store.use('monitor').value;
  const idle = monitor.state === 'idle';
  const importing = app.store.use('import').value?.state === 'running';
  const checks = useChecks(active, importing);
  const health = app.store.use('health').value;
  // First use: the student's name, the strongest roll-call signal, before anything else.
  const [asked, setAsked] = useState(studentAsked);
  const [course, setCourse] = useState(() => preference('course', ''));
  const [material, setMaterial] = useState(() => preference('material', ''));
  const [citeFiles, setCiteFiles] = useState<CiteFile[]>([]);
  const [upload, setUpload] = useState<Upload>({ kind: 'none' });
  const [dragging, setDragging] = useState(false);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<unknown>(null);
  const courseInput = useRef<HTMLInputElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const shownMaterial = citeFiles.some((file) => file.filename === material) ? material : '';
  // What the form holds now, for a start that comes after a download.
  const form = useRef({ course, material: shownMaterial });
  form.current = { course, material: shownMaterial };

  const loadMaterials = async () => {
    try {
      setCiteFiles((await call('GET /api/cite_files')).items);
    } catch {
      setCiteFiles([]);
    }
  };
  useEffect(
    () =>
      app.onLiveEvent((message) => {
        if (message.name === 'material.uploaded') void loadMaterials();
      }),
    [],
  );
  useEffect(() => {
    if (!active) return;
    void loadMaterials();
    if (app.store.get().monitor.state === 'idle') {
      queueMicrotask(() =>
        (
          document.querySelector<HTMLInputElement>('#first-run-name') ?? courseInput.current
        )?.focus(),
      );
    }
  }, [active]);

  const send = async (file: File) => {
    setUpload({ kind: 'sending', fraction: 0 });
    try {
      const result = await uploadMaterial(file, (fraction) =>
        setUpload({ kind: 'sending', fraction }),
      );
      await loadMaterials();
      setMaterial(result.cite_filename);
      setUpload({
        kind: 'done',
        text: t('uploaded', {
          name: file.name,
          pages: result.pages ?? '?',
          chars: result.text_length,
        }),
      });
    } catch (error) {
      setUpload({ kind: 'failed', error });
    } finally {
      if (fileInput.current) fileInput.current.value = '';
    }
  };

  /** Starts the class with the course and material of the form; errors are thrown. */
  const startFromForm = async () => {
    const { course: name, material: chosen } = form.current;
    savePreference('course', name.trim());
    savePreference('material', chosen);
    await app.start({ course_name: name.trim(), cite_filename: chosen });
    app.openPanel(null);
  };
  const start = async () => {
    setStarting(true);
    setStartError(null);
    try {
      await startFromForm();
    } catch (error) {
      setStartError(error);
    } finally {
      setStarting(false);
    }
  };

  const { recognition, microphone } = checks;
  const sending = upload.kind === 'sending';
  return (
    <section class="panel-body class-panel" hidden={!active}>
      {asked ? null : <NameStep firstRun onDone={() => setAsked(true)} />}
      <CaptureView active={active} />
      <ImportView
        materials={citeFiles.map((file) => ({
          filename: file.filename,
          label: materialLabel(file.filename, file.pages),
        }))}
        material={shownMaterial}
      />
      <div class="class-before" hidden={!idle}>
        <div class="check-row">
          {recognition.kind === 'none' ? null : (
            <span class={recognition.kind === 'ok' ? 'check ok' : 'check bad'}>
              {recognition.kind === 'ok' ? '✓' : '!'}
            </span>
          )}
          {recognition.kind === 'offer' ? (
            <ModelOffer startClass={startFromForm} refresh={health} />
          ) : null}
          {recognition.kind === 'ok' ? (
            <span>
              {t('labelValue', { label: t('recognition'), value: modeName(recognition.mode) })}
            </span>
          ) : null}
          {recognition.kind === 'bad' ? (
            <div>
              <strong>
                {t('labelValue', { label: t('asrUnavailable'), value: modeName(recognition.mode) })}
              </strong>
              <p class="error-detail">{recognition.message}</p>
              <button
                type="button"
                class="button small primary"
                onClick={() => void app.useDemoMode()}
              >
                {t('useDemoMode')}
              </button>
            </div>
          ) : null}
        </div>
        <div class="check-row" hidden={microphone === null}>
          {microphone?.ok ? (
            <>
              <span class="check ok">✓</span>
              {microphone.text}
            </>
          ) : null}
          {microphone && !microphone.ok ? (
            <>
              <span class="check bad">!</span>
              <div>
                <strong>{t('micCheck')}</strong>
                <p class="error-detail">{microphone.text}</p>
                <TechnicalDetails text={microphone.technical} />
                {microphone.demo ? (
                  <button
                    type="button"
                    class="button small primary"
                    onClick={() => void app.useDemoMode()}
                  >
                    {t('useDemoMode')}
                  </button>
                ) : null}
              </div>
            </>
          ) : null}
        </div>
        <label class="field-label" for="course-name">
          {t('courseName')}
        </label>
        <input
          ref={courseInput}
          type="text"
          class="text-input"
          id="course-name"
          maxLength={200}
          placeholder={t('coursePlaceholder')}
          value={course}
          onInput={(event) => setCourse(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.isComposing) void start();
          }}
        />
        <label class="field-label" for="cite-file">
          {t('material')}
        </label>
        <select
          class="select"
          id="cite-file"
          value={shownMaterial}
          onChange={(event) => setMaterial(event.currentTarget.value)}
        >
          <option value="">{t('noMaterial')}</option>
          {citeFiles.map((file) => (
            <option key={file.filename} value={file.filename} title={file.filename}>
              {`${materialLabel(file.filename, file.pages)}  ·  ${file.updated_at.slice(5, 16)}`}
            </option>
          ))}
        </select>
        <button
          type="button"
          class={dragging ? 'drop-zone dragging' : 'drop-zone'}
          disabled={sending}
          onClick={() => fileInput.current?.click()}
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(event) => {
            event.preventDefault();
            setDragging(false);
            const file = event.dataTransfer?.files[0];
            // A recording is not material: it goes to the import form.
            if (file && isRecording(file)) app.pickRecording(file);
            else if (file) void send(file);
          }}
        >
          <Icon name="upload" />
          <span>
            <strong>{t('uploadMaterial')}</strong>
            <small>{t('uploadHint')}</small>
          </span>
        </button>
        <input
          ref={fileInput}
          type="file"
          accept=".pptx,.pdf,.docx"
          hidden
          aria-label={t('uploadMaterial')}
          onChange={(event) => {
            const file = event.currentTarget.files?.[0];
            if (file) void send(file);
          }}
        />
        {/* Parsing has no measure: the bar runs without a value then. */}
        {sending && upload.fraction >= 1 ? (
          <progress key="parsing" class="upload-progress" max={1} />
        ) : (
          <progress
            key="sending"
            class="upload-progress"
            max={1}
            value={sending ? upload.fraction : 0}
            hidden={!sending}
          />
        )}
        <p class={upload.kind === 'done' ? 'upload-status ok' : 'upload-status'}>
          {sending
            ? upload.fraction >= 1
              ? t('parsing')
              : t('uploading', { percent: Math.round(upload.fraction * 100) })
            : null}
          {upload.kind === 'done' ? upload.text : null}
          {upload.kind === 'failed' ? <ErrorBox error={upload.error} /> : null}
        </p>
        <button
          type="button"
          class="button primary big"
          id="start-class"
          disabled={starting}
          onClick={() => void start()}
        >
          {t('start')}
        </button>
        <div class="panel-status">
          {startError ? <ErrorBox error={startError} onDemoMode={() => void start()} /> : null}
        </div>
        <ImportButton />
      </div>
      {/* A recording's import runs as a class: the import view above has its progress and Cancel. */}
      {idle || importing ? null : <During monitor={monitor} citeFiles={citeFiles} />}
    </section>
  );
}

/** The class under way: what runs, pause/resume, and ending it. */
function During({ monitor, citeFiles }: { monitor: MonitorStatus; citeFiles: CiteFile[] }) {
  const app = useApp();
  const paused = monitor.state === 'paused';
  const [pausing, setPausing] = useState(false);
  const [withNotes, setWithNotes] = useState(() => preference('withNotes', 'true') === 'true');
  const [asking, setAsking] = useState(false);
  const [stopping, setStopping] = useState<Stopping>({ kind: 'none' });
  const stopButton = useRef<HTMLButtonElement>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmButton.current?.focus();
  }, [asking]);

  const course = monitor.course_name || t('untitledCourse');
  const info = [
    monitor.started_at
      ? t('startedAt', { time: monitor.started_at.slice(11, 19) || monitor.started_at })
      : '',
    t('labelValue', { label: t('recognition'), value: modeName(monitor.asr_mode) }),
    monitor.cite_filename
      ? t('labelValue', {
          label: t('material'),
          value: materialLabel(
            monitor.cite_filename,
            citeFiles.find((file) => file.filename === monitor.cite_filename)?.pages,
          ),
        })
      : '',
  ].filter((part) => part !== '');

  const pauseOrResume = async () => {
    setPausing(true);
    try {
      if (app.store.get().monitor.state === 'paused') await app.resume();
      else await app.pause();
    } finally {
      setPausing(false);
    }
  };
  const stop = async () => {
    setAsking(false);
    setStopping({ kind: 'busy', withNotes });
    try {
      setStopping({ kind: 'done', result: await app.stop(withNotes) });
    } catch (error) {
      setStopping({ kind: 'failed', error });
    }
  };

  return (
    <div class="class-during">
      <h3 class="class-title">
        {paused ? t('classPaused', { course }) : t('classRunning', { course })}
      </h3>
      <p class="class-info">{info.join(' · ')}</p>
      <div class="panel-status">
        {monitor.recognizer_state === 'ended' ? (
          <p class="notice">{t('recognizerEnded')}</p>
        ) : monitor.recognizer_state === 'failed' ? (
          <p class="error-detail">{t('stateFailed')}</p>
        ) : null}
      </div>
      <div class="button-row">
        <button
          type="button"
          class="button"
          disabled={pausing}
          onClick={() => void pauseOrResume()}
        >
          <Icon name={paused ? 'play' : 'pause'} />
          {paused ? t('resume') : t('pause')}
        </button>
        <button
          ref={stopButton}
          type="button"
          class="button danger"
          id="stop-class"
          disabled={asking || stopping.kind === 'busy'}
          onClick={() => setAsking(true)}
        >
          <Icon name="stop" />
          {t('stop')}
        </button>
      </div>
      <label class="check-label">
        <input
          type="checkbox"
          id="with-notes"
          checked={withNotes}
          onChange={(event) => {
            setWithNotes(event.currentTarget.checked);
            savePreference('withNotes', String(event.currentTarget.checked));
          }}
        />
        {t('withNotes')}
      </label>
      {/* Ending a class stops listening for good: the student confirms it. */}
      <div class="stop-question" role="alertdialog" aria-label={t('stopConfirm')} hidden={!asking}>
        <p>{t('stopConfirm')}</p>
        <div class="button-row">
          <button
            ref={confirmButton}
            type="button"
            class="button danger"
            id="stop-confirm"
            onClick={() => void stop()}
          >
            <Icon name="stop" />
            {t('stopConfirmYes')}
          </button>
          <button
            type="button"
            class="button"
            onClick={() => {
              setAsking(false);
              queueMicrotask(() => stopButton.current?.focus());
            }}
          >
            {t('cancel')}
          </button>
        </div>
      </div>
      <div class="panel-status">
        {stopping.kind === 'busy' ? (
          <p class="notice busy">
            {stopping.withNotes ? `${t('stop')}… ${t('notesGenerate')}…` : `${t('stop')}…`}
          </p>
        ) : null}
        {stopping.kind === 'done' ? <Stopped result={stopping.result} /> : null}
        {stopping.kind === 'failed' ? <ErrorBox error={stopping.error} /> : null}
      </div>
    </div>
  );
}

/** The class ended: said, with the notes written (or why not). */
function Stopped({ result }: { result: StopResult }) {
  const app = useApp();
  return (
    <>
      <p class="notice ok">{t('stopped')}</p>
      {result.summary ? (
        <p>
          {t('notesWritten', { filename: result.summary.filename })}{' '}
          <button type="button" class="link-button" onClick={() => app.openPanel('notes')}>
            {t('openNotes')}
          </button>
        </p>
      ) : result.summary_error ? (
        <p class="error-detail">{t('notesFailed', { reason: result.summary_error })}</p>
      ) : null}
    </>
  );
}
