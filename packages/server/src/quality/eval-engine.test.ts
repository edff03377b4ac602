import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSettingsStore } from '../settings/settings-store.ts';
import { chooseEvalEngine } from './eval-engine.ts';
import { isEvalInputError, isEvalRunError, terminalLanguage } from './eval-errors.ts';

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

/** A student's folder: a settings file with `lines`, and a data folder. */
async function student(lines: string[] = []) {
  const root = await mkdtemp(join(tmpdir(), 'eval-engine-'));
  folders.push(root);
  await writeFile(join(root, '.env'), `${lines.join('\n')}\n`);
  const settings = (await createSettingsStore({ path: join(root, '.env') })).current();
  return { root, dataDir: join(root, 'data'), settings };
}

/** A folder laid out as a PocketSphinx model (the layout is all the choice looks at). */
async function pocketsphinxLayout(folder: string): Promise<string> {
  await mkdir(join(folder, 'en-us'), { recursive: true });
  await writeFile(join(folder, 'en-us.lm.bin'), '');
  await writeFile(join(folder, 'cmudict-en-us.dict'), '');
  return folder;
}

describe('chooseEvalEngine', () => {
  it('takes the engine of a --model folder with auto, and English for PocketSphinx', async () => {
    const { root, dataDir, settings } = await student();
    const model = await pocketsphinxLayout(join(root, 'my-sphinx'));
    const choice = await chooseEvalEngine({ engine: 'auto', model }, settings, dataDir);
    expect(choice).toMatchObject({ name: 'pocketsphinx', model, language: 'en' });
    expect(choice.entry.modelSetting).toBe('POCKETSPHINX_MODEL_PATH');
  });

  it("uses the engine's setting, else a model installed in the data folder", async () => {
    const withSetting = await student(['VOSK_MODEL_PATH=/models/vosk-model-small-cn-0.22']);
    expect(
      await chooseEvalEngine({ engine: 'vosk' }, withSetting.settings, withSetting.dataDir),
    ).toMatchObject({ name: 'vosk', model: '/models/vosk-model-small-cn-0.22', language: 'zh' });

    const installed = await student();
    const model = await pocketsphinxLayout(join(installed.dataDir, 'models', 'sphinx-en'));
    expect(
      await chooseEvalEngine({ engine: 'pocketsphinx' }, installed.settings, installed.dataDir),
    ).toMatchObject({ name: 'pocketsphinx', model, language: 'en' });
    // --language wins over the engine's usual one.
    expect(
      await chooseEvalEngine(
        { engine: 'pocketsphinx', language: 'zh' },
        installed.settings,
        installed.dataDir,
      ),
    ).toMatchObject({ language: 'zh' });
  });

  it('says what to download when a class would have no model', async () => {
    const { dataDir, settings } = await student(['LOCAL_ASR_LANGUAGE=zh']);
    const error = await chooseEvalEngine({ engine: 'auto' }, settings, dataDir).catch(
      (caught: unknown) => caught,
    );
    expect(isEvalRunError(error)).toBe(true);
    expect((error as Error).message).toContain('No offline model for Chinese');
  });

  it('names the option that cannot be used', async () => {
    const { root, dataDir, settings } = await student();
    const notAModel = await chooseEvalEngine(
      { engine: 'auto', model: root },
      settings,
      dataDir,
    ).catch((caught: unknown) => caught);
    expect(isEvalInputError(notAModel) && notAModel.option).toBe('--model');
    expect((notAModel as Error).message).toContain(`--model ${root} is not a model folder`);
    const unknown = await chooseEvalEngine({ engine: 'whisper' }, settings, dataDir).catch(
      (caught: unknown) => caught,
    );
    expect(isEvalInputError(unknown) && unknown.option).toBe('--engine');
    expect((unknown as Error).message).toContain('this build has no such offline engine');
  });
});

describe('terminalLanguage', () => {
  it('is Chinese for a zh locale, else English', () => {
    expect(terminalLanguage({ LANG: 'zh_CN.UTF-8' })).toBe('zh');
    expect(terminalLanguage({ LC_ALL: 'zh_TW.UTF-8', LANG: 'en_US.UTF-8' })).toBe('zh');
    expect(terminalLanguage({ LC_ALL: 'C', LANG: 'zh_CN.UTF-8' })).toBe('en');
    expect(terminalLanguage({ LANG: 'en_US.UTF-8' })).toBe('en');
    expect(terminalLanguage({})).toBe('en');
  });
});
