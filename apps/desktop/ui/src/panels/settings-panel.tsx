// Settings (480x520), for a student: this app's preferences; how the class is heard (one choice
// per ASR mode the backend runs, each with what it needs: the keys with a "get a key" link, the
// offline models); the AI service; the microphone. Everything else of the backend's settings
// file is under Advanced: every key as a form (secrets stay masked: the mask posted back keeps
// the stored value) and the other lines in a text area kept byte for byte. Names, groups,
// choices and what each mode needs come from the backend's answer.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, isApiError } from '../api.ts';
import { CLOUD_PRESETS } from '../cloud-presets.ts';
import { ConnectionTest, hasConnectionTest } from '../components/connection-test.tsx';
import { ErrorBox } from '../components/error-box.tsx';
import { useApp } from '../context.ts';
import { joinList, lang, t } from '../i18n.ts';
import { KEY_URLS, LLM_PRESETS } from '../llm-presets.ts';
import {
  asrModeFacts,
  inUiLanguage,
  keepSettingFacts,
  modeName,
  settingLabel,
} from '../setting-facts.ts';
import type { SettingDefinition, SettingsView } from '../types.ts';
import { AppPreferences } from '../views/app-preferences.tsx';
import { CaptureView } from '../views/capture-view.tsx';
import { McpConnection } from '../views/mcp-connection.tsx';
import { ModelsSection } from '../views/models-section.tsx';
import {
  KeyLink,
  PresetButtons,
  SettingField,
  type SettingsForm,
} from '../views/setting-field.tsx';
import type { PanelProps } from './registry.tsx';

/** How /api/health's `not_configured` marks a problem of the settings themselves. */
const SETTINGS_PROBLEM = 'Settings: ';

/** The group of the keys shown under "how the class is heard", and of the AI service's keys. */
const RECOGNITION_GROUP = 'recognition';
const LLM_GROUP = 'llm';

/** The AI service's keys (its presets fill them); the modes' keys come with the modes. */
const LLM_KEYS = { base: 'LLM_BASE_URL', model: 'LLM_MODEL', key: 'LLM_API_KEY' };
/** The switch of translated captions, shown with the AI service it needs. */
const TRANSLATE_KEY = 'TRANSLATE_CAPTIONS';
/** The keys the cloud presets fill, shown above a mode's fields when it asks for the address. */
const CLOUD_KEYS = {
  base: 'CLOUD_ASR_BASE_URL',
  model: 'CLOUD_ASR_MODEL',
  key: 'CLOUD_ASR_API_KEY',
};

/** What the panel says under its buttons. */
type Status =
  | { kind: 'none' }
  | { kind: 'saved'; lines: string[] }
  | { kind: 'invalid'; messages: string[] }
  | { kind: 'error'; error: unknown };

/** The keys the student's sections show; every other key is under Advanced. */
function studentKeys(view: SettingsView): Set<string> {
  return new Set([
    'ASR_MODE',
    ...view.asr_modes.flatMap((mode) => mode.settings),
    ...Object.values(LLM_KEYS),
    TRANSLATE_KEY,
  ]);
}

/** A group's title in the UI's language, or its id. */
function groupTitle(view: SettingsView, id: string): string {
  const group = view.groups.find((item) => item.id === id);
  return group ? inUiLanguage(group.label) : id;
}

/** "模型 (LLM_MODEL)": a key's plain name with the key as the settings file names it. */
function settingLabelWithKey(key: string): string {
  const label = settingLabel(key);
  return label === key ? key : `${label} (${key})`;
}

/** What a save did, line by line, naming only the keys it changed. */
function savedLines(result: {
  changed: string[];
  applied_now: string[];
  next_class: string[];
  restart_required: string[];
  overridden_by_environment: string[];
}): string[] {
  const named = (keys: string[]) => joinList(keys.map(settingLabelWithKey));
  const parts: Array<
    [string[], 'settingsNow' | 'settingsNextClass' | 'settingsRestart' | 'settingsEnvOverride']
  > = [
    [result.applied_now, 'settingsNow'],
    [result.next_class, 'settingsNextClass'],
    [result.restart_required, 'settingsRestart'],
    [result.overridden_by_environment, 'settingsEnvOverride'],
  ];
  return [
    result.changed.length === 0 ? t('settingsNothingChanged') : t('settingsSaved'),
    ...parts
      .filter(([keys]) => keys.length > 0)
      .map(([keys, text]) => t(text, { keys: named(keys) })),
  ];
}

