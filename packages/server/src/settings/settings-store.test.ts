import { chmod, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { packageFile } from '../assets.ts';
import { isServerError } from '../errors.ts';
import { getEnvValue, parseEnv } from './env-file.ts';
import { SETTING_DEFINITIONS } from './settings-schema.ts';
import { createSettingsStore, maskSecret } from './settings-store.ts';

const FILE = [
  '# ---- my class assistant ----',
  'ASR_MODE=mock',
  '',
  '# LLM',
  'LLM_BASE_URL="https://api.deepseek.com/v1"',
  'LLM_API_KEY=sk-abcdefghijklmnop1234',
  'FAVOURITE_COLOUR=blue   # not ours',
  'LLM_MODEL=deepseek-chat',
  '',
].join('\n');

let folder: string;
let path: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'settings-'));
  path = join(folder, '.env');
  await writeFile(path, FILE);
});

describe('createSettingsStore', () => {
  it('resolves typed settings with defaults for absent keys', async () => {
    const store = await createSettingsStore({ path });
    const settings = store.current();
    expect(settings.asrMode).toBe('mock');
    expect(settings.llmApiKey).toBe('sk-abcdefghijklmnop1234');
    expect(settings.audioSampleRate).toBe(16000);
    expect(settings.llmTimeoutMs).toBe(60_000);
    expect(settings.streamAsrResourceId).toBe('volc.bigasr.sauc.duration');
    expect(settings.cloudAsrApiKey).toBe('sk-abcdefghijklmnop1234');
  });

  it('reports an invalid stored value and uses the default instead', async () => {
    await writeFile(path, 'AUDIO_SAMPLE_RATE=fast\nASR_MODE=telepathy\n');
    const store = await createSettingsStore({ path });
    expect(store.current().audioSampleRate).toBe(16000);
    expect(store.current().asrMode).toBe('local');
    expect(store.problems().map((problem) => problem.key)).toEqual([
      'ASR_MODE',
      'AUDIO_SAMPLE_RATE',
    ]);
  });

  it('lets the environment override the file, and says so', async () => {
    const store = await createSettingsStore({
      path,
      environment: { ASR_MODE: 'local', UNRELATED: 'x' },
    });
    expect(store.current().asrMode).toBe('local');
    expect(store.view().environmentOverrides).toEqual(['ASR_MODE']);
    const result = await store.saveFields({ ASR_MODE: 'stream' });
    expect(result.overriddenByEnvironment).toEqual(['ASR_MODE']);
    expect(store.current().asrMode).toBe('local');
  });

  it('masks secrets everywhere it shows them', async () => {
    const store = await createSettingsStore({ path });
    const view = store.view();
    expect(view.fields.LLM_API_KEY).toBe('••••••••1234');
    expect(view.effective.LLM_API_KEY).toBe('••••••••1234');
    expect(view.content).not.toContain('sk-abcdefghijklmnop1234');
    expect(view.content).toContain('LLM_API_KEY=••••••••1234');
    expect(maskSecret('short')).toBe('••••••••');
    expect(maskSecret('')).toBe('');
  });

  it('splits main fields from the extra lines', async () => {
    const store = await createSettingsStore({ path });
    expect(store.view().extraLines).toBe(
      '# ---- my class assistant ----\n\n# LLM\nFAVOURITE_COLOUR=blue   # not ours\n',
    );
  });
});

