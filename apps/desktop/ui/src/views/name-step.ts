// The student's name (and, optionally, the last digits of the student number), saved as the
// backend's settings STUDENT_NAME and STUDENT_NUMBER_DIGITS: the first-run step at the top of the
// class panel, and the "My name" section of the keywords panel. The backend matches the name by
// sound too, so a name transcribed with characters that sound the same still alerts.
import type { AppContext } from '../context.ts';
import { h, replaceChildren } from '../dom.ts';
import { errorBox } from '../errors.ts';
import { t } from '../i18n.ts';
import { loadStudent, markStudentAsked, saveStudent } from '../my-keywords.ts';
import { cleanName, MAX_DIGITS, validDigits } from '../student.ts';

/** Creates the form; `firstRun` adds the title, the "Later" button and hides it once answered. */
export function createNameStep(
  context: AppContext,
  options: { firstRun: boolean; onDone?: () => void },
): { element: HTMLElement; load(): void; focus(): void } {
  const id = options.firstRun ? 'first-run' : 'my-name';
  const nameInput = h('input', {
    type: 'text',
    class: 'text-input',
    id: `${id}-name`,
    maxlength: 40,
    autocomplete: 'name',
    placeholder: t('namePlaceholder'),
  });
  const digitsInput = h('input', {
    type: 'text',
    class: 'text-input digits',
    id: `${id}-digits`,
    maxlength: MAX_DIGITS,
    inputmode: 'numeric',
    autocomplete: 'off',
    placeholder: t('digitsPlaceholder'),
  });
  const status = h('div', { class: 'panel-status', 'aria-live': 'polite' });
  const saveButton = h('button', { class: 'button primary', id: `${id}-save` }, t('nameSave'));
  const skipButton = options.firstRun
    ? h('button', { class: 'button', id: `${id}-skip` }, t('nameSkip'))
    : null;

  const load = () => {
    loadStudent().then(
      (student) => {
        nameInput.value = student.name;
        digitsInput.value = student.digits;
      },
      () => undefined, // Offline: the form starts empty; saving says what went wrong.
    );
  };

  const save = async () => {
    const name = cleanName(nameInput.value);
    const digits = digitsInput.value.trim();
    status.replaceChildren();
    if (!validDigits(digits)) {
      status.replaceChildren(h('p', { class: 'field-error' }, t('digitsInvalid')));
      digitsInput.focus();
      return;
    }
    if (options.firstRun && name === '' && digits === '') {
      status.replaceChildren(h('p', { class: 'field-error' }, t('nameNeeded')));
      nameInput.focus();
      return;
    }
    saveButton.disabled = true;
    try {
      const all = await saveStudent({ name, digits });
      markStudentAsked();
      context.store.set({ keywords: all });
      const heard = [name, digits === '' ? '' : `${t('digitsShort')} ${digits}`].filter(
        (part) => part !== '',
      );
      const saved = t('nameSaved', { words: heard.join(' · ') || '—' });
      if (options.firstRun) {
        context.toast(saved);
        options.onDone?.();
      } else {
        replaceChildren(status, h('p', { class: 'notice ok' }, saved));
      }
    } catch (error) {
      status.replaceChildren(errorBox(context, error));
    } finally {
      saveButton.disabled = false;
    }
  };
  saveButton.addEventListener('click', () => void save());
  for (const input of [nameInput, digitsInput]) {
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.isComposing) void save();
    });
  }
  skipButton?.addEventListener('click', () => {
    markStudentAsked();
    options.onDone?.();
  });

  load();
  const element = h(
    'section',
    { class: `name-step${options.firstRun ? ' first-run' : ''}` },
    options.firstRun ? h('h3', { class: 'name-step-title' }, t('nameTitle')) : null,
    h('p', { class: 'intro' }, t('nameIntro')),
    h(
      'div',
      { class: 'name-fields' },
      h(
        'label',
        { class: 'name-field' },
        h('span', { class: 'field-label' }, t('nameLabel')),
        nameInput,
      ),
      h(
        'label',
        { class: 'name-field digits-field' },
        h('span', { class: 'field-label' }, t('digitsLabel')),
        digitsInput,
      ),
    ),
    h('small', { class: 'setting-help' }, t('digitsHint')),
    h('div', { class: 'button-row' }, saveButton, skipButton),
    status,
  );
  return { element, load, focus: () => nameInput.focus() };
}
