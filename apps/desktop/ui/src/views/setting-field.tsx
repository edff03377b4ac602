// The settings panel's fields: a control for any key the backend defines (a list of its choices,
// or a text box; a secret shown masked), a field of the student's sections with its plain name,
// a field of Advanced with its key and when it applies, and the preset buttons that fill an
// address and a model.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { inUiLanguage } from '../setting-facts.ts';
import type { SettingDefinition, SettingsView } from '../types.ts';

/** The form's state, shared by the panel's sections. */
export interface SettingsForm {
  view: SettingsView;
  /** Every key's value as the form shows it. */
  values: Record<string, string>;
  /** A key's problem, as the backend said it. */
  errors: Record<string, string>;
  set(patch: Record<string, string>): void;
}

/** A "get a key" link, opened outside the app. */
export function KeyLink({ href }: { href: string }) {
  return (
    <a class="key-link" href={href} target="_blank" rel="noopener noreferrer">
      {t('cloudGetKey')}
    </a>
  );
}

/** The control of a key: its choices as a list, or a text box. */
function SettingControl({
  definition,
  form,
}: {
  definition: SettingDefinition;
  form: SettingsForm;
}) {
  const { key, choices } = definition;
  const id = `setting-${key}`;
  const value = form.values[key] ?? '';
  const onInput = (event: { currentTarget: HTMLInputElement | HTMLSelectElement }) =>
    form.set({ [key]: event.currentTarget.value });
  if (choices) {
    const values = choices.map((choice) => choice.value);
    const name = (value: string) => {
      const label = choices.find((choice) => choice.value === value)?.label;
      const words = label ? inUiLanguage(label) : value;
      return words === value ? value : `${value} — ${words}`;
    };
    // A value the form does not list (the original's seed-asr) stays selectable as it is.
    const stored = form.view.fields[key] ?? '';
    const listed = stored === '' || values.includes(stored) ? values : [...values, stored];
    return (
      <select class="select" id={id} name={key} value={value} onChange={onInput}>
        {/* Unset: the backend uses the default. */}
        <option value="">
          {definition.default ? t('settingDefault', { value: name(definition.default) }) : '—'}
        </option>
        {listed.map((choice) => (
          <option key={choice} value={choice}>
            {name(choice)}
          </option>
        ))}
      </select>
    );
  }
  return (
    <input
      class="text-input"
      id={id}
      name={key}
      // (Preact's types know no input that is a text box or a password box by a value.)
      type={(definition.secret ? 'password' : 'text') as 'text'}
      autocomplete="off"
      spellcheck={false}
      value={value}
      placeholder={definition.secret ? '' : definition.default || definition.example}
      onInput={onInput}
      // A masked value is kept as it is unless the student types a new one.
      onFocus={(event) => {
        if (event.currentTarget.value.startsWith('••')) event.currentTarget.select();
      }}
    />
  );
}

/** One field: its label (with what `badges` adds), the control, its problem, maybe a help. */
export function SettingField({
  settingKey,
  form,
  advanced = false,
  link,
}: {
  settingKey: string;
  form: SettingsForm;
  /** Under Advanced: the key itself, when it applies and what it does. */
  advanced?: boolean;
  link?: ComponentChildren;
}) {
  const definition = form.view.definitions.find((item) => item.key === settingKey);
  if (!definition) return null;
  const error = form.errors[settingKey];
  const applies =
    definition.applies === 'now'
      ? t('appliesNow')
      : definition.applies === 'restart'
        ? t('appliesRestart')
        : t('appliesNextClass');
  return (
    <div class="setting">
      <label for={`setting-${settingKey}`} class="setting-label">
        {inUiLanguage(definition.label)}
        {advanced ? <code>{settingKey}</code> : null}
        {form.view.environment_overrides.includes(settingKey) ? (
          <span class="badge warn">{t('overriddenByEnv')}</span>
        ) : null}
        {advanced ? <span class="badge">{applies}</span> : null}
        {link}
      </label>
      <SettingControl definition={definition} form={form} />
      <p class="field-error" hidden={!error}>
        {error}
      </p>
      {advanced ? (
        <small class="setting-help">{inUiLanguage(definition.descriptions)}</small>
      ) : null}
    </div>
  );
}

/** Buttons that fill an address and a model from a provider, and say where its key is made. */
export function PresetButtons({
  presets,
  keys,
  title,
  form,
}: {
  presets: ReadonlyArray<{
    id: string;
    name: string;
    baseUrl: string;
    model: string;
    keyUrl: string;
  }>;
  keys: { base: string; model: string; key: string };
  title: string;
  form: SettingsForm;
}) {
  const [filled, setFilled] = useState<(typeof presets)[number] | null>(null);
  return (
    <div class={`presets ${keys.base === 'CLOUD_ASR_BASE_URL' ? 'cloud-presets' : 'llm-presets'}`}>
      <small class="setting-help">{title}</small>
      <div class="row-buttons">
        {presets.map((preset) => (
          <button
            type="button"
            key={preset.id}
            class="button small"
            data-preset={preset.id}
            onClick={() => {
              form.set({ [keys.base]: preset.baseUrl, [keys.model]: preset.model });
              setFilled(preset);
              document.getElementById(`setting-${keys.key}`)?.focus();
            }}
          >
            {preset.name}
          </button>
        ))}
      </div>
      <p class="setting-help" aria-live="polite">
        {filled ? (
          <>
            {t('cloudPresetFilled', { name: filled.name })} <KeyLink href={filled.keyUrl} />
          </>
        ) : null}
      </p>
    </div>
  );
}
