import { describe, expect, expectTypeOf, it } from 'vitest';
import { buildDialogContext, buildHotwordsContext } from './corpus-context.ts';
import { isAsrProtocolError } from './errors.ts';
import { type AsrRequest, asrRequestSchema, validateAsrRequest } from './request-schema.ts';

const minimal = { audio: { format: 'pcm' }, request: { model_name: 'bigmodel' } } as const;

function problems(value: unknown, endpoint?: Parameters<typeof validateAsrRequest>[1]): string[] {
  try {
    validateAsrRequest(value, endpoint);
    return [];
  } catch (error) {
    if (!isAsrProtocolError(error) || error.code !== 'ASR_INVALID_REQUEST') throw error;
    return (error.issues ?? []).map((issue) => `${issue.path}: ${issue.message}`);
  }
}

describe('validateAsrRequest', () => {
  it('accepts a request using every documented field', () => {
    const full: AsrRequest = {
      user: {
        uid: 'u1',
        did: 'laptop',
        platform: 'Linux',
        sdk_version: '1.0',
        app_version: '1.2.0',
      },
      audio: { language: '', format: 'pcm', codec: 'raw', rate: 16000, bits: 16, channel: 2 },
      request: {
        model_name: 'bigmodel',
        enable_nonstream: true,
        enable_itn: true,
        enable_punc: true,
        enable_ddc: false,
        show_utterances: true,
        show_speech_rate: true,
        show_volume: true,
        enable_lid: true,
        enable_emotion_detection: true,
        enable_gender_detection: true,
        result_type: 'single',
        enable_accelerate_text: true,
        accelerate_score: 20,
        vad_segment_duration: 3000,
        end_window_size: 200,
        force_to_speech_time: 1,
        sensitive_words_filter: JSON.stringify({
          system_reserved_filter: true,
          filter_with_empty: ['um'],
          filter_with_signed: ['darn'],
        }),
        enable_poi_fc: true,
        enable_music_fc: false,
        corpus: {
          boosting_table_name: 'biology',
          boosting_table_id: 'b1',
          correct_table_name: 'fixes',
          correct_table_id: 'c1',
          context: buildHotwordsContext(['photosynthesis', 'chlorophyll']),
        },
      },
    };
    expect(validateAsrRequest(full, 'bigmodel_async')).toEqual(full);
    expect(validateAsrRequest(minimal)).toEqual(minimal);
  });

  it('returns the typed request', () => {
    expectTypeOf(validateAsrRequest(minimal)).toEqualTypeOf<AsrRequest>();
    expectTypeOf<AsrRequest['audio']['format']>().toEqualTypeOf<'pcm' | 'wav' | 'ogg' | 'mp3'>();
    expectTypeOf<NonNullable<AsrRequest['audio']['channel']>>().toEqualTypeOf<1 | 2>();
  });

  it.each([
    [
      { ...minimal, audio: { format: 'pcm', rate: 8000 } },
      'audio.rate: must be 16000, the only supported sample rate (got 8000)',
    ],
    [
      { ...minimal, audio: { format: 'pcm', bits: 24 } },
      'audio.bits: must be 16, the only supported sample size (got 24)',
    ],
    [
      { ...minimal, audio: { format: 'pcm', channel: 3 } },
      'audio.channel: must be 1 (mono) or 2 (stereo) (got 3)',
    ],
    [
      { ...minimal, audio: { format: 'flac' } },
      'audio.format: must be pcm, wav, ogg or mp3 (got "flac")',
    ],
    [
      { ...minimal, audio: { format: 'ogg' } },
      'audio.codec: must be opus when format is ogg (got nothing)',
    ],
    [
      { ...minimal, audio: { format: 'ogg', codec: 'raw' } },
      'audio.codec: must be opus when format is ogg (got "raw")',
    ],
    [
      { ...minimal, audio: { format: 'wav', codec: 'opus' } },
      'audio.codec: must be raw when format is wav: wav must contain pcm_s16le (got "opus")',
    ],
    [
      { ...minimal, audio: { format: 'mp3', codec: 'opus' } },
      'audio.codec: has no effect for mp3; pass raw (got "opus")',
    ],
    [
      { ...minimal, audio: { format: 'pcm', language: 'en-GB' } },
      'audio.language: must be empty or one of',
    ],
    [
      { ...minimal, request: { model_name: 'whisper' } },
      'request.model_name: must be "bigmodel" (got "whisper")',
    ],
    [
      { ...minimal, request: { model_name: 'bigmodel', end_window_size: 199 } },
      'request.end_window_size: must be at least 200 ms (got 199)',
    ],
    [
      { ...minimal, request: { model_name: 'bigmodel', end_window_size: 250.5 } },
      'request.end_window_size: must be a whole number of milliseconds (got 250.5)',
    ],
    [
      { ...minimal, request: { model_name: 'bigmodel', accelerate_score: 21 } },
      'request.accelerate_score: must be an integer from 0 to 20 (got 21)',
    ],
    [
      { ...minimal, request: { model_name: 'bigmodel', accelerate_score: -1 } },
      'request.accelerate_score: must be an integer from 0 to 20 (got -1)',
    ],
    [
      { ...minimal, request: { model_name: 'bigmodel', force_to_speech_time: 0 } },
      'request.force_to_speech_time: must be at least 1 ms (got 0)',
    ],
    [
      { ...minimal, request: { model_name: 'bigmodel', vad_segment_duration: 0 } },
      'request.vad_segment_duration: must be a positive number of milliseconds (got 0)',
    ],
    [
      { ...minimal, request: { model_name: 'bigmodel', result_type: 'partial' } },
      'request.result_type: must be full or single (got "partial")',
    ],
    [
      { ...minimal, request: { model_name: 'bigmodel', enable_punc: 'yes' } },
      'request.enable_punc: must be true or false (got "yes")',
    ],
    [
      { ...minimal, request: { model_name: 'bigmodel', enable_pucn: true } },
      'request.enable_pucn: unknown field',
    ],
    [{ ...minimal, user: { uid: 7 } }, 'user.uid: must be a string (got 7)'],
    [
      { request: { model_name: 'bigmodel' } },
      'audio: is required: an object with at least format (got nothing)',
    ],
    [
      { audio: { format: 'pcm' } },
      'request: is required: an object with at least model_name (got nothing)',
    ],
    [{ ...minimal, extra: 1 }, 'extra: unknown field'],
    [
      {
        ...minimal,
        request: { model_name: 'bigmodel', sensitive_words_filter: '{"filter_with_empty":"um"}' },
      },
      'request.sensitive_words_filter: filter_with_empty: must be a list of strings',
    ],
    [
      { ...minimal, request: { model_name: 'bigmodel', sensitive_words_filter: 'um,uh' } },
      'request.sensitive_words_filter: must be JSON text',
    ],
  ])('refuses %j naming the field', (value, expected) => {
    const found = problems(value);
    expect(
      found.some((problem) => problem.startsWith(expected)),
      found.join('\n'),
    ).toBe(true);
  });

  it('reports every problem at once, in the error message too', () => {
    try {
      validateAsrRequest({
        audio: { format: 'pcm', rate: 44100, channel: 6 },
        request: { model_name: 'bigmodel', end_window_size: 10 },
      });
      expect.unreachable();
    } catch (error) {
      expect(isAsrProtocolError(error) && error.issues?.map((issue) => issue.path)).toEqual([
        'audio.rate',
        'audio.channel',
        'request.end_window_size',
      ]);
      expect((error as Error).message).toMatch(
        /^invalid ASR request: audio\.rate: .*; audio\.channel: .*; request\.end_window_size: /,
      );
    }
  });
});

