import { describe, expect, it } from 'vitest';
import {
  isUnchecked,
  mirrorSource,
  OFFICIAL_MODEL_CATALOGUE,
  sourcesOf,
} from './model-catalogue.ts';

describe('the shipped catalogue', () => {
  it('pins every file with a size and a SHA-256 whose origin it names, and sums the sizes', () => {
    for (const entry of OFFICIAL_MODEL_CATALOGUE) {
      expect(entry.files.length).toBeGreaterThan(0);
      expect(entry.sizeBytes).toBe(entry.files.reduce((sum, file) => sum + file.sizeBytes, 0));
      for (const file of entry.files) {
        expect(file.sizeBytes).toBeGreaterThan(0);
        if (file.sha256 === null) expect(file.nullWhy).toBeTruthy();
        else {
          expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);
          expect(file.sha256Source).toBeTruthy();
        }
      }
      expect(isUnchecked(entry)).toBe(false);
      expect(entry.licence).toBeTruthy();
      expect(entry.languages).toContain(entry.language);
      // The Chinese UI shows the Chinese line.
      expect(entry.descriptionZh).toMatch(/[\u4e00-\u9fff]/);
    }
  });

  it('recommends SenseVoice for Chinese, offers the streaming bilingual model, keeps Vosk small', () => {
    const byId = new Map(OFFICIAL_MODEL_CATALOGUE.map((entry) => [entry.id, entry]));
    expect(
      OFFICIAL_MODEL_CATALOGUE.filter((entry) => entry.language === 'zh' && entry.recommended).map(
        (entry) => entry.id,
      ),
    ).toEqual(['sense-voice-small']);
    expect(byId.get('sense-voice-small')).toMatchObject({
      name: 'sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17',
      engine: 'sherpa',
      streaming: false,
      languages: ['zh', 'en', 'ja', 'ko', 'yue'],
    });
    expect(byId.get('sense-voice-small')?.files.map((file) => file.name)).toEqual([
      'model.int8.onnx',
      'tokens.txt',
    ]);
    expect(byId.get('streaming-zipformer-zh-en')).toMatchObject({
      name: 'sherpa-onnx-streaming-zipformer-bilingual-zh-en-2023-02-20',
      engine: 'sherpa',
      language: 'zh',
      streaming: true,
    });
    expect(byId.get('vosk-small-cn')).toMatchObject({ packaging: 'zip', engine: 'vosk' });
  });

  it('gives the sherpa-onnx models Hugging Face at a pinned revision, hf-mirror and ModelScope', () => {
    for (const entry of OFFICIAL_MODEL_CATALOGUE.filter((item) => item.engine === 'sherpa')) {
      const [hf, mirror, modelScope] = entry.sources.map((source) => source.urlFor('tokens.txt'));
      expect(entry.sources.map((source) => source.id)).toEqual([
        'huggingface',
        'hf-mirror',
        'modelscope',
      ]);
      expect(hf).toMatch(
        /^https:\/\/huggingface\.co\/[\w.-]+\/[\w.-]+\/resolve\/[0-9a-f]{40}\/tokens\.txt$/,
      );
      expect(mirror).toBe(hf?.replace('https://huggingface.co/', 'https://hf-mirror.com/'));
      expect(modelScope).toMatch(
        /^https:\/\/modelscope\.cn\/models\/[\w.-]+\/[\w.-]+\/resolve\/master\/tokens\.txt$/,
      );
    }
  });

  it('puts MODELS_BASE_URL first: <base>/<file> for archives, <base>/<folder>/<file> otherwise', () => {
    const [senseVoice] = OFFICIAL_MODEL_CATALOGUE;
    const vosk = OFFICIAL_MODEL_CATALOGUE.find((entry) => entry.id === 'vosk-small-cn')!;
    expect(
      sourcesOf(vosk, 'https://mirror.example.edu/models/').map((s) =>
        s.urlFor(vosk.files[0]!.name),
      ),
    ).toEqual([
      'https://mirror.example.edu/models/vosk-model-small-cn-0.22.zip',
      'https://alphacephei.com/vosk/models/vosk-model-small-cn-0.22.zip',
    ]);
    expect(
      mirrorSource(senseVoice!, 'https://mirror.example.edu/models')?.urlFor('tokens.txt'),
    ).toBe(
      'https://mirror.example.edu/models/sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17/tokens.txt',
    );
    expect(sourcesOf(vosk, '  ').map((source) => source.id)).toEqual(['official']);
  });
});
