// Settings (480x520), for a student: this app's preferences; how the class is heard (one choice
// per ASR mode the backend runs, each with what it needs: the keys with a "get a key" link, the
// offline models); the AI service; the microphone. Everything else of the backend's settings
// file is under Advanced: every key as a form (secrets stay masked: the mask posted back keeps
// the stored value) and the other lines in a text area kept byte for byte. Names, groups,
// choices and what each mode needs come from the backend's answer.

import { createElement, render as mount } from 'preact';
import {
  notificationPermission,
  playAlertSound,
  requestNotificationPermission,
} from '../alert-effects.ts';
import { call, isApiError } from '../api.ts';
import { CLOUD_PRESETS } from '../cloud-presets.ts';
import { ConnectionTest, hasConnectionTest } from '../components/connection-test.tsx';
import { type AppContext, AppProvider } from '../context.ts';
import { h, replaceChildren } from '../dom.ts';
import { errorBox } from '../errors.ts';
import { type Lang, lang, t } from '../i18n.ts';
import { KEY_URLS, LLM_PRESETS } from '../llm-presets.ts';
import {
  asrModeFacts,
  inUiLanguage,
  keepSettingFacts,
  modeName,
  settingLabel,
} from '../setting-facts.ts';
import type { AppState } from '../store.ts';
import type { SettingDefinition, SettingsView } from '../types.ts';
import { createCaptureView } from '../views/capture-view.ts';
import { createMcpConnection } from '../views/mcp-connection.ts';
import { createModelsSection } from '../views/models-section.ts';
import type { Panel } from './panel.ts';

/** How /api/health's `not_configured` marks a problem of the settings themselves. */
const SETTINGS_PROBLEM = 'Settings: ';

/** The group of the keys shown under "how the class is heard", and of the AI service's keys. */
const RECOGNITION_GROUP = 'recognition';
const LLM_GROUP = 'llm';

/** The AI service's keys (its presets fill them); the modes' keys come with the modes. */
const LLM_KEYS = { base: 'LLM_BASE_URL', model: 'LLM_MODEL', key: 'LLM_API_KEY' };
/** The keys the cloud presets fill, shown above a mode's fields when it asks for the address. */
const CLOUD_KEYS = {
  base: 'CLOUD_ASR_BASE_URL',
  model: 'CLOUD_ASR_MODEL',
  key: 'CLOUD_ASR_API_KEY',
};

/** The keys the student's sections show; every other key is under Advanced. */
function studentKeys(view: SettingsView): Set<string> {
  return new Set([
    'ASR_MODE',
    ...view.asr_modes.flatMap((mode) => mode.settings),
    ...Object.values(LLM_KEYS),
  ]);
}

/** A group's title in the UI's language, or its id. */
function groupTitle(view: SettingsView, id: string): string {
  const group = view.groups.find((item) => item.id === id);
  return group ? inUiLanguage(group.label) : id;
}

type FieldControl = HTMLInputElement | HTMLSelectElement;

/** A "get a key" link, opened outside the app. */
function keyLink(href: string): HTMLAnchorElement {
  return h(
    'a',
    { class: 'key-link', href, target: '_blank', rel: 'noopener noreferrer' },
    t('cloudGetKey'),
  );
}