/** How the class is heard: one choice per mode the backend runs, with what the chosen one needs. */
function Hearing({ form, active }: { form: SettingsForm; active: boolean }) {
  const { view, values } = form;
  const definition = view.definitions.find((item) => item.key === 'ASR_MODE');
  const shown = asrModeFacts(values.ASR_MODE || definition?.default || '', view)?.mode ?? '';
  /** The "get a key" link of a key the student fills in, where one is known. */
  const linkOf = (key: string) => {
    let url = KEY_URLS[key];
    if (key === CLOUD_KEYS.key) {
      const base = view.fields.CLOUD_ASR_BASE_URL || view.effective.CLOUD_ASR_BASE_URL || '';
      url = CLOUD_PRESETS.find((item) => item.baseUrl === base)?.keyUrl;
    }
    return url ? <KeyLink href={url} /> : null;
  };
  return (
    <div class="hearing">
      <div class="choices" role="radiogroup" aria-label={groupTitle(view, RECOGNITION_GROUP)}>
        {view.asr_modes.map((mode) => (
          <label
            key={mode.mode}
            class="choice"
            for={`hearing-${mode.mode}`}
            data-choice={mode.mode}
          >
            <input
              type="radio"
              name="hearing"
              value={mode.mode}
              id={`hearing-${mode.mode}`}
              checked={mode.mode === shown}
              onChange={() => form.set({ ASR_MODE: mode.mode })}
            />
            <span class="choice-text">
              <strong>{inUiLanguage(mode.label)}</strong>
              {mode.help ? <small>{inUiLanguage(mode.help)}</small> : null}
            </span>
          </label>
        ))}
      </div>
      <input type="hidden" id="setting-ASR_MODE" name="ASR_MODE" value={values.ASR_MODE ?? ''} />
      <p class="field-error" hidden={!form.errors.ASR_MODE}>
        {form.errors.ASR_MODE}
      </p>
      {view.asr_modes
        .filter((mode) => mode.settings.length > 0 || mode.model)
        .map((mode) => (
          <div
            key={mode.mode}
            class="choice-detail"
            data-for={mode.mode}
            hidden={mode.mode !== shown}
          >
            {mode.settings.includes(CLOUD_KEYS.base) ? (
              <PresetButtons
                presets={CLOUD_PRESETS}
                keys={CLOUD_KEYS}
                title={t('cloudPresets')}
                form={form}
              />
            ) : null}
            {mode.settings.map((key) => (
              <SettingField key={key} settingKey={key} form={form} link={linkOf(key)} />
            ))}
            {mode.settings.length > 0 && hasConnectionTest(mode.mode) ? (
              <ConnectionTest target={mode.mode} fields={values} />
            ) : null}
            {mode.model ? <ModelsSection active={active} /> : null}
          </div>
        ))}
    </div>
  );
}

/** The AI service: its presets, the key (with where to get one), the address and the model. */
function AiService({ form }: { form: SettingsForm }) {
  const { view } = form;
  const base = view.fields.LLM_BASE_URL || view.effective.LLM_BASE_URL || '';
  const preset = LLM_PRESETS.find((item) => item.baseUrl === base);
  return (
    <div class="ai-service">
      <PresetButtons
        presets={LLM_PRESETS.map((item) => ({ ...item, name: item.name[lang()] }))}
        keys={LLM_KEYS}
        title={t('llmPresets')}
        form={form}
      />
      <SettingField
        settingKey={LLM_KEYS.key}
        form={form}
        link={preset ? <KeyLink href={preset.keyUrl} /> : null}
      />
      <SettingField settingKey={LLM_KEYS.base} form={form} />
      <SettingField settingKey={LLM_KEYS.model} form={form} />
      <ConnectionTest target="llm" fields={form.values} />
      <CaptionTranslation form={form} />
    </div>
  );
}

/**
 * Translated captions: the switch, what the chosen language costs a class hour (the choice's
 * help, from the backend), and, while no LLM is configured, that it cannot translate and what to
 * fill in.
 */
