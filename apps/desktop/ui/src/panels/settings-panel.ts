// Settings (480x520): this app's own preferences, then the backend's .env — the main keys as a
// form (secrets stay masked: the mask posted back keeps the stored value), every other line in an
// advanced text area that is kept byte for byte.

import {
  notificationPermission,
  playAlertSound,
  requestNotificationPermission,
} from '../alert-effects.ts';
import { api, isApiError } from '../api.ts';
import { CLOUD_PRESETS } from '../cloud-presets.ts';
import type { AppContext } from '../context.ts';
import { h, replaceChildren } from '../dom.ts';
import { errorBox } from '../errors.ts';
import { type Lang, lang, t } from '../i18n.ts';
import type { AppState } from '../store.ts';
import type { SettingDefinition, SettingsSaved, SettingsView } from '../types.ts';
import { createCaptureView } from '../views/capture-view.ts';
import { createModelsSection } from '../views/models-section.ts';
import { modeName } from './class-panel.ts';
import type { Panel } from './panel.ts';

const GROUP_ORDER = [
  'recognition',
  'llm',
  'mock',
  'streaming-asr',
  'dashscope-asr',
  'cloud-asr',
  'audio',
  'server',
];
const GROUP_TITLES: Record<string, Parameters<typeof t>[0]> = {
  recognition: 'groupRecognition',
  llm: 'groupLlm',
  mock: 'groupMock',
  'streaming-asr': 'groupStreaming',
  'dashscope-asr': 'groupDashscope',
  'cloud-asr': 'groupCloud',
  audio: 'groupAudio',
  server: 'groupServer',
};
const OPEN_GROUPS = new Set(['recognition', 'llm']);

/** Short labels of the main keys; the key itself is shown beside them. */
const LABELS: Record<string, { zh: string; en: string }> = {
  ASR_MODE: { zh: '识别方式', en: 'Recognition mode' },
  VOSK_MODEL_PATH: { zh: '离线模型文件夹', en: 'Offline model folder' },
  KEYWORD_HOMOPHONES: { zh: '同音字容错', en: 'Homophone tolerance' },
  LLM_BASE_URL: { zh: 'API 地址', en: 'API address' },
  LLM_API_KEY: { zh: 'API 密钥', en: 'API key' },
  LLM_MODEL: { zh: '模型', en: 'Model' },
  LLM_TIMEOUT: { zh: '超时（秒）', en: 'Timeout (s)' },
  STREAM_ASR_URL: { zh: '服务地址', en: 'Service address' },
  STREAM_ASR_ENDPOINT: { zh: '接口', en: 'Endpoint' },
  STREAM_ASR_APP_KEY: { zh: '应用 ID', en: 'App key' },
  STREAM_ASR_ACCESS_KEY: { zh: '访问令牌', en: 'Access key' },
  STREAM_ASR_RESOURCE_ID: { zh: '资源 ID', en: 'Resource id' },
  DASHSCOPE_API_KEY: { zh: 'DashScope API 密钥', en: 'DashScope API key' },
  DASHSCOPE_ASR_MODEL: { zh: '实时识别模型', en: 'Real-time model' },
  DASHSCOPE_WS_URL: { zh: 'DashScope 地址', en: 'DashScope address' },
  CLOUD_ASR_BASE_URL: { zh: '转写 API 地址', en: 'Transcription API' },
  CLOUD_ASR_API_KEY: { zh: '转写 API 密钥', en: 'Transcription key' },
  CLOUD_ASR_MODEL: { zh: '转写模型', en: 'Transcription model' },
  AUDIO_SAMPLE_RATE: { zh: '采样率', en: 'Sample rate' },
  AUDIO_CHANNELS: { zh: '声道数', en: 'Channels' },
  AUDIO_CHUNK_SIZE: { zh: '音频块字节数', en: 'Chunk bytes' },
  AUDIO_INPUT: { zh: '输入设备', en: 'Input device' },
  MOCK_SCRIPT: { zh: '演示脚本', en: 'Demo script' },
  MOCK_INTERVAL_MS: { zh: '每行间隔（毫秒）', en: 'Line interval (ms)' },
  MOCK_LOOP: { zh: '循环播放', en: 'Loop' },
  API_PORT: { zh: '后端端口', en: 'Backend port' },
  CORS_ORIGINS: { zh: '允许的网页来源', en: 'Allowed origins' },
  UPLOAD_MAX_MB: { zh: '上传上限（MB）', en: 'Upload limit (MB)' },
  HISTORY_FOLD_ENTRIES: { zh: '折叠历史的行数', en: 'Fold history after' },
  LOG_LEVEL: { zh: '日志级别', en: 'Log level' },
};

/** Keys with a fixed set of values (shown as a select). */
const CHOICES: Record<string, string[]> = {
  ASR_MODE: ['local', 'stream', 'dashscope', 'cloud', 'mock'],
  KEYWORD_HOMOPHONES: ['off', 'pinyin', 'fuzzy-pinyin'],
  STREAM_ASR_ENDPOINT: ['bigmodel_async', 'bigmodel', 'bigmodel_nostream'],
  MOCK_LOOP: ['true', 'false'],
  LOG_LEVEL: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
};

type FieldControl = HTMLInputElement | HTMLSelectElement;