describe('endpoint rules', () => {
  it('accepts a language only on bigmodel_nostream', () => {
    const request = { ...minimal, audio: { format: 'pcm', language: 'en-US' } };
    expect(problems(request, 'bigmodel_nostream')).toEqual([]);
    expect(problems(request, 'bigmodel')).toEqual([
      'audio.language: only bigmodel_nostream accepts a language (endpoint is bigmodel)',
    ]);
    expect(problems({ ...minimal, audio: { format: 'pcm', language: '' } }, 'bigmodel')).toEqual(
      [],
    );
  });

  it('accepts two-pass recognition only on bigmodel_async', () => {
    const request = { ...minimal, request: { model_name: 'bigmodel', enable_nonstream: true } };
    expect(problems(request, 'bigmodel_async')).toEqual([]);
    expect(problems(request, 'bigmodel_nostream')).toEqual([
      'request.enable_nonstream: two-pass recognition is only on bigmodel_async (endpoint is bigmodel_nostream)',
    ]);
  });

  it.each([
    'show_speech_rate',
    'show_volume',
    'enable_lid',
    'enable_emotion_detection',
    'enable_gender_detection',
  ])('%s: nostream and async only', (feature) => {
    const request = { ...minimal, request: { model_name: 'bigmodel', [feature]: true } };
    expect(problems(request, 'bigmodel_async')).toEqual([]);
    expect(problems(request, 'bigmodel_nostream')).toEqual([]);
    expect(problems(request, 'bigmodel')).toEqual([
      `request.${feature}: only bigmodel_nostream and bigmodel_async support it (endpoint is bigmodel)`,
    ]);
    expect(
      problems({ ...minimal, request: { model_name: 'bigmodel', [feature]: false } }, 'bigmodel'),
    ).toEqual([]);
  });

  it('accepts POI/music assistance on nostream, or async with two-pass', () => {
    const poi = { model_name: 'bigmodel', enable_poi_fc: true };
    expect(problems({ ...minimal, request: poi }, 'bigmodel_nostream')).toEqual([]);
    expect(
      problems({ ...minimal, request: { ...poi, enable_nonstream: true } }, 'bigmodel_async'),
    ).toEqual([]);
    expect(problems({ ...minimal, request: poi }, 'bigmodel_async')).toHaveLength(1);
    expect(
      problems(
        { ...minimal, request: { model_name: 'bigmodel', enable_music_fc: true } },
        'bigmodel',
      ),
    ).toHaveLength(1);
  });

  it('limits direct hot words to 100 tokens on the bidirectional endpoints and 5000 words on nostream', () => {
    const fits = buildHotwordsContext(
      Array.from({ length: 100 }, (_, index) => `w${index % 10}${index}`.slice(0, 4)),
    );
    const many = buildHotwordsContext(Array.from({ length: 101 }, (_, index) => `h${index}`));
    const withCorpus = (context: string) => ({
      ...minimal,
      request: { model_name: 'bigmodel', corpus: { context } },
    });
    expect(problems(withCorpus(fits), 'bigmodel')).toEqual([]);
    expect(problems(withCorpus(many), 'bigmodel_async')).toEqual([
      'request.corpus.context: hotwords: about 101 tokens of hot words; bigmodel_async accepts at most 100',
    ]);
    expect(problems(withCorpus(many), 'bigmodel_nostream')).toEqual([]);
    const huge = buildHotwordsContext(Array.from({ length: 5001 }, (_, index) => `h${index}`));
    expect(problems(withCorpus(huge), 'bigmodel_nostream')).toEqual([
      'request.corpus.context: hotwords: 5001 hot words; bigmodel_nostream accepts at most 5000',
    ]);
    // Without an endpoint only the shape is checked.
    expect(problems(withCorpus(many))).toEqual([]);
  });
});

