// The student's name (and, optionally, the last digits of the student number), saved as the
// backend's settings STUDENT_NAME and STUDENT_NUMBER_DIGITS: the first-run step at the top of the
// class panel, and the "My name" section of the keywords panel. The backend matches the name by
// sound too, so a name transcribed with characters that sound the same still alerts, and an
// alert on the name or the digits is "for you".
import { useEffect, useState } from 'preact/hooks';
import { ErrorBox } from '../components/error-box.tsx';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import { loadStudent, markStudentAsked, saveStudent } from '../my-keywords.ts';
import { cleanName, MAX_DIGITS, validDigits } from '../student.ts';

/** What the form says under its buttons. */
type Status =
  | { kind: 'none' }
  | { kind: 'invalid'; text: string }
  | { kind: 'saved'; text: string }
  | { kind: 'failed'; error: unknown };

/**
 * The form; `firstRun` adds the title and the "Later" button, and calls `onDone` once answered.
 * It reads the saved name from the settings when it mounts (give it a new `key` to read it again).
 */
export function NameStep({ firstRun, onDone }: { firstRun: boolean; onDone?: () => void }) {
  const app = useApp();
  const id = firstRun ? 'first-run' : 'my-name';
  const [name, setName] = useState('');
  const [digits, setDigits] = useState('');
  const [status, setStatus] = useState<Status>({ kind: 'none' });
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    let live = true;
    loadStudent().then(
      (saved) => {
        // What the student started typing meanwhile stays.
        if (!live) return;
        setName((typed) => typed || saved.name);
        setDigits((typed) => typed || saved.digits);
      },
      () => undefined, // Offline: the form starts empty; saving says what went wrong.
    );
    return () => {
      live = false;
    };
  }, []);

  const save = async (form: HTMLElement | null) => {
    const cleaned = cleanName(name);
    const trimmed = digits.trim();
    const focus = (which: 'name' | 'digits') =>
      form?.querySelector<HTMLInputElement>(`#${id}-${which}`)?.focus();
    if (!validDigits(trimmed)) {
      setStatus({ kind: 'invalid', text: t('digitsInvalid') });
      focus('digits');
      return;
    }
    if (firstRun && cleaned === '' && trimmed === '') {
      setStatus({ kind: 'invalid', text: t('nameNeeded') });
      focus('name');
      return;
    }
    setStatus({ kind: 'none' });
    setSaving(true);
    try {
      const all = await saveStudent({ name: cleaned, digits: trimmed });
      markStudentAsked();
      app.store.set({ keywords: all });
      const heard = [cleaned, trimmed === '' ? '' : `${t('digitsShort')} ${trimmed}`].filter(
        (part) => part !== '',
      );
      const saved = t('nameSaved', { words: heard.join(' · ') || '—' });
      if (firstRun) {
        app.toast(saved);
        onDone?.();
      } else {
        setStatus({ kind: 'saved', text: saved });
      }
    } catch (error) {
      setStatus({ kind: 'failed', error });
    } finally {
      setSaving(false);
    }
  };
  const onEnter = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && !event.isComposing) {
      void save((event.currentTarget as HTMLElement).closest('section'));
    }
  };

  return (
    <section class={`name-step${firstRun ? ' first-run' : ''}`}>
      {firstRun ? <h3 class="name-step-title">{t('nameTitle')}</h3> : null}
      <p class="intro">{t('nameIntro')}</p>
      <div class="name-fields">
        <label class="name-field">
          <span class="field-label">{t('nameLabel')}</span>
          <input
            type="text"
            class="text-input"
            id={`${id}-name`}
            maxLength={40}
            autocomplete="name"
            placeholder={t('namePlaceholder')}
            value={name}
            onInput={(event) => setName(event.currentTarget.value)}
            onKeyDown={onEnter}
          />
        </label>
        <label class="name-field digits-field">
          <span class="field-label">{t('digitsLabel')}</span>
          <input
            type="text"
            class="text-input digits"
            id={`${id}-digits`}
            maxLength={MAX_DIGITS}
            inputMode="numeric"
            autocomplete="off"
            placeholder={t('digitsPlaceholder')}
            value={digits}
            onInput={(event) => setDigits(event.currentTarget.value)}
            onKeyDown={onEnter}
          />
        </label>
      </div>
      <small class="setting-help">{t('digitsHint')}</small>
      <div class="button-row">
        <button
          type="button"
          class="button primary"
          id={`${id}-save`}
          disabled={saving}
          onClick={(event) => void save(event.currentTarget.closest('section'))}
        >
          {t('nameSave')}
        </button>
        {firstRun ? (
          <button
            type="button"
            class="button"
            id={`${id}-skip`}
            onClick={() => {
              markStudentAsked();
              onDone?.();
            }}
          >
            {t('nameSkip')}
          </button>
        ) : null}
      </div>
      <div class="panel-status" aria-live="polite">
        {status.kind === 'invalid' ? <p class="field-error">{status.text}</p> : null}
        {status.kind === 'saved' ? <p class="notice ok">{status.text}</p> : null}
        {status.kind === 'failed' ? <ErrorBox error={status.error} /> : null}
      </div>
    </section>
  );
}
