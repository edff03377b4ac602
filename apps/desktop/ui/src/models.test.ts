import { afterEach, describe, expect, it } from 'vitest';
import { setLang } from './i18n.ts';
import { modelDescription, offeredModels } from './models.ts';
import type { ModelItem } from './types.ts';

const model = (
  id: string,
  engine: ModelItem['engine'],
  extra: Partial<ModelItem> = {},
): ModelItem => ({
  id,
  name: id,
  language: 'zh',
  languages: ['zh'],
  engine,
  role: 'recognizer',
  size_bytes: 1,
  disk_bytes: null,
  description: '',
  descriptions: { zh: '', en: '' },
  published_accuracy: [],
  licence: null,
  streaming: null,
  recommended: false,
  unchecked: false,
  files: [],
  sources: [],
  installed: false,
  ...extra,
});

const CATALOGUE = [
  model('vosk-small-cn', 'vosk'),
  model('streaming-zipformer-zh-en', 'sherpa'),
  model('sense-voice-small', 'sherpa', { recommended: true }),
  model('vosk-small-en', 'vosk', { language: 'en' }),
  model('punct-ct-transformer-zh-en', 'sherpa', { role: 'punctuation', languages: ['zh', 'en'] }),
];

describe('offeredModels', () => {
  it('offers the models of the class language not yet installed, recommended first', () => {
    expect(offeredModels(CATALOGUE, 'zh', 'auto').map((item) => item.id)).toEqual([
      'sense-voice-small',
      'vosk-small-cn',
      'streaming-zipformer-zh-en',
    ]);
    const installed = CATALOGUE.map((item) => ({ ...item, installed: item.engine === 'vosk' }));
    expect(offeredModels(installed, 'zh', 'auto').map((item) => item.id)).toEqual([
      'sense-voice-small',
      'streaming-zipformer-zh-en',
    ]);
  });

  it('offers only models the chosen engine runs (a Vosk model would not start a sherpa class)', () => {
    expect(offeredModels(CATALOGUE, 'zh', 'sherpa').map((item) => item.id)).toEqual([
      'sense-voice-small',
      'streaming-zipformer-zh-en',
    ]);
    expect(offeredModels(CATALOGUE, 'zh', 'vosk').map((item) => item.id)).toEqual([
      'vosk-small-cn',
    ]);
  });

  it('offers a model that also recognises the class language when none is made for it', () => {
    const bilingual = CATALOGUE.map((item) =>
      item.engine === 'sherpa' ? { ...item, languages: ['zh', 'en'] } : item,
    );
    // An English class with the sherpa engine: SenseVoice hears English too.
    expect(offeredModels(bilingual, 'en', 'sherpa').map((item) => item.id)).toEqual([
      'sense-voice-small',
      'streaming-zipformer-zh-en',
    ]);
    // Models made for English come alone when there are some.
    expect(offeredModels(bilingual, 'en', 'auto').map((item) => item.id)).toEqual([
      'vosk-small-en',
    ]);
    expect(offeredModels(CATALOGUE, 'en', 'sherpa')).toEqual([]);
  });

  it('never offers a punctuation model: a class cannot start with it', () => {
    for (const engine of ['auto', 'sherpa']) {
      for (const language of ['zh', 'en'] as const) {
        expect(offeredModels(CATALOGUE, language, engine).map((item) => item.id)).not.toContain(
          'punct-ct-transformer-zh-en',
        );
      }
    }
  });
});

describe('modelDescription', () => {
  afterEach(() => setLang('zh'));

  it('describes a model in the language of the UI', () => {
    const senseVoice = model('sense-voice-small', 'sherpa', {
      description: 'SenseVoice-Small: Chinese with English, punctuation',
      descriptions: {
        zh: 'SenseVoice-Small：中文夹英文，带标点',
        en: 'SenseVoice-Small: Chinese with English, punctuation',
      },
    });
    setLang('zh');
    expect(modelDescription(senseVoice)).toBe('SenseVoice-Small：中文夹英文，带标点');
    setLang('en');
    expect(modelDescription(senseVoice)).toBe(
      'SenseVoice-Small: Chinese with English, punctuation',
    );
  });

  it('shows the one description of a backend that sends no Chinese one', () => {
    setLang('zh');
    expect(modelDescription({ description: 'a small model' })).toBe('a small model');
  });
});