function CaptionTranslation({ form }: { form: SettingsForm }) {
  const health = useApp().store.use('health').value;
  const definition = form.view.definitions.find((item) => item.key === TRANSLATE_KEY);
  if (!definition) return null;
  const value = form.values[TRANSLATE_KEY] || definition.default;
  const chosen = definition.choices?.find((choice) => choice.value === value);
  const on = value !== 'off';
  const missing = health && !health.llm.configured ? health.llm.missing : [];
  return (
    <div class="caption-translation">
      <SettingField settingKey={TRANSLATE_KEY} form={form} />
      {on && chosen?.help ? (
        <small class="setting-help translation-cost">{inUiLanguage(chosen.help)}</small>
      ) : null}
      {on && missing.length > 0 ? (
        <p class="notice problem translation-no-llm">
          {t('translationNoLlm', {
            label: joinList(missing.map(settingLabel)),
            key: missing.join(', '),
          })}
        </p>
      ) : null}
    </div>
  );
}

/** Every other key by group, and the file's other lines. */
function Advanced({
  form,
  extra,
  setExtra,
}: {
  form: SettingsForm;
  extra: string;
  setExtra(text: string): void;
}) {
  const { view } = form;
  const groups = new Map<string, SettingDefinition[]>();
  const shown = studentKeys(view);
  for (const definition of view.definitions) {
    if (shown.has(definition.key)) continue;
    groups.set(definition.group, [...(groups.get(definition.group) ?? []), definition]);
  }
  // In the backend's order of groups (one it does not list goes last).
  const order = (group: string) =>
    (view.groups.findIndex((item) => item.id === group) + 1 || 1000) - 1;
  return (
    <details class="settings-group advanced" id="settings-advanced">
      <summary>{t('settingsAdvancedAll')}</summary>
      <p class="setting-help">{t('settingsAdvancedIntro')}</p>
      <p class="file-info">{t('settingsFile', { path: view.path })}</p>
      <div class="settings-groups">
        {[...groups.keys()]
          .sort((a, b) => order(a) - order(b))
          .map((group) => (
            // Groups the student opened stay open when the form is read again (after a save).
            <details key={group} class="settings-group" data-group={group}>
              <summary>{groupTitle(view, group)}</summary>
              {groups.get(group)?.map((definition) => (
                <SettingField
                  key={definition.key}
                  settingKey={definition.key}
                  form={form}
                  advanced
                />
              ))}
            </details>
          ))}
      </div>
      <details class="settings-group extra">
        <summary>{t('settingsAdvanced')}</summary>
        <small class="setting-help">{t('settingsAdvancedHint')}</small>
        <textarea
          class="extra-lines"
          rows={6}
          spellcheck={false}
          aria-label={t('settingsAdvanced')}
          value={extra}
          onInput={(event) => setExtra(event.currentTarget.value)}
        />
      </details>
    </details>
  );
}

/** What is not configured yet, from /api/health. */
function NotConfigured() {
  const app = useApp();
  const health = app.store.use('health').value;
  const items: ComponentChildren[] = [];
  if (health && !health.llm.configured) {
    items.push(
      t('errorLlmNotConfigured', {
        label: joinList(health.llm.missing.map(settingLabel)),
        key: health.llm.missing.join(', '),
      }),
    );
  }
  if (health && !health.asr.available) {
    const mode = modeName(health.asr.mode);
    items.push(
      <span>
        {`${t('labelAboutValue', { label: t('asrUnavailable'), about: mode, value: health.asr.message })} `}
        <button type="button" class="link-button" onClick={() => void app.useDemoMode()}>
          {t('useDemoMode')}
        </button>
      </span>,
    );
  }
  // The backend marks the settings' own problems (the file, a value it could not use); the
  // box's heading already says they are about the settings.
  for (const problem of health?.not_configured ?? []) {
    if (problem.startsWith(SETTINGS_PROBLEM)) items.push(problem.slice(SETTINGS_PROBLEM.length));
  }
  return (
    <div class="not-configured" hidden={items.length === 0}>
      <strong>{t('settingsNotConfigured')}</strong>
      <ul>
        {items.map((item, index) => (
          <li key={index}>{item}</li>
        ))}
      </ul>
    </div>
  );
}

