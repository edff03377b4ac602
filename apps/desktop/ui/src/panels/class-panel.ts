// The class panel: before class, the course name, the material (pick one or upload a deck, with
// progress) and whether recognition can run here; during class, pause/resume and ending the class
// with notes.
import { call, uploadMaterial } from '../api.ts';
import type { AppContext } from '../context.ts';
import { h, icon, replaceChildren } from '../dom.ts';
import { errorBox } from '../errors.ts';
import { t } from '../i18n.ts';
import { materialStem } from '../material-name.ts';
import { studentAsked } from '../my-keywords.ts';
import { preference, savePreference } from '../preferences.ts';
import { asrModeFacts, listensToAudio, loadSettingFacts, modeName } from '../setting-facts.ts';
import type { AppState } from '../store.ts';
import type { CiteFile } from '../types.ts';
import { createCaptureView } from '../views/capture-view.ts';
import { createModelOffer } from '../views/model-offer.ts';
import { createNameStep } from '../views/name-step.ts';
import type { Panel } from './panel.ts';

/** "deck（3 页）": the name the file was uploaded with and its pages, when known. */
function materialLabel(filename: string, pages: number | undefined): string {
  const name = materialStem(filename);
  return pages ? t('materialPages', { name, pages }) : name;
}

/** Creates the class panel. */
export function createClassPanel(context: AppContext): Panel {
  const { store } = context;
  // This window's microphone (AUDIO_INPUT=app), before and during class.
  const capture = createCaptureView(context);
  // First use: the student's name, the strongest roll-call signal, before anything else.
  const nameStep = createNameStep(context, {
    firstRun: true,
    onDone: () => {
      nameStep.element.hidden = true;
    },
  });
  nameStep.element.hidden = studentAsked();

  // ---- before class ----
  const recognition = h('div', { class: 'check-row' });
  const microphone = h('div', { class: 'check-row', hidden: true });
  const courseInput = h('input', {
    type: 'text',
    class: 'text-input',
    id: 'course-name',
    maxlength: 200,
    placeholder: t('coursePlaceholder'),
    value: preference('course', ''),
  });
  const materialSelect = h('select', { class: 'select', id: 'cite-file' });
  const fileInput = h('input', {
    type: 'file',
    accept: '.pptx,.pdf,.docx',
    hidden: true,
    'aria-label': t('uploadMaterial'),
  });
  const progress = h('progress', { class: 'upload-progress', max: 1, value: 0, hidden: true });
  const uploadStatus = h('p', { class: 'upload-status' });
  const dropZone = h(
    'button',
    { class: 'drop-zone', type: 'button', onclick: () => fileInput.click() },
    icon('upload'),
    h('span', null, h('strong', null, t('uploadMaterial')), h('small', null, t('uploadHint'))),
  );
  const startError = h('div', { class: 'panel-status' });
  const startButton = h('button', { class: 'button primary big', id: 'start-class' }, t('start'));
  const before = h(
    'div',
    { class: 'class-before' },
    recognition,
    microphone,
    h('label', { class: 'field-label', for: 'course-name' }, t('courseName')),
    courseInput,
    h('label', { class: 'field-label', for: 'cite-file' }, t('material')),
    materialSelect,
    dropZone,
    fileInput,
    progress,
    uploadStatus,
    startButton,
    startError,
  );

  // ---- during class ----
  const runningTitle = h('h3', { class: 'class-title' });
  const runningInfo = h('p', { class: 'class-info' });
  const recognizerNotice = h('div', { class: 'panel-status' });
  const pauseButton = h('button', { class: 'button' });
  const withNotes = h('input', {
    type: 'checkbox',
    id: 'with-notes',
    checked: preference('withNotes', 'true') === 'true',
  });
  const stopButton = h(
    'button',
    { class: 'button danger', id: 'stop-class' },
    icon('stop'),
    t('stop'),
  );
  const stopStatus = h('div', { class: 'panel-status' });
  // Ending a class stops listening for good: the student confirms it.
  const confirmStop = h(
    'button',
    { class: 'button danger', id: 'stop-confirm' },
    icon('stop'),
    t('stopConfirmYes'),
  );
  const cancelStop = h('button', { class: 'button' }, t('cancel'));
  const stopQuestion = h(
    'div',
    { class: 'stop-question', role: 'alertdialog', 'aria-label': t('stopConfirm'), hidden: true },
    h('p', null, t('stopConfirm')),
    h('div', { class: 'button-row' }, confirmStop, cancelStop),
  );
  const during = h(
    'div',
    { class: 'class-during', hidden: true },
    runningTitle,
    runningInfo,
    recognizerNotice,
    h('div', { class: 'button-row' }, pauseButton, stopButton),
    h('label', { class: 'check-label' }, withNotes, t('withNotes')),
    stopQuestion,
    stopStatus,
  );

  let citeFiles: CiteFile[] = [];
  const renderMaterials = (select?: string) => {
    const chosen = select ?? materialSelect.value ?? preference('material', '');
    replaceChildren(
      materialSelect,
      h('option', { value: '' }, t('noMaterial')),
      citeFiles.map((file) =>
        h(
          'option',
          { value: file.filename, selected: file.filename === chosen, title: file.filename },
          `${materialLabel(file.filename, file.pages)}  ·  ${file.updated_at.slice(5, 16)}`,
        ),
      ),
    );
    if (!citeFiles.some((file) => file.filename === chosen)) materialSelect.value = '';
  };
  const loadMaterials = async (select?: string) => {
    try {
      citeFiles = (await call('GET /api/cite_files')).items;
    } catch {
      citeFiles = [];
    }
    renderMaterials(select);
  };

  const renderChecks = async () => {
    const health = store.get().health;
    if (!health) {
      recognition.replaceChildren();
      return;
    }
    const mode = health.asr.mode;
    const facts = await loadSettingFacts().catch(() => undefined);
    if (store.get().health !== health) return; // a newer health answer renders instead
    const needs = asrModeFacts(mode, facts);
    if (!health.asr.available && needs?.model && health.asr.settings[0] === 'LOCAL_ASR_LANGUAGE') {
      // No model for the class language: offer to download one, then start.
      replaceChildren(recognition, h('span', { class: 'check bad' }, '!'), modelOffer.element);
      void modelOffer.refresh();
    } else if (health.asr.available) {
      replaceChildren(
        recognition,
        h('span', { class: 'check ok' }, '✓'),
        h('span', null, t('labelValue', { label: t('recognition'), value: modeName(mode) })),
      );
    } else {
      replaceChildren(
        recognition,
        h('span', { class: 'check bad' }, '!'),
        h(
          'div',
          null,
          h('strong', null, t('labelValue', { label: t('asrUnavailable'), value: modeName(mode) })),
          h('p', { class: 'error-detail' }, health.asr.message),
          h(
            'button',
            { class: 'button small primary', onclick: () => void context.useDemoMode() },
            t('useDemoMode'),
          ),
        ),
      );
    }
    microphone.hidden = true;
    // Every mode that listens to audio input gets the check (the demo class listens to none).
    if (!listensToAudio(needs)) return;
    try {
      const check = await call('GET /api/check_mic', { errorStatusIsAnswer: true });
      if (check.input === 'app') return; // the capture view shows this window's microphone
      microphone.hidden = false;
      if (check.status === 'ok') {
        replaceChildren(
          microphone,
          h('span', { class: 'check ok' }, '✓'),
          t('micOk', { device: check.device ?? '' }),
        );
      } else {
        replaceChildren(
          microphone,
          h('span', { class: 'check bad' }, '!'),
          h(
            'div',
            null,
            h('strong', null, t('micCheck')),
            h('p', { class: 'error-detail' }, check.message),
            health.asr.available
              ? h(
                  'button',
                  { class: 'button small primary', onclick: () => void context.useDemoMode() },
                  t('useDemoMode'),
                )
              : null,
          ),
        );
      }
    } catch {
      microphone.hidden = true;
    }
  };

  const upload = async (file: File) => {
    progress.hidden = false;
    progress.value = 0;
    uploadStatus.className = 'upload-status';
    uploadStatus.textContent = t('uploading', { percent: 0 });
    dropZone.disabled = true;
    try {
      const result = await uploadMaterial(file, (fraction) => {
        progress.value = fraction;
        uploadStatus.textContent =
          fraction >= 1 ? t('parsing') : t('uploading', { percent: Math.round(fraction * 100) });
        if (fraction >= 1) progress.removeAttribute('value');
      });
      await loadMaterials(result.cite_filename);
      uploadStatus.textContent = t('uploaded', {
        name: file.name,
        pages: result.pages ?? '?',
        chars: result.text_length,
      });
      uploadStatus.className = 'upload-status ok';
    } catch (error) {
      uploadStatus.replaceChildren(errorBox(context, error));
    } finally {
      progress.hidden = true;
      dropZone.disabled = false;
      fileInput.value = '';
    }
  };
  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    if (file) void upload(file);
  });
  dropZone.addEventListener('dragover', (event) => {
    event.preventDefault();
    dropZone.classList.add('dragging');
  });
  dropZone.addEventListener('dragleave', () => dropZone.classList.remove('dragging'));
  dropZone.addEventListener('drop', (event) => {
    event.preventDefault();
    dropZone.classList.remove('dragging');
    const file = event.dataTransfer?.files[0];
    if (file) void upload(file);
  });

  /** Starts the class with the course and material of the form; errors are thrown. */
  const startFromForm = async () => {
    savePreference('course', courseInput.value.trim());
    savePreference('material', materialSelect.value);
    await context.start({
      course_name: courseInput.value.trim(),
      cite_filename: materialSelect.value,
    });
    context.openPanel(null);
  };
  const modelOffer = createModelOffer(context, startFromForm);

  const start = async () => {
    startButton.disabled = true;
    startError.replaceChildren();
    try {
      await startFromForm();
    } catch (error) {
      startError.replaceChildren(errorBox(context, error, () => void start()));
    } finally {
      startButton.disabled = false;
    }
  };
  startButton.addEventListener('click', () => void start());
  courseInput.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.isComposing) void start();
  });

  pauseButton.addEventListener('click', async () => {
    pauseButton.disabled = true;
    try {
      if (store.get().monitor.state === 'paused') await context.resume();
      else await context.pause();
    } finally {
      pauseButton.disabled = false;
    }
  });
  withNotes.addEventListener('change', () =>
    savePreference('withNotes', String(withNotes.checked)),
  );
  stopButton.addEventListener('click', () => {
    stopQuestion.hidden = false;
    stopButton.disabled = true;
    confirmStop.focus();
  });
  const closeStopQuestion = () => {
    stopQuestion.hidden = true;
    stopButton.disabled = false;
  };
  cancelStop.addEventListener('click', () => {
    closeStopQuestion();
    stopButton.focus();
  });
  confirmStop.addEventListener('click', async () => {
    closeStopQuestion();
    stopButton.disabled = true;
    stopStatus.replaceChildren(
      h(
        'p',
        { class: 'notice busy' },
        withNotes.checked ? `${t('stop')}… ${t('notesGenerate')}…` : `${t('stop')}…`,
      ),
    );
    try {
      const result = await context.stop(withNotes.checked);
      const parts: HTMLElement[] = [h('p', { class: 'notice ok' }, t('stopped'))];
      if (result.summary) {
        parts.push(
          h(
            'p',
            null,
            t('notesWritten', { filename: result.summary.filename }),
            ' ',
            h(
              'button',
              { class: 'link-button', onclick: () => context.openPanel('notes') },
              t('openNotes'),
            ),
          ),
        );
      } else if (result.summary_error) {
        parts.push(
          h('p', { class: 'error-detail' }, t('notesFailed', { reason: result.summary_error })),
        );
      }
      stopStatus.replaceChildren(...parts);
    } catch (error) {
      stopStatus.replaceChildren(errorBox(context, error));
    } finally {
      stopButton.disabled = false;
    }
  });

  const update = (state: AppState, previous: AppState) => {
    const { monitor } = state;
    const idle = monitor.state === 'idle';
    before.hidden = !idle;
    during.hidden = idle;
    if (!idle) {
      const course = monitor.course_name || t('untitledCourse');
      runningTitle.textContent =
        monitor.state === 'paused' ? t('classPaused', { course }) : t('classRunning', { course });
      runningInfo.textContent = [
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
      ]
        .filter((part) => part !== '')
        .join(' · ');
      pauseButton.replaceChildren(
        icon(monitor.state === 'paused' ? 'play' : 'pause'),
        monitor.state === 'paused' ? t('resume') : t('pause'),
      );
      recognizerNotice.replaceChildren(
        monitor.recognizer_state === 'ended'
          ? h('p', { class: 'notice' }, t('recognizerEnded'))
          : monitor.recognizer_state === 'failed'
            ? h('p', { class: 'error-detail' }, t('stateFailed'))
            : '',
      );
    }
    if (previous.monitor.state === 'idle' && !idle) stopStatus.replaceChildren();
    if (idle && !stopQuestion.hidden) closeStopQuestion();
    if (state.health !== previous.health && state.panel === 'class') void renderChecks();
    capture.update();
  };

  context.onLiveEvent((message) => {
    if (message.name === 'material.uploaded') void loadMaterials();
  });

  return {
    name: 'class',
    element: h(
      'section',
      { class: 'panel-body class-panel' },
      nameStep.element,
      capture.element,
      before,
      during,
    ),
    onShow() {
      capture.onShow();
      void loadMaterials();
      void renderChecks();
      if (store.get().monitor.state === 'idle') {
        queueMicrotask(() => (nameStep.element.hidden ? courseInput.focus() : nameStep.focus()));
      }
    },
    update,
  };
}
