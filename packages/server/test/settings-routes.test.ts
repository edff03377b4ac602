import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness.ts';

const ENV = [
  '# Class Assistant settings (hand-edited)',
  'ASR_MODE=mock',
  '',
  'LLM_API_KEY="sk-live-0123456789abcdef"',
  'MY_NOTE=keep this line exactly   # with a comment',
  'LLM_MODEL=deepseek-chat',
];

let harness: Harness;
beforeEach(async () => {
  harness = await createHarness({ env: ENV });
});
afterEach(() => harness.close());

describe('GET /api/settings', () => {
  it('returns the original shape plus fields, with secrets masked everywhere', async () => {
    const response = await harness.request({ url: '/api/settings' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({
      status: 'success',
      path: harness.envFile,
      exists: true,
      fields: {
        ASR_MODE: 'mock',
        LLM_API_KEY: '••••••••cdef',
        LLM_MODEL: 'deepseek-chat',
        AUDIO_SAMPLE_RATE: '',
      },
      effective: { AUDIO_SAMPLE_RATE: '16000', LLM_API_KEY: '••••••••cdef' },
      extra_lines:
        '# Class Assistant settings (hand-edited)\n\nMY_NOTE=keep this line exactly   # with a comment\n',
      environment_overrides: [],
      problems: [],
    });
    expect(body.content).toBe(
      `${ENV.join('\n').replace('sk-live-0123456789abcdef', '••••••••cdef')}\n`,
    );
    expect(response.body).not.toContain('sk-live');
    expect(
      body.definitions.find((definition: { key: string }) => definition.key === 'LLM_API_KEY'),
    ).toMatchObject({
      secret: true,
      applies: 'now',
    });
  });

  it('names every key, group and choice in both languages, and says what each ASR mode needs', async () => {
    type Named = { zh: string; en: string };
    type Definition = {
      key: string;
      group: string;
      label: Named;
      description: string;
      descriptions: Named;
      choices?: { value: string }[];
    };
    type Mode = { mode: string; label: Named; audio: string[]; settings: string[]; model: boolean };
    for (const url of ['/api/settings', '/api/settings/definitions']) {
      const response = await harness.request({ url });
      expect(response.statusCode, url).toBe(200);
      const body = response.json() as {
        definitions: Definition[];
        groups: Array<{ id: string; label: Named }>;
        asr_modes: Mode[];
      };
      const groups = new Set(body.groups.map((group) => group.id));
      for (const definition of body.definitions) {
        expect(groups.has(definition.group), definition.key).toBe(true);
        // What the key does in both languages; `description` stays the English one.
        expect(definition.descriptions.en, definition.key).toBe(definition.description);
        expect(definition.descriptions.zh, definition.key).toMatch(/\p{Script=Han}/u);
      }
      const byKey = new Map(body.definitions.map((definition) => [definition.key, definition]));
      expect(byKey.get('LOCAL_ASR_LANGUAGE')?.label).toEqual({
        zh: '课堂语言',
        en: 'Class language',
      });
      expect(byKey.get('LOG_LEVEL')?.choices?.map((choice) => choice.value)).toContain('debug');
      expect(byKey.get('LLM_MODEL')?.choices).toBeUndefined();
      // Every mode ASR_MODE offers is one this build runs, with its needs.
      expect(byKey.get('ASR_MODE')?.choices?.map((choice) => choice.value)).toEqual(
        body.asr_modes.map((mode) => mode.mode),
      );
      const modes = new Map(body.asr_modes.map((mode) => [mode.mode, mode]));
      expect(modes.get('dashscope')).toMatchObject({
        audio: ['microphone', 'app', 'file'],
        settings: ['DASHSCOPE_API_KEY'],
        model: false,
      });
      expect(modes.get('local')).toMatchObject({ model: true });
      expect(modes.get('mock')).toMatchObject({ audio: [], settings: [], model: false });
      expect(modes.get('stream')).toMatchObject({ aliases: ['seed-asr'] });
      for (const mode of body.asr_modes) {
        for (const key of mode.settings) expect(byKey.has(key), `${mode.mode} ${key}`).toBe(true);
      }
    }
  });

  it('masks every line of a secret key set twice, and keeps both when the content comes back', async () => {
    const text = [
      'export LLM_API_KEY = "sk-old-secret-0000"  # the previous account',
      'ASR_MODE=mock',
      'LLM_API_KEY=sk-verysecretkey-1234',
      "CLOUD_ASR_API_KEY='short'",
      'CLOUD_ASR_API_KEY=',
      '',
    ].join('\r\n');
    await writeFile(harness.envFile, text);
    const response = await harness.request({ url: '/api/settings' });
    expect(response.body).not.toContain('sk-old-secret');
    expect(response.body).not.toContain('sk-verysecretkey');
    expect(response.body).not.toContain('short');
    const { content, fields } = response.json();
    expect(content).toBe(
      [
        'export LLM_API_KEY = "••••••••0000"  # the previous account',
        'ASR_MODE=mock',
        'LLM_API_KEY=••••••••1234',
        "CLOUD_ASR_API_KEY='••••••••'",
        'CLOUD_ASR_API_KEY=',
        '',
      ].join('\r\n'),
    );
    expect(fields.LLM_API_KEY).toBe('••••••••1234');
    const saved = await harness.request({
      method: 'POST',
      url: '/api/settings',
      payload: { content },
    });
    expect(saved.json()).toMatchObject({ status: 'success', changed: [] });
    expect(await readFile(harness.envFile, 'utf8')).toBe(text);
    // Lines moved around still get their own secret back; a new value replaces only its line.
    const lines = (content as string).split('\r\n');
    const reordered = [
      lines[2],
      lines[1],
      lines[0]!.replace('••••••••0000', 'sk-new-key-9999'),
      '',
    ];
    await harness.request({
      method: 'POST',
      url: '/api/settings',
      payload: { content: reordered.join('\n') },
    });
    expect(await readFile(harness.envFile, 'utf8')).toBe(
      [
        'LLM_API_KEY=sk-verysecretkey-1234',
        'ASR_MODE=mock',
        'export LLM_API_KEY = "sk-new-key-9999"  # the previous account',
        '',
      ].join('\n'),
    );
  });

  it('masks a key commented out in the file, and a client that saves what it read keeps it', async () => {
    const text = [
      '# old account, do not use: LLM_API_KEY=sk-old-abcdef123456',
      '# export LLM_API_KEY="sk-older-9999888877776666"',
      'ASR_MODE=mock',
      'LLM_API_KEY=sk-live-0123456789abcdef',
      '',
    ].join('\n');
    await writeFile(harness.envFile, text);
    const response = await harness.request({ url: '/api/settings' });
    expect(response.body).not.toContain('sk-old');
    expect(response.body).not.toContain('sk-older');
    const body = response.json();
    expect(body.content).toBe(
      [
        '# old account, do not use: LLM_API_KEY=••••••••3456',
        '# export LLM_API_KEY="••••••••6666"',
        'ASR_MODE=mock',
        'LLM_API_KEY=••••••••cdef',
        '',
      ].join('\n'),
    );
    expect(body.extra_lines).toBe(
      '# old account, do not use: LLM_API_KEY=••••••••3456\n# export LLM_API_KEY="••••••••6666"\n',
    );
    for (const payload of [
      { content: body.content },
      { fields: body.fields, extra_lines: body.extra_lines },
    ]) {
      const saved = await harness.request({ method: 'POST', url: '/api/settings', payload });
      expect(saved.json()).toMatchObject({ status: 'success', changed: [] });
      expect(await readFile(harness.envFile, 'utf8')).toBe(text);
    }
    // A value typed over the mask in a comment is saved as typed.
    await harness.request({
      method: 'POST',
      url: '/api/settings',
      payload: { content: body.content.replace('"••••••••6666"', '"sk-replaced"') },
    });
    expect(await readFile(harness.envFile, 'utf8')).toBe(
      text.replace('"sk-older-9999888877776666"', '"sk-replaced"'),
    );
  });

  it('reads a file edited by hand since the last request', async () => {
    await writeFile(harness.envFile, 'ASR_MODE=local\n');
    const body = (await harness.request({ url: '/api/settings' })).json();
    expect(body.fields.ASR_MODE).toBe('local');
    expect(harness.app.classAssistant.settings.current().asrMode).toBe('local');
  });
});

describe('POST /api/settings', () => {
  it('takes the original client’s {content}: the masked file posted back changes nothing', async () => {
    const content = (await harness.request({ url: '/api/settings' })).json().content;
    const response = await harness.request({
      method: 'POST',
      url: '/api/settings',
      payload: { content },
    });
    // The original client is Chinese: messages are Chinese unless the request prefers English.
    expect(response.json()).toMatchObject({
      status: 'success',
      changed: [],
      message: '设置已保存，没有改动。',
    });
    const english = await harness.request({
      method: 'POST',
      url: '/api/settings',
      headers: { 'accept-language': 'en-GB,en;q=0.9,zh;q=0.5' },
      payload: { content },
    });
    expect(english.json().message).toBe('Settings saved; nothing changed.');
    expect(await readFile(harness.envFile, 'utf8')).toBe(`${ENV.join('\n')}\n`);
  });

  it('applies an edited {content} and reports when each change takes effect', async () => {
    const content = (await harness.request({ url: '/api/settings' })).json().content as string;
    const edited = `${content.replace('ASR_MODE=mock', 'ASR_MODE=local')}LOG_LEVEL=debug\nLLM_MODEL=qwen-plus\n`;
    const body = (
      await harness.request({
        method: 'POST',
        url: '/api/settings',
        headers: { 'accept-language': 'en' },
        payload: { content: edited },
      })
    ).json();
    expect(body).toMatchObject({
      changed: ['ASR_MODE', 'LLM_MODEL', 'LOG_LEVEL'],
      applied_now: ['LLM_MODEL'],
      next_class: ['ASR_MODE'],
      restart_required: ['LOG_LEVEL'],
    });
    expect(body.message).toBe(
      // Each key once, by its name and as the file names it.
      'Settings saved. In effect now: Model (LLM_MODEL). In effect from the next class: Recognition mode (ASR_MODE). Restart the backend for: Log level (LOG_LEVEL).',
    );
    expect(harness.app.classAssistant.settings.current().llmApiKey).toBe(
      'sk-live-0123456789abcdef',
    );
  });

  it('takes fields and extra lines, keeping untouched lines byte for byte', async () => {
    const response = await harness.request({
      method: 'POST',
      url: '/api/settings',
      payload: {
        fields: {
          LLM_MODEL: 'gpt-4o-mini',
          LLM_API_KEY: '••••••••cdef',
          AUDIO_CHANNELS: 1,
          MOCK_LOOP: true,
        },
      },
    });
    expect(response.statusCode).toBe(200);
    expect(await readFile(harness.envFile, 'utf8')).toBe(
      `${ENV.join('\n').replace('LLM_MODEL=deepseek-chat', 'LLM_MODEL=gpt-4o-mini')}\n`,
    );
  });

  it('refuses bad values with 400 SETTINGS_INVALID naming the field, and writes nothing', async () => {
    const before = await readFile(harness.envFile, 'utf8');
    const post = (language?: string) =>
      harness.request({
        method: 'POST',
        url: '/api/settings',
        ...(language ? { headers: { 'accept-language': language } } : {}),
        payload: { fields: { AUDIO_SAMPLE_RATE: '44', ASR_MODE: 'psychic' } },
      });
    const response = await post('en');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      status: 'error',
      code: 'SETTINGS_INVALID',
      field: 'AUDIO_SAMPLE_RATE',
      fields: [
        {
          field: 'AUDIO_SAMPLE_RATE',
          message: 'must be a whole number from 8000 to 48000, got "44"',
        },
        {
          field: 'ASR_MODE',
          message: 'must be one of local, stream, dashscope, cloud, mock, seed-asr, got "psychic"',
        },
      ],
    });
    // The same refusal in Chinese by default: the same code and fields, the messages translated.
    const chinese = await post();
    expect(chinese.json()).toMatchObject({
      code: 'SETTINGS_INVALID',
      field: 'AUDIO_SAMPLE_RATE',
      message:
        'AUDIO_SAMPLE_RATE 应为 8000 到 48000 之间的整数，当前为 "44"；ASR_MODE 应为 local、stream、dashscope、cloud、mock、seed-asr 之一，当前为 "psychic"',
    });
    expect(await readFile(harness.envFile, 'utf8')).toBe(before);
  });

  it('refuses a body that is neither {content} nor {fields}', async () => {
    for (const payload of [{}, { content: 'A=1', fields: {} }, { content: 42 }]) {
      const response = await harness.request({ method: 'POST', url: '/api/settings', payload });
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
    const broken = await harness.request({
      method: 'POST',
      url: '/api/settings',
      headers: { 'content-type': 'application/json' },
      payload: '{"content":',
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'body' });
  });
});