/** The settings panel. */
export function SettingsPanel({ active }: PanelProps) {
  const app = useApp();
  const health = app.store.use('health').value;
  const root = useRef<HTMLElement>(null);
  const [view, setView] = useState<SettingsView | null>(null);
  const [values, setValues] = useState<Record<string, string>>({});
  const [extra, setExtra] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [status, setStatus] = useState<Status>({ kind: 'none' });
  const [saving, setSaving] = useState(false);

  const load = async () => {
    try {
      const answer = await call('GET /api/settings');
      keepSettingFacts(answer);
      setView(answer);
      setValues({ ...answer.fields });
      setExtra(answer.extra_lines);
    } catch (error) {
      setStatus({ kind: 'error', error });
    }
  };
  useEffect(() => {
    if (!active) return;
    void load();
    void app.refreshHealth();
  }, [active]);

  /** Shows a field the backend refused: every folded section around it opened; the first focused. */
  const reveal = (keys: string[]) => {
    const controls = keys
      .map((key) => root.current?.querySelector<HTMLElement>(`#setting-${key}`))
      .filter((control) => control != null);
    for (const control of controls) {
      for (
        let details = control.closest('details');
        details;
        details = details.parentElement?.closest('details') ?? null
      ) {
        details.open = true;
      }
    }
    controls[0]?.focus();
  };

  const save = async () => {
    if (!view) return;
    setSaving(true);
    setStatus({ kind: 'none' });
    setErrors({});
    const fields: Record<string, string> = {};
    for (const definition of view.definitions)
      fields[definition.key] = (values[definition.key] ?? '').trim();
    try {
      const result = await call('POST /api/settings', { body: { fields, extra_lines: extra } });
      setStatus({ kind: 'saved', lines: savedLines(result) });
      await Promise.all([load(), app.refreshHealth()]);
    } catch (error) {
      if (isApiError(error) && error.code === 'SETTINGS_INVALID') {
        const problems =
          error.fields.length > 0
            ? error.fields
            : [{ field: error.field ?? '', message: error.message }];
        setErrors(Object.fromEntries(problems.map((problem) => [problem.field, problem.message])));
        setStatus({ kind: 'invalid', messages: problems.map((problem) => problem.message) });
        requestAnimationFrame(() => reveal(problems.map((problem) => problem.field)));
      } else {
        setStatus({ kind: 'error', error });
        // A key to type again (an address that would receive it changed): said once, above;
        // the key's field is shown and focused.
        if (isApiError(error) && error.code === 'SETTINGS_SECRET_REQUIRED' && error.field) {
          const field = error.field;
          requestAnimationFrame(() => reveal([field]));
        }
      }
    } finally {
      setSaving(false);
    }
  };

  const form: SettingsForm | null = view && {
    view,
    values,
    errors,
    set: (patch) => setValues((current) => ({ ...current, ...patch })),
  };
  return (
    <section class="panel-body settings-panel" hidden={!active} ref={root}>
      <NotConfigured />
      <h4>{t('settingsApp')}</h4>
      <AppPreferences active={active} />
      {form ? (
        <>
          <h4>{groupTitle(form.view, RECOGNITION_GROUP)}</h4>
          <Hearing form={form} active={active} />
          <h4>{groupTitle(form.view, LLM_GROUP)}</h4>
          <AiService form={form} />
        </>
      ) : null}
      <CaptureView active={active} />
      <div class="button-row sticky">
        <button
          type="button"
          class="button primary"
          id="save-settings"
          disabled={saving}
          onClick={() => void save()}
        >
          {t('save')}
        </button>
        <button type="button" class="button" onClick={() => void load()}>
          {t('reload')}
        </button>
      </div>
      <div class="panel-status" aria-live="polite">
        {status.kind === 'saved' ? (
          <div class="notice ok">
            {status.lines.map((line) => (
              <p key={line}>{line}</p>
            ))}
          </div>
        ) : null}
        {status.kind === 'invalid' ? (
          <div class="error-box" role="alert">
            <p class="error-message">{t('settingsInvalid')}</p>
            {status.messages.map((message) => (
              <p key={message} class="error-detail">
                {message}
              </p>
            ))}
          </div>
        ) : null}
        {status.kind === 'error' ? <ErrorBox error={status.error} /> : null}
      </div>
      <McpConnection active={active} />
      {form ? <Advanced form={form} extra={extra} setExtra={setExtra} /> : null}
      <h4>{t('shortcuts')}</h4>
      <ul class="shortcut-list">
        {t('shortcutList')
          .split(';')
          .map((entry) => {
            const [key, words] = entry.split('|');
            return (
              <li key={key}>
                <kbd>{key ?? ''}</kbd> {words ?? ''}
              </li>
            );
          })}
      </ul>
      <p class="file-info">
        {health ? t('backendInfo', { version: health.version, dir: health.data_dir }) : ''}
      </p>
    </section>
  );
}
