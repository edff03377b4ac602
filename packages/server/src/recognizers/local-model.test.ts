import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { textIn } from '../language.ts';
import { createSettingsStore } from '../settings/settings-store.ts';
import { chooseLocalModel } from './local-model.ts';

const FIXTURES = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'sherpa');
const SENSE_VOICE = 'sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17';
const STREAMING = 'sherpa-onnx-streaming-zipformer-bilingual-zh-en-2023-02-20';
const VOSK = 'vosk-model-small-cn-0.22';

let root = '';
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = '';
});

/** A data folder with the named models installed (test models for sherpa, a Vosk layout). */
async function dataWith(models: string[]): Promise<string> {
  root = await mkdtemp(join(tmpdir(), 'local-model-'));
  const folder = join(root, 'data', 'models');
  await mkdir(folder, { recursive: true });
  for (const name of models) {
    if (name === SENSE_VOICE)
      await cp(join(FIXTURES, 'sense-voice'), join(folder, name), { recursive: true });
    else if (name === STREAMING)
      await cp(join(FIXTURES, 'streaming-zipformer'), join(folder, name), { recursive: true });
    else {
      await mkdir(join(folder, name, 'am'), { recursive: true });
      await writeFile(join(folder, name, 'am', 'final.mdl'), 'x');
    }
  }
  return join(root, 'data');
}

async function choose(dataDir: string, environment: Record<string, string>) {
  const store = await createSettingsStore({ path: join(root, '.env'), environment });
  const choice = await chooseLocalModel(store.current(), dataDir, { systemPocketsphinxModels: [] });
  return choice.found
    ? { engine: choice.engine.name, model: choice.model?.split('/').at(-1), source: choice.source }
    : { missing: textIn(choice.message, 'en'), code: choice.code, settings: choice.settings };
}

describe('chooseLocalModel', () => {
  it('auto (the default) takes SenseVoice, then a streaming model, then Vosk', async () => {
    const all = await dataWith([VOSK, STREAMING, SENSE_VOICE]);
    expect(await choose(all, {})).toEqual({
      engine: 'sherpa',
      model: SENSE_VOICE,
      source: 'installed',
    });
    await rm(join(all, 'models', SENSE_VOICE), { recursive: true });
    expect(await choose(all, {})).toMatchObject({ engine: 'sherpa', model: STREAMING });
    await rm(join(all, 'models', STREAMING), { recursive: true });
    expect(await choose(all, {})).toMatchObject({ engine: 'vosk', model: VOSK });
  });

  it('lets a model folder setting win, SHERPA_MODEL_PATH first', async () => {
    const all = await dataWith([VOSK, SENSE_VOICE]);
    expect(await choose(all, { VOSK_MODEL_PATH: '/models/vosk' })).toEqual({
      engine: 'vosk',
      model: undefined,
      source: 'setting',
    });
    expect(
      await choose(all, { VOSK_MODEL_PATH: '/models/vosk', SHERPA_MODEL_PATH: '/models/sherpa' }),
    ).toEqual({ engine: 'sherpa', model: undefined, source: 'setting' });
  });

  it('keeps an explicit engine to its own models', async () => {
    const sherpaOnly = await dataWith([SENSE_VOICE]);
    // vosk never runs a sherpa-onnx folder: nothing of its own is installed.
    expect(await choose(sherpaOnly, { LOCAL_ASR_ENGINE: 'vosk' })).toMatchObject({
      missing: expect.stringContaining('No offline model for Chinese'),
    });
    await rm(root, { recursive: true, force: true });
    const voskOnly = await dataWith([VOSK]);
    expect(await choose(voskOnly, { LOCAL_ASR_ENGINE: 'sherpa' })).toEqual({
      missing: expect.stringContaining('models pull sense-voice-small'),
      code: 'ASR_MODEL_MISSING',
      settings: ['LOCAL_ASR_LANGUAGE', 'SHERPA_MODEL_PATH', 'LOCAL_ASR_ENGINE'],
    });
    expect(await choose(voskOnly, { LOCAL_ASR_ENGINE: 'vosk' })).toMatchObject({
      engine: 'vosk',
      model: VOSK,
    });
  });

  it('runs SenseVoice for an English class when it is the sherpa-onnx model installed', async () => {
    const sherpaOnly = await dataWith([SENSE_VOICE]);
    // SenseVoice recognises English too: an explicit sherpa engine is not told none is installed.
    expect(
      await choose(sherpaOnly, { LOCAL_ASR_ENGINE: 'sherpa', LOCAL_ASR_LANGUAGE: 'en' }),
    ).toEqual({ engine: 'sherpa', model: SENSE_VOICE, source: 'installed' });
    // auto: a model made for English first, else SenseVoice, before nothing at all.
    expect(await choose(sherpaOnly, { LOCAL_ASR_LANGUAGE: 'en' })).toEqual({
      engine: 'sherpa',
      model: SENSE_VOICE,
      source: 'installed',
    });
    await mkdir(join(sherpaOnly, 'models', 'vosk-model-small-en-us-0.15', 'am'), {
      recursive: true,
    });
    await writeFile(
      join(sherpaOnly, 'models', 'vosk-model-small-en-us-0.15', 'am', 'final.mdl'),
      'x',
    );
    expect(await choose(sherpaOnly, { LOCAL_ASR_LANGUAGE: 'en' })).toMatchObject({
      engine: 'vosk',
      model: 'vosk-model-small-en-us-0.15',
    });
    // A Vosk-only engine still never runs a sherpa-onnx folder.
    await rm(join(sherpaOnly, 'models', 'vosk-model-small-en-us-0.15'), { recursive: true });
    expect(
      await choose(sherpaOnly, { LOCAL_ASR_ENGINE: 'vosk', LOCAL_ASR_LANGUAGE: 'en' }),
    ).toMatchObject({ missing: expect.stringContaining('No offline model for English') });
  });
});