describe('corpus.context', () => {
  const withContext = (context: unknown) => ({
    ...minimal,
    request: { model_name: 'bigmodel', corpus: { context } },
  });

  it.each([
    ['not JSON', 'photosynthesis', 'request.corpus.context: must be JSON text'],
    [
      'JSON but not an object',
      '["a"]',
      'request.corpus.context: must be the JSON text of an object',
    ],
    [
      'an object of no known kind',
      '{"words":[]}',
      'request.corpus.context: must hold hotwords, a dialog context',
    ],
    [
      'hot words not a list',
      '{"hotwords":"a,b"}',
      'request.corpus.context: hotwords: must be a list',
    ],
    [
      'an empty hot word',
      '{"hotwords":[{"word":"a"},{"word":" "}]}',
      'request.corpus.context: hotwords[1].word: must be a non-empty string',
    ],
    [
      'a wrong context_type',
      '{"context_type":"chat","context_data":[]}',
      'request.corpus.context: context_type: must be "dialog_ctx"',
    ],
    [
      'a dialog item of neither kind',
      '{"context_type":"dialog_ctx","context_data":[{"audio":"x"}]}',
      'request.corpus.context: context_data[0]: must be',
    ],
    [
      'loc_info without a city',
      '{"loc_info":{}}',
      'request.corpus.context: loc_info.city_name: must be a non-empty string',
    ],
    [
      'an object, not JSON text',
      { hotwords: [] },
      'request.corpus.context: must be JSON text (a string)',
    ],
  ])('refuses %s', (_name, context, expected) => {
    const found = problems(withContext(context));
    expect(
      found.some((problem) => problem.startsWith(expected)),
      found.join('\n'),
    ).toBe(true);
  });

  it('limits dialog context to 20 rounds, 800 tokens and one image of at most 500 KB (jpeg/png)', () => {
    const dialog = (context_data: unknown[]) =>
      JSON.stringify({ context_type: 'dialog_ctx', context_data });
    expect(
      problems(withContext(dialog(Array.from({ length: 20 }, () => ({ text: 'hi' }))))),
    ).toEqual([]);
    expect(
      problems(withContext(dialog(Array.from({ length: 21 }, () => ({ text: 'hi' })))))[0],
    ).toMatch(/context_data: 21 rounds; at most 20/);
    expect(problems(withContext(dialog([{ text: '光'.repeat(801) }])))[0]).toMatch(
      /about 801 tokens of text; at most 800/,
    );
    const small = `data:image/png;base64,${Buffer.alloc(1000).toString('base64')}`;
    const big = `data:image/jpeg;base64,${Buffer.alloc(500_001).toString('base64')}`;
    expect(problems(withContext(dialog([{ image_url: small }])))).toEqual([]);
    expect(problems(withContext(dialog([{ image_url: 'https://example.com/slide.JPG' }])))).toEqual(
      [],
    );
    expect(problems(withContext(dialog([{ image_url: big }])))[0]).toMatch(
      /image is 500001 bytes; the limit is 500000/,
    );
    expect(problems(withContext(dialog([{ image_url: small }, { image_url: small }])))[0]).toMatch(
      /2 images; at most 1/,
    );
    expect(
      problems(withContext(dialog([{ image_url: 'https://example.com/slide.gif' }])))[0],
    ).toMatch(/jpeg, jpg or png/);
    expect(
      problems(withContext(dialog([{ image_url: 'data:image/webp;base64,AAAA' }])))[0],
    ).toMatch(/image\/jpeg/);
    expect(problems(withContext(dialog([{ image_url: 'ftp://example.com/a.png' }])))[0]).toMatch(
      /http\(s\) URL/,
    );
  });

  it('buildDialogContext keeps the newest rounds within the limits and says how many it dropped', () => {
    const items = Array.from({ length: 30 }, (_, index) => ({ text: `round ${index}` }));
    const built = buildDialogContext(items);
    expect(built.dropped).toBe(10);
    const parsed = JSON.parse(built.context);
    expect(parsed.context_type).toBe('dialog_ctx');
    expect(parsed.context_data[0]).toEqual({ text: 'round 0' });
    expect(parsed.context_data).toHaveLength(20);
    expect(problems(withContext(built.context))).toEqual([]);

    const long = buildDialogContext([
      { text: '光'.repeat(500) },
      { text: '合'.repeat(400) },
      { text: 'x' },
    ]);
    expect(long.dropped).toBe(2);
    const images = buildDialogContext([
      { image_url: 'https://a/1.png' },
      { text: 'a' },
      { image_url: 'https://a/2.png' },
    ]);
    expect(JSON.parse(images.context).context_data).toEqual([
      { image_url: 'https://a/1.png' },
      { text: 'a' },
    ]);
    expect(images.dropped).toBe(1);
  });

  it('buildHotwordsContext trims, drops empty and repeated words, keeps order', () => {
    expect(JSON.parse(buildHotwordsContext([' mitosis ', '', 'meiosis', 'mitosis']))).toEqual({
      hotwords: [{ word: 'mitosis' }, { word: 'meiosis' }],
    });
  });
});

describe('schema object', () => {
  it('is a zod schema usable on its own', () => {
    expect(asrRequestSchema.safeParse(minimal).success).toBe(true);
    expect(asrRequestSchema.safeParse({ audio: {}, request: {} }).success).toBe(false);
  });
});
