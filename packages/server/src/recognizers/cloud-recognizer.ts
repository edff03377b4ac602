/**
 * ASR_MODE=cloud: each phrase the energy VAD detects is sent as a WAV file to an
 * OpenAI-compatible `POST {CLOUD_ASR_BASE_URL}/audio/transcriptions` through the `openai` SDK
 * (CLOUD_ASR_API_KEY, CLOUD_ASR_MODEL, CLOUD_ASR_LANGUAGE). The class's hot words go along as the
 * transcription prompt, which steers Whisper-style models towards the names and terms of the class.
 */
import { encodeWav } from '@class-assistant/asr-protocol';
import type OpenAI from 'openai';
import { RECOGNIZER_SAMPLE_RATE, samplesToBytes } from '../audio/pcm.ts';
import { httpFetch } from '../network/http-fetch.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import { contextHotwords } from './hotwords.ts';
import {
  createPhraseRecognizer,
  type PhraseTranscriber,
  PhraseTranscriptionError,
} from './phrase-recognizer.ts';
import type { Recognizer, RecognizerContext } from './recognizer.ts';

/** Builds the SDK client of the cloud mode (replaceable in tests and for proxies). */
export type CloudAsrClientFactory = (settings: ResolvedSettings) => OpenAI | Promise<OpenAI>;

/** The default client: CLOUD_ASR_BASE_URL and key, LLM_TIMEOUT, two retries on transient errors. */
export const defaultCloudAsrClientFactory: CloudAsrClientFactory = async (settings) => {
  const { default: OpenAIClient } = await import('openai');
  return new OpenAIClient({
    baseURL: settings.cloudAsrBaseUrl,
    apiKey: settings.cloudAsrApiKey,
    timeout: settings.llmTimeoutMs,
    maxRetries: 2,
    // Node's http module, not the bundled fetch (see network/http-fetch.ts).
    fetch: httpFetch,
  });
};

/** Longest prompt sent (Whisper reads about 224 tokens of it). */
const PROMPT_CHARACTERS = 400;

/** Builds the prompt from hot words: the class's names and terms, comma-separated. */
export function transcriptionPrompt(hotwords: readonly string[]): string {
  let prompt = '';
  for (const word of hotwords) {
    const next = prompt === '' ? word : `${prompt}, ${word}`;
    if (next.length > PROMPT_CHARACTERS) break;
    prompt = next;
  }
  return prompt;
}

/** Maps an SDK failure to a phrase error: wrong key, URL or model stops the class; the rest loses one phrase. */
export function cloudFailure(error: unknown, settings: ResolvedSettings): PhraseTranscriptionError {
  const status = (error as { status?: unknown })?.status;
  const detail = (error as Error)?.message ?? String(error);
  if (status === 401 || status === 403) {
    return new PhraseTranscriptionError(
      'CLOUD_ASR_AUTH_FAILED',
      `The transcription service refused the key (HTTP ${status}): check CLOUD_ASR_API_KEY. ${detail}`,
      true,
      { cause: error },
    );
  }
  if (status === 404) {
    return new PhraseTranscriptionError(
      'CLOUD_ASR_NOT_FOUND',
      `${settings.cloudAsrBaseUrl}/audio/transcriptions or the model ${settings.cloudAsrModel} does not exist (HTTP 404): check CLOUD_ASR_BASE_URL and CLOUD_ASR_MODEL. ${detail}`,
      true,
      { cause: error },
    );
  }
  if (status === 429) {
    return new PhraseTranscriptionError(
      'CLOUD_ASR_RATE_LIMITED',
      `The transcription service is rate-limiting (HTTP 429): ${detail}`,
      false,
      { cause: error },
    );
  }
  if (typeof status === 'number') {
    return new PhraseTranscriptionError(
      'CLOUD_ASR_ERROR',
      `The transcription service answered HTTP ${status}: ${detail}`,
      false,
      { cause: error },
    );
  }
  return new PhraseTranscriptionError(
    'CLOUD_ASR_UNREACHABLE',
    `The transcription service at ${settings.cloudAsrBaseUrl} could not be reached: ${detail}`,
    false,
    { cause: error },
  );
}

/**
 * A cloud-mode recognizer: VAD phrases as WAV files to the transcription API (`factory` builds
 * the SDK client; default {@link defaultCloudAsrClientFactory}).
 */
export function createCloudRecognizer(
  context: RecognizerContext,
  factory: CloudAsrClientFactory = defaultCloudAsrClientFactory,
): Recognizer {
  const { settings } = context;
  return createPhraseRecognizer({
    context,
    emitAs: 'text',
    async prepare(): Promise<PhraseTranscriber> {
      const [client, { toFile }] = await Promise.all([factory(settings), import('openai')]);
      const prompt = transcriptionPrompt(await contextHotwords(context));
      let sequence = 0;
      return {
        async transcribe(phrase) {
          sequence += 1;
          const wav = encodeWav(samplesToBytes(phrase.samples), {
            sampleRate: RECOGNIZER_SAMPLE_RATE,
            channels: 1,
          });
          try {
            const result = await client.audio.transcriptions.create({
              file: await toFile(wav, `phrase-${sequence}.wav`, { type: 'audio/wav' }),
              model: settings.cloudAsrModel,
              response_format: 'json',
              ...(settings.cloudAsrLanguage ? { language: settings.cloudAsrLanguage } : {}),
              ...(prompt ? { prompt } : {}),
            });
            return typeof result.text === 'string' ? result.text.trim() : '';
          } catch (error) {
            throw cloudFailure(error, settings);
          }
        },
        close() {},
      };
    },
  });
}
