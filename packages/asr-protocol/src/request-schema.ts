// The full client request payload as zod schemas, with the service's value ranges and limits.
//
// Objects are strict: an unknown or misspelt field ("enable_pucn") is refused instead of being
// silently ignored by the service. Defaults are not filled in: only what the caller sets is sent,
// and the service applies its own defaults.
import { z } from 'zod';
import {
  checkCorpusContext,
  checkHotwordLimit,
  checkSensitiveWordsFilter,
} from './corpus-context.ts';
import type { AsrEndpoint } from './endpoints.ts';
import { type AsrIssue, AsrProtocolError } from './errors.ts';

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value);
  return json === undefined ? String(value) : json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

/** A zod error option: `text`, then the value that came, e.g. `must be 16000 (got 8000)`. */
function errorMessage(text: string) {
  return { error: (issue: { input?: unknown }) => `${text} (got ${describeValue(issue.input)})` };
}

/** A string field holding JSON text, checked by `check` (its issue paths are inside the JSON). */
function jsonTextField(check: (text: string) => AsrIssue[]) {
  return z.string(errorMessage('must be JSON text (a string)')).superRefine((text, context) => {
    for (const issue of check(text)) {
      context.addIssue({
        code: 'custom',
        message: issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`,
      });
    }
  });
}

const optionalString = () => z.string(errorMessage('must be a string')).optional();
const optionalBoolean = () => z.boolean(errorMessage('must be true or false')).optional();

/** Languages of `audio.language` (bigmodel_nostream only); empty means Chinese and its dialects plus English. */
export const ASR_LANGUAGES = [
  '',
  'en-US',
  'ja-JP',
  'id-ID',
  'es-MX',
  'pt-BR',
  'de-DE',
  'fr-FR',
  'ko-KR',
  'fil-PH',
  'ms-MY',
  'th-TH',
  'ar-SA',
] as const;

/** `user` group: who is calling (all optional). */
export const asrUserSchema = z.strictObject(
  {
    uid: optionalString(),
    did: optionalString(),
    platform: optionalString(),
    sdk_version: optionalString(),
    app_version: optionalString(),
  },
  errorMessage('must be an object'),
);

/** `audio` group: format and its codec rules, 16 kHz, 16 bits, 1 or 2 channels. */
export const asrAudioSchema = z
  .strictObject(
    {
      language: z
        .enum(
          ASR_LANGUAGES,
          errorMessage(`must be empty or one of ${ASR_LANGUAGES.slice(1).join(', ')}`),
        )
        .optional(),
      format: z.enum(['pcm', 'wav', 'ogg', 'mp3'], errorMessage('must be pcm, wav, ogg or mp3')),
      codec: z.enum(['raw', 'opus'], errorMessage('must be raw or opus')).optional(),
      rate: z
        .literal(16000, errorMessage('must be 16000, the only supported sample rate'))
        .optional(),
      bits: z.literal(16, errorMessage('must be 16, the only supported sample size')).optional(),
      channel: z.literal([1, 2], errorMessage('must be 1 (mono) or 2 (stereo)')).optional(),
    },
    errorMessage('is required: an object with at least format'),
  )
  .superRefine((audio, context) => {
    const codec = audio.codec ?? 'raw';
    if (audio.format === 'ogg' && codec !== 'opus') {
      context.addIssue({
        code: 'custom',
        path: ['codec'],
        message: `must be opus when format is ogg (got ${describeValue(audio.codec)})`,
      });
    }
    if ((audio.format === 'pcm' || audio.format === 'wav') && codec !== 'raw') {
      context.addIssue({
        code: 'custom',
        path: ['codec'],
        message: `must be raw when format is ${audio.format}: ${audio.format} must contain pcm_s16le (got ${describeValue(audio.codec)})`,
      });
    }
    if (audio.format === 'mp3' && codec !== 'raw') {
      context.addIssue({
        code: 'custom',
        path: ['codec'],
        message: `has no effect for mp3; pass raw (got ${describeValue(audio.codec)})`,
      });
    }
  });

/** `request.corpus`: hot-word and replacement tables, and `context` (JSON text, see {@link checkCorpusContext}). */
export const asrCorpusSchema = z.strictObject(
  {
    boosting_table_name: optionalString(),
    boosting_table_id: optionalString(),
    correct_table_name: optionalString(),
    correct_table_id: optionalString(),
    context: jsonTextField(checkCorpusContext).optional(),
  },
  errorMessage('must be an object'),
);

/** `request` group: model and recognition options with their ranges. */
export const asrRequestOptionsSchema = z.strictObject(
  {
    model_name: z.literal('bigmodel', errorMessage('must be "bigmodel"')),
    enable_nonstream: optionalBoolean(),
    enable_itn: optionalBoolean(),
    enable_punc: optionalBoolean(),
    enable_ddc: optionalBoolean(),
    show_utterances: optionalBoolean(),
    show_speech_rate: optionalBoolean(),
    show_volume: optionalBoolean(),
    enable_lid: optionalBoolean(),
    enable_emotion_detection: optionalBoolean(),
    enable_gender_detection: optionalBoolean(),
    result_type: z.enum(['full', 'single'], errorMessage('must be full or single')).optional(),
    enable_accelerate_text: optionalBoolean(),
    accelerate_score: z
      .int(errorMessage('must be an integer from 0 to 20'))
      .min(0, errorMessage('must be an integer from 0 to 20'))
      .max(20, errorMessage('must be an integer from 0 to 20'))
      .optional(),
    vad_segment_duration: z
      .int(errorMessage('must be a whole number of milliseconds'))
      .positive(errorMessage('must be a positive number of milliseconds'))
      .optional(),
    end_window_size: z
      .int(errorMessage('must be a whole number of milliseconds'))
      .min(200, errorMessage('must be at least 200 ms'))
      .optional(),
    force_to_speech_time: z
      .int(errorMessage('must be a whole number of milliseconds'))
      .min(1, errorMessage('must be at least 1 ms'))
      .optional(),
    sensitive_words_filter: jsonTextField(checkSensitiveWordsFilter).optional(),
    enable_poi_fc: optionalBoolean(),
    enable_music_fc: optionalBoolean(),
    corpus: asrCorpusSchema.optional(),
  },
  errorMessage('is required: an object with at least model_name'),
);

/**
 * The full client request payload, endpoint-independent rules only. Use
 * {@link createAsrRequestSchema} or {@link validateAsrRequest} to also check what an endpoint
 * supports and the per-endpoint hot-word limit.
 */
export const asrRequestSchema = z.strictObject(
  {
    user: asrUserSchema.optional(),
    audio: asrAudioSchema,
    request: asrRequestOptionsSchema,
  },
  errorMessage('must be an object with audio and request'),
);

/** The full client request payload: `user`, `audio` and `request` groups. */
export type AsrRequest = z.infer<typeof asrRequestSchema>;

const VAD_FEATURES = [
  'show_speech_rate',
  'show_volume',
  'enable_lid',
  'enable_emotion_detection',
  'enable_gender_detection',
] as const;

/**
 * Options the endpoint does not support, as issues with paths from the request root:
 * `audio.language` only on bigmodel_nostream, two-pass only on bigmodel_async, the VAD-based
 * additions not on bigmodel, POI/music assistance only on nostream or on async with two-pass.
 */
export function unsupportedOnEndpoint(value: AsrRequest, endpoint: AsrEndpoint): AsrIssue[] {
  const issues: AsrIssue[] = [];
  const options = value.request;
  if (
    value.audio.language !== undefined &&
    value.audio.language !== '' &&
    endpoint !== 'bigmodel_nostream'
  ) {
    issues.push({
      path: 'audio.language',
      message: `only bigmodel_nostream accepts a language (endpoint is ${endpoint})`,
    });
  }
  if (options.enable_nonstream === true && endpoint !== 'bigmodel_async') {
    issues.push({
      path: 'request.enable_nonstream',
      message: `two-pass recognition is only on bigmodel_async (endpoint is ${endpoint})`,
    });
  }
  if (endpoint === 'bigmodel') {
    for (const feature of VAD_FEATURES) {
      if (options[feature] === true) {
        issues.push({
          path: `request.${feature}`,
          message: 'only bigmodel_nostream and bigmodel_async support it (endpoint is bigmodel)',
        });
      }
    }
  }
  for (const feature of ['enable_poi_fc', 'enable_music_fc'] as const) {
    const supported =
      endpoint === 'bigmodel_nostream' ||
      (endpoint === 'bigmodel_async' && options.enable_nonstream === true);
    if (options[feature] === true && !supported) {
      issues.push({
        path: `request.${feature}`,
        message: `only bigmodel_nostream, or bigmodel_async with enable_nonstream, support it (endpoint is ${endpoint})`,
      });
    }
  }
  return issues;
}

/** The endpoint's hot-word limit on `request.corpus.context`, as an issue, or undefined. */
export function hotwordLimitIssue(value: AsrRequest, endpoint: AsrEndpoint): AsrIssue | undefined {
  const context = value.request.corpus?.context;
  const limit = context === undefined ? undefined : checkHotwordLimit(context, endpoint);
  if (limit === undefined) return undefined;
  return { path: 'request.corpus.context', message: `${limit.path}: ${limit.message}` };
}

/**
 * The request schema with the rules of one endpoint added: what the endpoint supports (see
 * {@link unsupportedOnEndpoint}) and its hot-word limit.
 */
export function createAsrRequestSchema(endpoint: AsrEndpoint) {
  return asrRequestSchema.superRefine((value, context) => {
    const limit = hotwordLimitIssue(value, endpoint);
    const issues = [
      ...unsupportedOnEndpoint(value, endpoint),
      ...(limit === undefined ? [] : [limit]),
    ];
    for (const issue of issues) {
      context.addIssue({ code: 'custom', path: issue.path.split('.'), message: issue.message });
    }
  });
}

/** Turns zod issues into `{ path, message }` with dotted paths; unknown keys each get their own issue. */
export function toAsrIssues(issues: readonly z.core.$ZodIssue[]): AsrIssue[] {
  const result: AsrIssue[] = [];
  for (const issue of issues) {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        result.push({ path: path === '' ? key : `${path}.${key}`, message: 'unknown field' });
      }
    } else {
      result.push({ path: path === '' ? '(root)' : path, message: issue.message });
    }
  }
  return result;
}

/**
 * Validates a full client request for `endpoint` (or endpoint-independently when omitted) and
 * returns it typed. Throws `AsrProtocolError` code `ASR_INVALID_REQUEST` whose message names every
 * offending field, e.g. `request.end_window_size: must be at least 200 ms (got 100)`; the list is
 * also in `error.issues`.
 *
 * @example
 * const request = validateAsrRequest({ audio: { format: 'pcm', rate: 16000 }, request: { model_name: 'bigmodel' } }, 'bigmodel_async');
 */
export function validateAsrRequest(value: unknown, endpoint?: AsrEndpoint): AsrRequest {
  const schema = endpoint === undefined ? asrRequestSchema : createAsrRequestSchema(endpoint);
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = toAsrIssues(parsed.error.issues);
  throw new AsrProtocolError(
    'ASR_INVALID_REQUEST',
    `invalid ASR request: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
    { issues },
  );
}