/** Creates the settings panel. */
export function createSettingsPanel(context: AppContext): Panel {
  const { store } = context;
  const missing = h('div', { class: 'not-configured', hidden: true });
  const controls = new Map<string, { control: FieldControl; error: HTMLElement }>();
  const form = h('div', { class: 'settings-groups' });
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

  const label = (key: string) => LABELS[key]?.[lang()] ?? key;

  const controlFor = (definition: SettingDefinition, value: string): FieldControl => {
    const id = `setting-${definition.key}`;
    const choices = CHOICES[definition.key];
    if (choices) {
      const select = h(
        'select',
        { class: 'select', id, name: definition.key },
        h('option', { value: '' }, `(${definition.default || '—'})`),
        // A value the form does not list (the original's seed-asr) stays selectable as it is.
        (value === '' || choices.includes(value) ? choices : [...choices, value]).map((choice) =>
          h(
            'option',
            { value: choice, selected: choice === value },
            definition.key === 'ASR_MODE' ? `${choice} — ${modeName(choice)}` : choice,
          ),
        ),
      );
      return select;
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

  /** Buttons that fill CLOUD_ASR_BASE_URL and CLOUD_ASR_MODEL for a provider, with its key link. */
  const cloudPresets = () => {
    const note = h('p', { class: 'setting-help', 'aria-live': 'polite' });
    return h(
      'div',
      { class: 'cloud-presets' },
      h('small', { class: 'setting-help' }, t('cloudPresets')),
      h(
        'div',
        { class: 'row-buttons' },
        CLOUD_PRESETS.map((preset) =>
          h(
            'button',
            {
              class: 'button small',
              'data-preset': preset.id,
              onclick: () => {
                const base = controls.get('CLOUD_ASR_BASE_URL')?.control;
                const model = controls.get('CLOUD_ASR_MODEL')?.control;
                if (base) base.value = preset.baseUrl;
                if (model) model.value = preset.model;
                replaceChildren(
                  note,
                  t('cloudPresetFilled', { name: preset.name }),
                  ' ',
                  h(
                    'a',
                    { href: preset.keyUrl, target: '_blank', rel: 'noopener noreferrer' },
                    t('cloudGetKey'),
                  ),
                );
                controls.get('CLOUD_ASR_API_KEY')?.control.focus();
              },
            },
            preset.name,
          ),
        ),
      ),
      note,
    );
  };

  const render = (view: SettingsView) => {
    // Groups the student opened stay open when the form is read again (after a save).
    const opened = new Set(
      Array.from(form.querySelectorAll<HTMLDetailsElement>('details[data-group]'))
        .filter((details) => details.open)
        .map((details) => details.dataset.group ?? ''),
    );
    const firstRender = controls.size === 0;
    controls.clear();
    const groups = new Map<string, SettingDefinition[]>();
    for (const definition of view.definitions) {
      groups.set(definition.group, [...(groups.get(definition.group) ?? []), definition]);
    }
    const ordered = [...groups.keys()].sort(
      (a, b) => ((GROUP_ORDER.indexOf(a) + 100) % 100) - ((GROUP_ORDER.indexOf(b) + 100) % 100),
    );
    replaceChildren(
      form,
      ordered.map((group) => {
        const details = h('details', {
          class: 'settings-group',
          'data-group': group,
          open: firstRender ? OPEN_GROUPS.has(group) : opened.has(group),
        });
        details.append(h('summary', null, GROUP_TITLES[group] ? t(GROUP_TITLES[group]) : group));
        if (group === 'cloud-asr') details.append(cloudPresets());
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
                label(definition.key),
                h('code', null, definition.key),
                view.environment_overrides.includes(definition.key)
                  ? h('span', { class: 'badge warn' }, t('overriddenByEnv'))
                  : null,
                h('span', { class: 'badge' }, applies),
              ),
              control,
              error,
              h('small', { class: 'setting-help' }, definition.description),
            ),
          );
        }
        return details;
      }),
    );
    extra.value = view.extra_lines;
    pathInfo.textContent = t('settingsFile', { path: view.path });
  };

  const load = async () => {
    try {
      render(await api<SettingsView>('/api/settings'));
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
      const result = await api<SettingsSaved>('/api/settings', {
        body: { fields, extra_lines: extra.value },
      });
      const lines = [
        result.changed.length === 0 ? t('settingsNothingChanged') : t('settingsSaved'),
        result.applied_now.length > 0
          ? t('settingsNow', { keys: result.applied_now.join(', ') })
          : '',
        result.next_class.length > 0
          ? t('settingsNextClass', { keys: result.next_class.join(', ') })
          : '',
        result.restart_required.length > 0
          ? t('settingsRestart', { keys: result.restart_required.join(', ') })
          : '',
        result.overridden_by_environment.length > 0
          ? t('settingsEnvOverride', { keys: result.overridden_by_environment.join(', ') })
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
            (target.control.closest('details') as HTMLDetailsElement | null)?.setAttribute(
              'open',
              '',
            );
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
      items.push(t('errorLlmNotConfigured', { field: health.llm.missing.join(', ') }));
    }
    if (health && !health.asr.available) {
      items.push(
        h(
          'span',
          null,
          `${t('asrUnavailable')}（${health.asr.mode}）：${health.asr.message} `,
          h(
            'button',
            { class: 'link-button', onclick: () => void context.useDemoMode() },
            t('useDemoMode'),
          ),
        ),
      );
    }
    for (const problem of health?.not_configured ?? []) {
      if (problem.startsWith('Settings:')) items.push(problem);
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
      capture.element,
      h('h4', null, t('modelsTitle')),
      models.element,
      h('h4', null, t('settingsBackend')),
      pathInfo,
      form,
      h(
        'details',
        { class: 'settings-group advanced' },
        h('summary', null, t('settingsAdvanced')),
        h('small', { class: 'setting-help' }, t('settingsAdvancedHint')),
        extra,
      ),
      h('div', { class: 'button-row sticky' }, saveButton, reloadButton),
      status,
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