describe('keys under their original names', () => {
  it('reads an alias when the main key is absent, the main key when both are there, and the environment’s alias too', async () => {
    await writeFile(
      path,
      'SEED_ASR_APP_KEY=from-the-alias\nSTREAM_ASR_ACCESS_KEY=main\nSEED_ASR_ACCESS_KEY=alias-loses\n',
    );
    const store = await createSettingsStore({
      path,
      environment: { SEED_ASR_RESOURCE_ID: 'volc.bigasr.sauc.concurrent' },
    });
    expect(store.current()).toMatchObject({
      streamAsrAppKey: 'from-the-alias',
      streamAsrAccessKey: 'main',
      streamAsrResourceId: 'volc.bigasr.sauc.concurrent',
    });
    expect(store.view().environmentOverrides).toEqual(['STREAM_ASR_RESOURCE_ID']);
    // A bad value is reported under the name the user wrote.
    await writeFile(path, 'SEED_ASR_WS_URL=https://not-a-websocket\n');
    await store.load();
    expect(store.problems()[0]).toMatchObject({
      key: 'STREAM_ASR_URL',
      message: expect.stringMatching(/^SEED_ASR_WS_URL must start with wss:\/\/ or ws:\/\//),
    });
  });
});

describe('a file edited by hand', () => {
  it('is picked up by the watch within two seconds, reporting which keys changed and nothing secret', async () => {
    const store = await createSettingsStore({ path });
    const changes: string[][] = [];
    store.watch((changed) => changes.push(changed));
    try {
      const edited = Date.now();
      await writeFile(
        path,
        FILE.replace('ASR_MODE=mock', 'ASR_MODE=local').replace(
          'sk-abcdefghijklmnop1234',
          'sk-edited-by-hand-5678',
        ),
      );
      // Waiting without reading the settings: only the watch can notice.
      while (changes.length === 0 && Date.now() - edited < 2000) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(changes).toEqual([['ASR_MODE', 'LLM_API_KEY']]);
      expect(store.current()).toMatchObject({
        asrMode: 'local',
        llmApiKey: 'sk-edited-by-hand-5678',
      });
    } finally {
      store.close();
    }
  });

  it('is picked up at the next read when nothing watches the folder', async () => {
    const store = await createSettingsStore({ path });
    expect(store.current().asrMode).toBe('mock');
    await writeFile(path, FILE.replace('ASR_MODE=mock', 'ASR_MODE=local  '));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(store.current().asrMode).toBe('local');
  });
});

describe('saveContent (the original client posts the whole file)', () => {
  it('posting back the masked file changes nothing, byte for byte', async () => {
    const store = await createSettingsStore({ path });
    const result = await store.saveContent(store.view().content);
    expect(result.changed).toEqual([]);
    expect(await readFile(path, 'utf8')).toBe(FILE);
  });

  it('keeps the stored secret for a masked value and takes every other edit', async () => {
    const store = await createSettingsStore({ path });
    const edited = `${store.view().content.replace('LLM_MODEL=deepseek-chat', 'LLM_MODEL=gpt-4o-mini')}EXTRA=1\n`;
    const result = await store.saveContent(edited);
    expect(result).toMatchObject({ changed: ['LLM_MODEL'], appliedNow: ['LLM_MODEL'] });
    const text = await readFile(path, 'utf8');
    expect(text).toBe(
      `${FILE.replace('LLM_MODEL=deepseek-chat', 'LLM_MODEL=gpt-4o-mini')}EXTRA=1\n`,
    );
    expect(store.current().llmApiKey).toBe('sk-abcdefghijklmnop1234');
  });

  it('refuses a bad value naming the field, and writes nothing', async () => {
    const store = await createSettingsStore({ path });
    const error = await store
      .saveContent(`${FILE}AUDIO_CHANNELS=7\nLLM_BASE_URL=ftp://x\n`)
      .catch((caught: unknown) => caught);
    expect(isServerError(error) && error.code).toBe('SETTINGS_INVALID');
    expect(isServerError(error) && error.details.fields?.map((field) => field.field)).toEqual([
      'LLM_BASE_URL',
      'AUDIO_CHANNELS',
    ]);
    expect(isServerError(error) && error.message).toContain(
      'AUDIO_CHANNELS must be a whole number from 1 to 2',
    );
    expect(await readFile(path, 'utf8')).toBe(FILE);
  });
});

describe('saveFields (the form)', () => {
  it('changes only the posted keys, appends new ones, and sorts them by when they apply', async () => {
    const store = await createSettingsStore({ path });
    const result = await store.saveFields({
      ASR_MODE: 'mock',
      LLM_MODEL: 'qwen-plus',
      AUDIO_CHUNK_SIZE: '6400',
      LOG_LEVEL: 'debug',
      LLM_API_KEY: '••••••••1234',
      MOCK_INTERVAL_MS: '3000',
    });
    expect(result).toEqual({
      changed: ['LLM_MODEL', 'AUDIO_CHUNK_SIZE', 'LOG_LEVEL'],
      appliedNow: ['LLM_MODEL'],
      nextClass: ['AUDIO_CHUNK_SIZE'],
      restartRequired: ['LOG_LEVEL'],
      overriddenByEnvironment: [],
    });
    expect(await readFile(path, 'utf8')).toBe(
      `${FILE.replace('LLM_MODEL=deepseek-chat', 'LLM_MODEL=qwen-plus')}AUDIO_CHUNK_SIZE=6400\nLOG_LEVEL=debug\n`,
    );
  });

  it('reports only what changed in use, by the names the file gives the keys', async () => {
    await writeFile(path, `${FILE}LOG_LEVEL=\nSEED_ASR_APP_KEY=app-0001\n`);
    const store = await createSettingsStore({ path });
    const result = await store.saveFields({
      // Emptied to the default, and set to the default: the backend uses what it used.
      LLM_MODEL: '',
      LOG_LEVEL: 'info',
      // An original name in the file: the answer uses it, not the main key.
      STREAM_ASR_APP_KEY: 'app-0002',
    });
    expect(result).toEqual({
      changed: ['SEED_ASR_APP_KEY'],
      appliedNow: [],
      nextClass: ['SEED_ASR_APP_KEY'],
      restartRequired: [],
      overriddenByEnvironment: [],
    });
    const text = await readFile(path, 'utf8');
    expect(text).toContain('LLM_MODEL=\n');
    expect(text).toContain('LOG_LEVEL=info\n');
    expect(text).toContain('SEED_ASR_APP_KEY=app-0002\n');
  });

  it('refuses unknown keys and bad values with the field named', async () => {
    const store = await createSettingsStore({ path });
    const error = await store
      .saveFields({ NOPE: '1', UPLOAD_MAX_MB: '0' })
      .catch((caught: unknown) => caught);
    expect(isServerError(error) && error.details.fields).toEqual([
      {
        field: 'NOPE',
        message: {
          en: 'NOPE is not a main setting; put it in extra_lines as NOPE=value',
          zh: 'NOPE 不是主设置项；请在 extra_lines 中写成 NOPE=value',
        },
      },
      {
        field: 'UPLOAD_MAX_MB',
        message: {
          en: 'must be a whole number from 1 to 500, got "0"',
          zh: '应为 1 到 500 之间的整数，当前为 "0"',
        },
      },
    ]);
  });

  it('replaces the extra lines while main keys stay next to the lines they followed', async () => {
    const store = await createSettingsStore({ path });
    const extra =
      '# ---- my class assistant ----\n\n# LLM (edited)\n# LLM\nFAVOURITE_COLOUR=green\n\n';
    await store.saveFields({}, extra);
    expect(await readFile(path, 'utf8')).toBe(
      [
        '# ---- my class assistant ----',
        'ASR_MODE=mock',
        '',
        '# LLM (edited)',
        '# LLM',
        'LLM_BASE_URL="https://api.deepseek.com/v1"',
        'LLM_API_KEY=sk-abcdefghijklmnop1234',
        'FAVOURITE_COLOUR=green',
        'LLM_MODEL=deepseek-chat',
        '',
        '',
      ].join('\n'),
    );
    expect(store.view().extraLines).toBe(extra);
  });

  it('refuses a main key typed into the extra lines', async () => {
    const store = await createSettingsStore({ path });
    const error = await store.saveFields({}, 'LLM_MODEL=x\n').catch((caught: unknown) => caught);
    expect(isServerError(error) && error.details.field).toBe('LLM_MODEL');
  });

  it('creates a missing file with owner-only permissions and leaves no temp file', async () => {
    const fresh = join(folder, 'sub', '.env');
    const store = await createSettingsStore({ path: fresh });
    expect(store.view().exists).toBe(false);
    await store.saveFields({ LLM_API_KEY: 'sk-new-key-0000000000' });
    expect(await readFile(fresh, 'utf8')).toBe('LLM_API_KEY=sk-new-key-0000000000\n');
    if (process.platform !== 'win32') expect((await stat(fresh)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(folder, 'sub'))).toEqual(['.env']);
  });

  it.runIf(process.platform !== 'win32')(
    'tightens a settings file others can read to 0600 on the first save, and says so',
    async () => {
      await chmod(path, 0o644);
      const notices: string[] = [];
      const store = await createSettingsStore({
        path,
        logger: { warn: (_details, message) => notices.push(message ?? '') },
      });
      expect((await stat(path)).mode & 0o777).toBe(0o644);
      await store.saveFields({ LLM_API_KEY: 'sk-another-key-5678' });
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect(notices).toEqual([
        `${path} could be read by other users of this computer (mode 644); it holds API keys, so it is now readable by its owner only (600).`,
      ]);
      await store.saveFields({ LLM_MODEL: 'qwen-plus' });
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect(notices).toHaveLength(1);
    },
  );

  it('on Windows restricts each rewrite to the current user before the keys go in', async () => {
    const calls: Array<{ args: readonly string[]; tempThen: string; fileThen: string }> = [];
    const notices: string[] = [];
    const store = await createSettingsStore({
      path,
      logger: { warn: (_details, message) => notices.push(message ?? '') },
      privacy: {
        platform: 'win32',
        environment: { USERDOMAIN: 'LAB-PC-07', USERNAME: 'student' },
        runCommand: async (command, args) => {
          expect(command).toBe('icacls');
          calls.push({
            args,
            tempThen: await readFile(args[0]!, 'utf8'),
            fileThen: await readFile(path, 'utf8'),
          });
          return '';
        },
      },
    });
    await store.saveFields({ LLM_API_KEY: 'sk-new-key-for-windows-0000' });
    await store.saveFields({ LLM_MODEL: 'qwen-plus' });
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call.args).toEqual([
        expect.stringMatching(/[/\\]\.\.env\.tmp-\d+-[0-9a-f]{8}$/),
        '/inheritance:r',
        '/grant:r',
        'LAB-PC-07\\student:F',
      ]);
      expect(call.tempThen).toBe('');
    }
    expect(calls[0]!.fileThen).toBe(FILE);
    expect(await readFile(path, 'utf8')).toBe(
      FILE.replace('sk-abcdefghijklmnop1234', 'sk-new-key-for-windows-0000').replace(
        'LLM_MODEL=deepseek-chat',
        'LLM_MODEL=qwen-plus',
      ),
    );
    expect(await readdir(folder)).toEqual(['.env']);
    expect(notices).toEqual([]);
  });

  it('keeps concurrent saves in order, losing none', async () => {
    const store = await createSettingsStore({ path });
    await Promise.all([
      store.saveFields({ LLM_MODEL: 'a' }),
      store.saveFields({ AUDIO_CHANNELS: '2' }),
      store.saveFields({ MOCK_INTERVAL_MS: '50' }),
    ]);
    const reloaded = await createSettingsStore({ path });
    expect(reloaded.current()).toMatchObject({
      llmModel: 'a',
      audioChannels: 2,
      mockIntervalMs: 50,
    });
  });
});

