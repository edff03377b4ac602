import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listInstalledModels } from '../models/model-store.ts';
import { createSettingsStore } from '../settings/settings-store.ts';
import { chooseLocalModel } from './local-model.ts';
import { choosePunctuationModel } from './punctuation-model.ts';

const FIXTURES = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'sherpa');
const PUNCTUATION = 'sherpa-onnx-punct-ct-transformer-zh-en-vocab272727-2024-04-12';
const STREAMING = 'sherpa-onnx-streaming-zipformer-bilingual-zh-en-2023-02-20';

let root = '';
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = '';
});

/** A data folder with the test models named installed (punctuation, streaming). */
async function dataWith(models: string[]): Promise<string> {
  root = await mkdtemp(join(tmpdir(), 'punctuation-model-'));
  const folder = join(root, 'data', 'models');
  await mkdir(folder, { recursive: true });
  for (const name of models) {
    const fixture = name === PUNCTUATION ? 'punct' : 'streaming-zipformer';
    await cp(join(FIXTURES, fixture), join(folder, name), { recursive: true });
  }
  return join(root, 'data');
}

async function settingsWith(environment: Record<string, string>) {
  return (await createSettingsStore({ path: join(root, '.env'), environment })).current();
}

describe('choosePunctuationModel', () => {
  it('takes nothing when no punctuation model is set or installed', async () => {
    const data = await dataWith([STREAMING]);
    expect(await choosePunctuationModel(await settingsWith({}), data)).toEqual({ found: false });
  });

  it('takes an installed punctuation model', async () => {
    const data = await dataWith([STREAMING, PUNCTUATION]);
    expect(await choosePunctuationModel(await settingsWith({}), data)).toEqual({
      found: true,
      model: join(data, 'models', PUNCTUATION, 'model.onnx'),
      source: 'installed',
    });
  });

  it('lets SHERPA_PUNCTUATION_MODEL_PATH win, as a folder (int8 graph first) or a file', async () => {
    const data = await dataWith([PUNCTUATION]);
    const own = join(root, 'own');
    await mkdir(own);
    await writeFile(join(own, 'model.onnx'), 'x');
    await writeFile(join(own, 'model.int8.onnx'), 'x');
    await writeFile(join(own, 'tokens.json'), '[]');
    expect(
      await choosePunctuationModel(
        await settingsWith({ SHERPA_PUNCTUATION_MODEL_PATH: own }),
        data,
      ),
    ).toEqual({ found: true, model: join(own, 'model.int8.onnx'), source: 'setting' });
    const file = join(own, 'model.onnx');
    expect(
      await choosePunctuationModel(
        await settingsWith({ SHERPA_PUNCTUATION_MODEL_PATH: file }),
        data,
      ),
    ).toEqual({ found: true, model: file, source: 'setting' });
  });

  it('names what is wrong with the setting, and then takes no installed model instead', async () => {
    const data = await dataWith([PUNCTUATION]);
    const missing = join(root, 'nowhere');
    expect(
      await choosePunctuationModel(
        await settingsWith({ SHERPA_PUNCTUATION_MODEL_PATH: missing }),
        data,
      ),
    ).toEqual({
      found: false,
      problem: `SHERPA_PUNCTUATION_MODEL_PATH: ${missing} does not exist`,
    });
    // A recognizer's folder is no punctuation model.
    const streaming = join(FIXTURES, 'streaming-zipformer');
    const choice = await choosePunctuationModel(
      await settingsWith({ SHERPA_PUNCTUATION_MODEL_PATH: streaming }),
      data,
    );
    expect(choice).toMatchObject({ found: false });
    expect(!choice.found && choice.problem).toContain(
      'holds no sherpa-onnx punctuation model: it has bpe.vocab, decoder-epoch-99-avg-1.onnx',
    );
  });
});

describe('an installed punctuation model', () => {
  it('is listed as sherpa punctuation and never chosen as the recognizer', async () => {
    const data = await dataWith([PUNCTUATION]);
    expect(await listInstalledModels(join(data, 'models'))).toMatchObject([
      { name: PUNCTUATION, engine: 'sherpa', role: 'punctuation', language: 'zh' },
    ]);
    for (const engine of ['auto', 'sherpa']) {
      const choice = await chooseLocalModel(
        await settingsWith({ LOCAL_ASR_ENGINE: engine }),
        data,
        { systemPocketsphinxModels: [] },
      );
      expect(choice.found).toBe(false);
    }
    await cp(join(FIXTURES, 'streaming-zipformer'), join(data, 'models', STREAMING), {
      recursive: true,
    });
    const choice = await chooseLocalModel(await settingsWith({}), data, {
      systemPocketsphinxModels: [],
    });
    expect(choice).toMatchObject({ found: true, model: join(data, 'models', STREAMING) });
  });
});