/** Creates the settings panel. */
export function createSettingsPanel(context: AppContext): Panel {
  const { store } = context;
  const missing = h('div', { class: 'not-configured', hidden: true });
  const controls = new Map<string, { control: FieldControl; error: HTMLElement }>();
  const extra = h('textarea', {
    class: 'extra-lines',
    rows: 6,
    spellcheck: false,
    'aria-label': t('settingsAdvanced'),
  });
  const pathInfo = h('p', { class: 'file-info' });
  const saveButton = h('button', { class: 'button primary', id: 'save-settings' }, t('save'));
  const reloadButton = h('button', { class: 'button' }, t('reload'));
  const status = h('div', { class: 'panel-status', 'aria-live': 'polite' });
  const models = createModelsSection(context);
  const backendInfo = h('p', { class: 'file-info' });

  // ---- this app ----
  const capture = createCaptureView(context);
  const languageSelect = h(
    'select',
    { class: 'select small', 'aria-label': t('language') },
    h('option', { value: 'zh', selected: lang() === 'zh' }, '中文'),
    h('option', { value: 'en', selected: lang() === 'en' }, 'English'),
  );
  languageSelect.addEventListener('change', () =>
    context.setPreference({ lang: languageSelect.value as Lang }),
  );
  const soundToggle = h('input', { type: 'checkbox', checked: store.get().sound });
  soundToggle.addEventListener('change', () =>
    context.setPreference({ sound: soundToggle.checked }),
  );
  const notifyToggle = h('input', { type: 'checkbox', checked: store.get().notifications });
  const notifyHint = h('small', { class: 'error-detail' });
  const renderNotifyHint = () => {
    const permission = notificationPermission();
    notifyHint.textContent =
      permission === 'unsupported'
        ? t('notificationsUnsupported')
        : permission === 'denied' && store.get().notifications
          ? t('notificationsDenied')
          : '';
  };
  notifyToggle.addEventListener('change', async () => {
    context.setPreference({ notifications: notifyToggle.checked });
    if (notifyToggle.checked) await requestNotificationPermission();
    renderNotifyHint();
  });
  const testNotification = h('button', { class: 'button small' }, t('notificationsTest'));
  testNotification.addEventListener('click', async () => {
    await requestNotificationPermission();
    renderNotifyHint();
    if (notificationPermission() === 'granted') {
      new Notification(`🟡 ${t('alertWarning')}`, { body: t('appName'), silent: true });
    }
  });
  const app = h(
    'div',
    { class: 'app-settings' },
    h('label', { class: 'setting-row' }, h('span', null, t('language')), languageSelect),
    h(
      'div',
      { class: 'setting-row' },
      h('label', null, soundToggle, t('sound')),
      h(
        'span',
        { class: 'row-buttons' },
        h(
          'button',
          { class: 'button small', onclick: () => playAlertSound('danger') },
          `${t('soundTest')}：${t('alertDanger')}`,
        ),
        h(
          'button',
          { class: 'button small', onclick: () => playAlertSound('warning') },
          `${t('soundTest')}：${t('alertWarning')}`,
        ),
      ),
    ),
    h(
      'div',
      { class: 'setting-row' },
      h('label', null, notifyToggle, t('notifications')),
      testNotification,
    ),
    notifyHint,
  );

  const controlFor = (definition: SettingDefinition, value: string): FieldControl => {
    const id = `setting-${definition.key}`;
    const choices = definition.choices;
    if (choices) {
      const values = choices.map((choice) => choice.value);
      const name = (value: string) => {
        const label = choices.find((choice) => choice.value === value)?.label;
        const words = label ? inUiLanguage(label) : value;
        return words === value ? value : `${value} — ${words}`;
      };
      return h(
        'select',
        { class: 'select', id, name: definition.key },
        // Unset: the backend uses the default.
        h(
          'option',
          { value: '' },
          definition.default ? t('settingDefault', { value: name(definition.default) }) : '—',
        ),
        // A value the form does not list (the original's seed-asr) stays selectable as it is.
        (value === '' || values.includes(value) ? values : [...values, value]).map((choice) =>
          h('option', { value: choice, selected: choice === value }, name(choice)),
        ),
      );
    }
    const input = h('input', {
      class: 'text-input',
      id,
      name: definition.key,
      type: definition.secret ? 'password' : 'text',
      autocomplete: 'off',
      spellcheck: false,
      value,
      placeholder: definition.secret ? '' : definition.default || definition.example,
    });
    if (definition.secret) {
      // A masked value is kept as it is unless the student types a new one.
      input.addEventListener('focus', () => {
        if (input.value.startsWith('••')) input.select();
      });
    }
    return input;
  };

  /** A field of the student's sections: its plain name, the control, its error, maybe a link. */
  const studentField = (
    view: SettingsView,
    key: string,
    extras: { link?: HTMLElement | undefined } = {},
  ): HTMLElement | null => {
    const definition = view.definitions.find((item) => item.key === key);
    if (!definition) return null;
    const control = controlFor(definition, view.fields[key] ?? '');
    const error = h('p', { class: 'field-error', hidden: true });
    controls.set(key, { control, error });
    return h(
      'div',
      { class: 'setting' },
      h(
        'label',
        { for: control.id, class: 'setting-label' },
        inUiLanguage(definition.label),
        view.environment_overrides.includes(key)
          ? h('span', { class: 'badge warn' }, t('overriddenByEnv'))
          : null,
        extras.link ?? null,
      ),
      control,
      error,
    );
  };

  /** Buttons that fill an address and a model from a provider, and say where its key is made. */
  const presetButtons = (
    presets: ReadonlyArray<{
      id: string;
      name: string;
      baseUrl: string;
      model: string;
      keyUrl: string;
    }>,
    keys: { base: string; model: string; key: string },
    title: string,
  ) => {
    const note = h('p', { class: 'setting-help', 'aria-live': 'polite' });
    return h(
      'div',
      { class: `presets ${keys.base === 'CLOUD_ASR_BASE_URL' ? 'cloud-presets' : 'llm-presets'}` },
      h('small', { class: 'setting-help' }, title),
      h(
        'div',
        { class: 'row-buttons' },
        presets.map((preset) =>
          h(
            'button',
            {
              class: 'button small',
              'data-preset': preset.id,
              onclick: () => {
                const base = controls.get(keys.base)?.control;
                const model = controls.get(keys.model)?.control;
                if (base) base.value = preset.baseUrl;
                if (model) model.value = preset.model;
                replaceChildren(
                  note,
                  t('cloudPresetFilled', { name: preset.name }),
                  ' ',
                  keyLink(preset.keyUrl),
                );
                controls.get(keys.key)?.control.focus();
              },
            },
            preset.name,
          ),
        ),
      ),
      note,
    );
  };

  /** The form's values as they are now (masked secrets as shown). */
  const formValues = () =>
    Object.fromEntries([...controls].map(([key, { control }]) => [key, control.value.trim()]));
  /** The "test connection" of the AI service or an online mode (made once, kept across renders). */
  const testHosts = new Map<string, HTMLElement>();
  const connectionTest = (target: string): HTMLElement | null => {
    if (!hasConnectionTest(target)) return null;
    let host = testHosts.get(target);
    if (!host) {
      host = h('div');
      mount(
        createElement(
          AppProvider,
          { value: context },
          createElement(ConnectionTest, { target, fields: formValues }),
        ),
        host,
      );
      testHosts.set(target, host);
    }
    return host;
  };

  // ---- how the class is heard: one choice per mode the backend runs ----
  const modeInput = h('input', { type: 'hidden', id: 'setting-ASR_MODE', name: 'ASR_MODE' });
  const hearingBox = h('div', { class: 'hearing' });
  const recognitionTitle = h('h4');
  const llmTitle = h('h4');

  /** The "get a key" link of a key the student fills in, where one is known. */
  const keyLinkOf = (view: SettingsView, key: string): HTMLElement | undefined => {
    if (key === CLOUD_KEYS.key) return cloudKeyLink(view);
    const url = KEY_URLS[key];
    return url ? keyLink(url) : undefined;
  };

  const renderHearing = (view: SettingsView) => {
    const value = view.fields.ASR_MODE ?? '';
    const definition = view.definitions.find((item) => item.key === 'ASR_MODE');
    const current = asrModeFacts(value || definition?.default || '', view);
    modeInput.value = value;
    const error = h('p', { class: 'field-error' });
    controls.set('ASR_MODE', { control: modeInput, error });
    const radios: HTMLInputElement[] = [];
    const details: HTMLElement[] = [];
    const show = (mode: string) => {
      for (const radio of radios) radio.checked = radio.value === mode;
      for (const detail of details) detail.hidden = detail.dataset.for !== mode;
    };
    const choiceList = h(
      'div',
      { class: 'choices', role: 'radiogroup', 'aria-label': groupTitle(view, RECOGNITION_GROUP) },
      view.asr_modes.map((mode) => {
        const radio = h('input', {
          type: 'radio',
          name: 'hearing',
          value: mode.mode,
          id: `hearing-${mode.mode}`,
        });
        radios.push(radio);
        radio.addEventListener('change', () => {
          modeInput.value = mode.mode;
          show(mode.mode);
        });
        return h(
          'label',
          { class: 'choice', for: radio.id, 'data-choice': mode.mode },
          radio,
          h(
            'span',
            { class: 'choice-text' },
            h('strong', null, inUiLanguage(mode.label)),
            mode.help ? h('small', null, inUiLanguage(mode.help)) : null,
          ),
        );
      }),
    );
    for (const mode of view.asr_modes) {
      const parts = [
        mode.settings.includes(CLOUD_KEYS.base)
          ? presetButtons(CLOUD_PRESETS, CLOUD_KEYS, t('cloudPresets'))
          : null,
        ...mode.settings.map((key) => studentField(view, key, { link: keyLinkOf(view, key) })),
        mode.settings.length > 0 ? connectionTest(mode.mode) : null,
        mode.model ? models.element : null,
      ].filter((part): part is HTMLElement => part !== null);
      if (parts.length > 0) {
        details.push(h('div', { class: 'choice-detail', 'data-for': mode.mode }, parts));
      }
    }
    replaceChildren(hearingBox, choiceList, modeInput, error, details);
    show(current?.mode ?? '');
  };

  /** The key link of the cloud provider whose address is set, if it is one of the presets. */
  const cloudKeyLink = (view: SettingsView): HTMLElement | undefined => {
    const base = view.fields.CLOUD_ASR_BASE_URL || view.effective.CLOUD_ASR_BASE_URL || '';
    const preset = CLOUD_PRESETS.find((item) => item.baseUrl === base);
    return preset ? keyLink(preset.keyUrl) : undefined;
  };

  // ---- the AI service ----
  const aiBox = h('div', { class: 'ai-service' });
  const renderAi = (view: SettingsView) => {
    const base = view.fields.LLM_BASE_URL || view.effective.LLM_BASE_URL || '';
    const preset = LLM_PRESETS.find((item) => item.baseUrl === base);
    replaceChildren(
      aiBox,
      presetButtons(
        LLM_PRESETS.map((item) => ({ ...item, name: item.name[lang()] })),
        LLM_KEYS,
        t('llmPresets'),
      ),
      studentField(view, LLM_KEYS.key, preset ? { link: keyLink(preset.keyUrl) } : {}),
      studentField(view, LLM_KEYS.base),
      studentField(view, LLM_KEYS.model),
      connectionTest('llm'),
    );
  };

  // ---- Advanced: every other key, and the other lines ----
  const mcp = createMcpConnection();
  const form = h('div', { class: 'settings-groups' });
  const advanced = h(
    'details',
    { class: 'settings-group advanced', id: 'settings-advanced' },
    h('summary', null, t('settingsAdvancedAll')),
    h('p', { class: 'setting-help' }, t('settingsAdvancedIntro')),
    pathInfo,
    form,
    h(
      'details',
      { class: 'settings-group extra' },
      h('summary', null, t('settingsAdvanced')),
      h('small', { class: 'setting-help' }, t('settingsAdvancedHint')),
      extra,
    ),
  );

  const renderAdvanced = (view: SettingsView) => {
    // Groups the student opened stay open when the form is read again (after a save).
    const opened = new Set(
      Array.from(form.querySelectorAll<HTMLDetailsElement>('details[data-group]'))
        .filter((details) => details.open)
        .map((details) => details.dataset.group ?? ''),
    );
    const groups = new Map<string, SettingDefinition[]>();
    const shown = studentKeys(view);
    for (const definition of view.definitions) {
      if (shown.has(definition.key)) continue;
      groups.set(definition.group, [...(groups.get(definition.group) ?? []), definition]);
    }
    // In the backend's order of groups (one it does not list goes last).
    const order = (group: string) =>
      (view.groups.findIndex((item) => item.id === group) + 1 || 1000) - 1;
    const ordered = [...groups.keys()].sort((a, b) => order(a) - order(b));
    replaceChildren(
      form,
      ordered.map((group) => {
        const details = h('details', {
          class: 'settings-group',
          'data-group': group,
          open: opened.has(group),
        });
        details.append(h('summary', null, groupTitle(view, group)));
        for (const definition of groups.get(group) ?? []) {
          const control = controlFor(definition, view.fields[definition.key] ?? '');
          const error = h('p', { class: 'field-error', hidden: true });
          controls.set(definition.key, { control, error });
          const applies =
            definition.applies === 'now'
              ? t('appliesNow')
              : definition.applies === 'restart'
                ? t('appliesRestart')
                : t('appliesNextClass');
          details.append(
            h(
              'div',
              { class: 'setting' },
              h(
                'label',
                { for: control.id, class: 'setting-label' },
                inUiLanguage(definition.label),
                h('code', null, definition.key),
                view.environment_overrides.includes(definition.key)
                  ? h('span', { class: 'badge warn' }, t('overriddenByEnv'))
                  : null,
                h('span', { class: 'badge' }, applies),
              ),
              control,
              error,
              h('small', { class: 'setting-help' }, inUiLanguage(definition.descriptions)),
            ),
          );
        }
        return details;
      }),
    );
    extra.value = view.extra_lines;
    pathInfo.textContent = t('settingsFile', { path: view.path });
  };

  const render = (view: SettingsView) => {
    keepSettingFacts(view);
    controls.clear();
    recognitionTitle.textContent = groupTitle(view, RECOGNITION_GROUP);
    llmTitle.textContent = groupTitle(view, LLM_GROUP);
    renderHearing(view);
    renderAi(view);
    renderAdvanced(view);
  };

  const load = async () => {
    try {
      render(await call('GET /api/settings'));
    } catch (error) {
      status.replaceChildren(errorBox(context, error));
    }
  };

  const save = async () => {
    saveButton.disabled = true;
    status.replaceChildren();
    for (const { error } of controls.values()) error.hidden = true;
    const fields: Record<string, string> = {};
    for (const [key, { control }] of controls) fields[key] = control.value.trim();
    try {
      const result = await call('POST /api/settings', {
        body: { fields, extra_lines: extra.value },
      });
      const named = (keys: string[]) =>
        keys.map(settingLabelWithKey).join(lang() === 'zh' ? '、' : ', ');
      const lines = [
        result.changed.length === 0 ? t('settingsNothingChanged') : t('settingsSaved'),
        result.applied_now.length > 0 ? t('settingsNow', { keys: named(result.applied_now) }) : '',
        result.next_class.length > 0
          ? t('settingsNextClass', { keys: named(result.next_class) })
          : '',
        result.restart_required.length > 0
          ? t('settingsRestart', { keys: named(result.restart_required) })
          : '',
        result.overridden_by_environment.length > 0
          ? t('settingsEnvOverride', { keys: named(result.overridden_by_environment) })
          : '',
      ].filter((line) => line !== '');
      status.replaceChildren(
        h(
          'div',
          { class: 'notice ok' },
          lines.map((line) => h('p', null, line)),
        ),
      );
      await Promise.all([load(), context.refreshHealth()]);
    } catch (error) {
      if (isApiError(error) && error.code === 'SETTINGS_INVALID') {
        const problems =
          error.fields.length > 0
            ? error.fields
            : [{ field: error.field ?? '', message: error.message }];
        for (const problem of problems) {
          const target = controls.get(problem.field);
          if (target) {
            target.error.textContent = problem.message;
            target.error.hidden = false;
            // Open every folded section around it (Advanced and its group).
            for (
              let details = target.control.closest('details');
              details;
              details = details.parentElement?.closest('details') ?? null
            ) {
              details.open = true;
            }
          }
        }
        status.replaceChildren(
          h(
            'div',
            { class: 'error-box', role: 'alert' },
            h('p', { class: 'error-message' }, t('settingsInvalid')),
            problems.map((problem) => h('p', { class: 'error-detail' }, problem.message)),
          ),
        );
      } else {
        status.replaceChildren(errorBox(context, error));
      }
    } finally {
      saveButton.disabled = false;
    }
  };
  saveButton.addEventListener('click', () => void save());
  reloadButton.addEventListener('click', () => void load());

  const renderHealth = (state: AppState) => {
    const health = state.health;
    const items: Array<string | HTMLElement> = [];
    if (health && !health.llm.configured) {
      items.push(
        t('errorLlmNotConfigured', {
          label: health.llm.missing.map(settingLabel).join(lang() === 'zh' ? '、' : ', '),
          key: health.llm.missing.join(', '),
        }),
      );
    }
    if (health && !health.asr.available) {
      items.push(
        h(
          'span',
          null,
          `${t('asrUnavailable')}（${modeName(health.asr.mode)}）：${health.asr.message} `,
          h(
            'button',
            { class: 'link-button', onclick: () => void context.useDemoMode() },
            t('useDemoMode'),
          ),
        ),
      );
    }
    // The backend marks the settings' own problems (the file, a value it could not use); the
    // box's heading already says they are about the settings.
    for (const problem of health?.not_configured ?? []) {
      if (problem.startsWith(SETTINGS_PROBLEM)) items.push(problem.slice(SETTINGS_PROBLEM.length));
    }
    missing.hidden = items.length === 0;
    replaceChildren(
      missing,
      h('strong', null, t('settingsNotConfigured')),
      h(
        'ul',
        null,
        items.map((item) => h('li', null, item)),
      ),
    );
    backendInfo.textContent = health
      ? t('backendInfo', { version: health.version, dir: health.data_dir })
      : '';
  };

  return {
    name: 'settings',
    element: h(
      'section',
      { class: 'panel-body settings-panel' },
      missing,
      h('h4', null, t('settingsApp')),
      app,
      recognitionTitle,
      hearingBox,
      llmTitle,
      aiBox,
      capture.element,
      h('div', { class: 'button-row sticky' }, saveButton, reloadButton),
      status,
      mcp.element,
      advanced,
      h('h4', null, t('shortcuts')),
      h(
        'ul',
        { class: 'shortcut-list' },
        t('shortcutList')
          .split(';')
          .map((entry) => {
            const [key, words] = entry.split('|');
            return h('li', null, h('kbd', null, key ?? ''), ` ${words ?? ''}`);
          }),
      ),
      backendInfo,
    ),
    onShow() {
      capture.onShow();
      renderNotifyHint();
      void load();
      void models.load();
      void mcp.load();
      void context.refreshHealth();
    },
    update(state, previous) {
      if (state.health !== previous.health) renderHealth(state);
      capture.update();
      soundToggle.checked = state.sound;
      notifyToggle.checked = state.notifications;
    },
  };
}

/** "API 密钥 (LLM_API_KEY)": a key's plain name with the key, for messages after a save. */
function settingLabelWithKey(key: string): string {
  const label = settingLabel(key);
  return label === key ? key : `${label} (${key})`;
}