describe('secret keys inside comments and invalid lines', () => {
  const COMMENTED = [
    '# LLM_API_KEY=sk-old-abcdef123456',
    '#export CLOUD_ASR_API_KEY = "sk-cloud-old-7890wxyz"  # last term',
    "# STREAM_ASR_APP_KEY='short'",
    'set STREAM_ASR_ACCESS_KEY=tok-0123456789zz',
    'LLM_API_KEY=sk-abcdefghijklmnop1234',
    'LLM_MODEL=deepseek-chat   # before: LLM_API_KEY=sk-older-key-aaaa1111',
    '# LLM_MODEL=gpt-4o  MY_LLM_API_KEY=my-own-key-of-another-tool  LLM_API_KEY=',
    '',
  ].join('\n');
  const MASKED = [
    '# LLM_API_KEY=••••••••3456',
    '#export CLOUD_ASR_API_KEY = "••••••••wxyz"  # last term',
    "# STREAM_ASR_APP_KEY='••••••••'",
    'set STREAM_ASR_ACCESS_KEY=••••••••89zz',
    'LLM_API_KEY=••••••••1234',
    'LLM_MODEL=deepseek-chat   # before: LLM_API_KEY=••••••••1111',
    // Any key that looks secret is masked; a value after = runs to the end, as in an assignment.
    '# LLM_MODEL=gpt-4o  MY_LLM_API_KEY=••••••••KEY=',
    '',
  ].join('\n');
  const SECRETS = [
    'sk-old-abcdef',
    'sk-cloud-old',
    'short',
    'tok-0123456789',
    'sk-abcdefghijklmnop',
    'sk-older-key',
    'my-own-key-of-another-tool',
  ];

  beforeEach(() => writeFile(path, COMMENTED));

  it('masks a commented-out key like a real one, in content and in the extra lines', async () => {
    const store = await createSettingsStore({ path });
    const view = store.view();
    expect(view.content).toBe(MASKED);
    expect(view.extraLines).toBe(
      MASKED.split('\n')
        .filter((line) => !line.startsWith('LLM_'))
        .join('\n'),
    );
    const shown = JSON.stringify(view);
    for (const secret of SECRETS) expect(shown).not.toContain(secret);
    // Comments are not settings: the key in use is still the real assignment.
    expect(store.current().llmApiKey).toBe('sk-abcdefghijklmnop1234');
    expect(view.invalidLines).toEqual([4]);
  });

  it('keeps every commented secret byte for byte when the masked content or extra lines come back', async () => {
    const store = await createSettingsStore({ path });
    expect(await store.saveContent(store.view().content)).toMatchObject({ changed: [] });
    expect(await readFile(path, 'utf8')).toBe(COMMENTED);
    expect(
      await store.saveFields({ LLM_MODEL: 'qwen-plus' }, store.view().extraLines),
    ).toMatchObject({ changed: ['LLM_MODEL'] });
    expect(await readFile(path, 'utf8')).toBe(
      COMMENTED.replace('LLM_MODEL=deepseek-chat ', 'LLM_MODEL=qwen-plus '),
    );
  });

  it('takes a changed commented value as typed, and an uncommented old key gets its value back', async () => {
    const store = await createSettingsStore({ path });
    const edited = store
      .view()
      .content.replace('# LLM_API_KEY=••••••••3456', 'LLM_API_KEY=••••••••3456')
      .replace('LLM_API_KEY=••••••••1234', '# LLM_API_KEY=••••••••1234')
      .replace('"••••••••wxyz"', '"sk-typed-in-a-comment"');
    await store.saveContent(edited);
    expect(await readFile(path, 'utf8')).toBe(
      COMMENTED.replace('# LLM_API_KEY=sk-old', 'LLM_API_KEY=sk-old')
        .replace('LLM_API_KEY=sk-abcdefghijklmnop1234', '# LLM_API_KEY=sk-abcdefghijklmnop1234')
        .replace('"sk-cloud-old-7890wxyz"', '"sk-typed-in-a-comment"'),
    );
    expect(store.current().llmApiKey).toBe('sk-old-abcdef123456');
    expect(store.view().content).not.toContain('sk-');
  });
});

describe('.env.example', () => {
  it('documents every main key with its default, and reads without problems', async () => {
    const example = parseEnv(await readFile(packageFile('.env.example'), 'utf8'));
    for (const definition of SETTING_DEFINITIONS) {
      expect(getEnvValue(example, definition.key), definition.key).toBe(definition.defaultValue);
    }
    const store = await createSettingsStore({ path: packageFile('.env.example') });
    expect(store.problems()).toEqual([]);
    expect(store.view().invalidLines).toEqual([]);
  });
});
